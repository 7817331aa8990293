"""``GraphRun``: one run of a graph that speaks our event protocol, as a ``RunHandle``.

The embedded engine's graphs and attached LangGraph apps both offer ``astream_events(input,
config, version="stepwise", debugger=..., context=...)``; this iterates it, keeps track of what the front end needs
to know when it ends (status, output, error line, interrupts still waiting) and turns the ways a
run can end (done, interrupted, stopped by the debugger, an exception) into one ``RunOutcome``.
Iterating never raises for a failed run: the failure is in the outcome and in ``run.finished``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from engine.core.ids import new_run_id
from engine.errors import RunStopped, one_line
from engine.events import EventBase, InterruptRaised, RunFinished
from engine.targets.base import RunOutcome, RunRequest

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger

__all__ = [
    "RESERVED_CONFIGURABLE",
    "GraphRun",
    "app_configurable",
    "configurable_problem",
    "request_config",
]

RESERVED_CONFIGURABLE = frozenset({"thread_id", "checkpoint_id", "checkpoint_ns", "model_override"})
"""The ``configurable`` keys a run request sets itself (an app's own keys cannot replace them)."""


def request_config(request: RunRequest, run_id: str) -> dict[str, Any]:
    """The LangGraph ``config`` of a run request: the app's own ``configurable`` keys, then
    the request's thread, checkpoint and model override."""
    conf: dict[str, Any] = app_configurable(request.configurable or {})
    conf["thread_id"] = request.thread_id
    if request.checkpoint_id is not None:
        conf["checkpoint_id"] = request.checkpoint_id
        if request.checkpoint_ns:
            conf["checkpoint_ns"] = request.checkpoint_ns
    if request.model_override is not None:
        conf["model_override"] = request.model_override
    return {"configurable": conf, "run_id": run_id}


def app_configurable(conf: Mapping[str, Any]) -> dict[str, Any]:
    """The app's own keys of a ``configurable`` (none of ours, nor LangGraph's ``__`` ones)."""
    return {
        str(k): v
        for k, v in conf.items()
        if k not in RESERVED_CONFIGURABLE and not str(k).startswith("__")
    }


def configurable_problem(value: Any) -> str | None:
    """Why ``value`` cannot be an app's ``configurable`` keys (None when it can)."""
    if not isinstance(value, Mapping):
        return 'a JSON object of keys, as {"user_id": "u1"}'
    reserved = sorted(str(k) for k in value if k in RESERVED_CONFIGURABLE)
    if reserved:
        return f"{', '.join(reserved)} is set by Stepwise, not here"
    return None


class GraphRun:
    """A run of ``graph`` (see module docstring); iterate it once."""

    def __init__(self, graph: Any, request: RunRequest, debugger: Debugger) -> None:
        self.graph = graph
        self.request = request
        self.debugger = debugger
        self.run_id = request.run_id or new_run_id()
        self.outcome: RunOutcome | None = None

    async def __aiter__(self) -> AsyncIterator[EventBase]:
        status: str | None = None
        error: str | None = None
        output: Any = None
        pending: dict[str, InterruptRaised] = {}
        config = request_config(self.request, self.run_id)
        kwargs: dict[str, Any] = {"debugger": self.debugger, "version": "stepwise"}
        if self.request.context is not None:
            kwargs["context"] = self.request.context
        try:
            events = self.graph.astream_events(self.request.input, config, **kwargs)
            async with contextlib.aclosing(events) as stream:
                async for ev in stream:
                    if ev.run_id == self.run_id and (not ev.ns or _answerable(ev)):
                        if isinstance(ev, InterruptRaised):
                            pending.setdefault(str(ev.interrupt_id or ev.seq), ev)
                        elif ev.kind == "interrupt.resumed":
                            pending.pop(str(getattr(ev, "interrupt_id", None) or ""), None)
                        elif isinstance(ev, RunFinished):
                            status, output = ev.status, ev.output
                            if ev.error is not None:
                                error = f"{ev.error.type}: {ev.error.message}".splitlines()[0]
                    yield ev
        except RunStopped:
            status = "cancelled"
        except Exception as exc:
            status, error = "error", error or one_line(exc)
        finally:
            self.debugger.stop_requested = False
        final = status if status in ("done", "interrupted", "error", "cancelled") else "done"
        self.outcome = RunOutcome(
            self.run_id,
            final,  # type: ignore[arg-type]
            output=output,
            error=error if final == "error" else None,
            interrupts=list(pending.values()) if final == "interrupted" else [],
        )


def _answerable(ev: EventBase) -> bool:
    """An event of a subgraph that says what waits for an answer: an ``interrupt()`` raised
    there (reported once, by the subgraph's node that called it; an older session may repeat
    it at the enclosing graph's node, with the same id) or one answered."""
    if isinstance(ev, InterruptRaised):
        return ev.interrupt_id is not None
    return ev.kind == "interrupt.resumed" and getattr(ev, "interrupt_id", None) is not None
