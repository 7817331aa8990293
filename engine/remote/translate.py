"""A server run's stream, translated into our event protocol.

The modes a remote run asks for (``REMOTE_MODES``) and what each part becomes:

- ``debug`` ``checkpoint``: closes the superstep it ends, ``route`` from the nodes that wrote
  to the nodes due next, ``checkpoint.saved``; ``task``: ``superstep.started`` (once per step)
  and ``node.started``; ``task_result``: ``node.finished`` (status, writes, error),
  ``state.updated`` and ``interrupt.raised`` for each ``interrupt()`` it stopped at.
- ``events``: chat-model and tool runs inside a node: ``model.request`` / ``model.token`` /
  ``model.response``, ``tool.started`` / ``tool.finished``, nested in the node (found through
  ``langgraph_checkpoint_ns`` in their metadata) or in the call that made them.
- ``custom``: ``custom`` (in the node running in that graph when there is only one).
- ``metadata``: the server's run id; ``error``: the run's error.
- ``updates`` (only in runs joined from a client that did not stream ``debug``): ``state.updated``.

Subgraph parts arrive as ``mode|node:task`` and become events with that namespace.  One
translator lives for a whole remote run (several server runs when it stops at breakpoints), so
a checkpoint or a node streamed again by the next server run is not announced twice.

Which events go through the debugger's gate (``gated``): the ones the server really stops at
(``node.finished`` of a node in ``interrupt_after``, a failed node, ``interrupt.raised``) and
the ``node.started`` of nodes announced at a stop before them (``announce``).  Every other
event is delivered without the gate: a server does not wait for its client, so a pause there
would not hold the run.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.attach.mirror import CheckpointMirror
from engine.core.ids import new_span_id
from engine.events import (
    CustomEvent,
    ErrorInfo,
    EventBase,
    InterruptRaised,
    NodeFinished,
    NodeStarted,
    PlannedTask,
    StateUpdated,
)
from engine.observe.bus import RunEmitter
from engine.remote.client import StreamPart
from engine.remote.translate_calls import CallSpan, CallTranslation, TaskSpan, tool_calls_in
from engine.remote.translate_steps import SKIP, StepTranslation
from engine.serde import to_jsonable

__all__ = ["FALLBACK_MODES", "REMOTE_MODES", "ServerError", "StreamTranslator"]

_log = logging.getLogger("stepwise.remote")

REMOTE_MODES = ("debug", "events", "custom")
"""Stream modes a remote run asks for (``messages`` tokens come inside ``events``)."""
FALLBACK_MODES = ("debug", "custom")
"""What is asked of a server that refuses ``events`` (no model or tool calls then)."""


@dataclass(frozen=True)
class ServerError:
    """The error a server run ended with."""

    type: str
    message: str

    def line(self) -> str:
        first = (self.message.strip().splitlines() or [""])[0]
        return f"{self.type}: {first}" if first else self.type


def _server_time(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


def _depth(ns: str) -> int:
    """How deep a namespace is: 0 for the root graph, 1 for a subgraph of it ("node:task")..."""
    return ns.count("|") + 1 if ns else 0


def _writes(result: Any) -> list[tuple[str, Any]]:
    """A task's writes: a dict of channel -> value, or a list of ``[channel, value]``."""
    if isinstance(result, Mapping):
        return [(str(k), v) for k, v in result.items()]
    if isinstance(result, list):
        return [(str(w[0]), w[1]) for w in result if isinstance(w, list | tuple) and len(w) == 2]
    return []


class StreamTranslator(CallTranslation, StepTranslation):
    """Translates the parts of a remote run's server runs (see module docstring)."""

    def __init__(
        self,
        emitter: RunEmitter,
        announced: set[tuple[str | None, str, str]],
        mirrors: Sequence[CheckpointMirror] = (),
    ) -> None:
        self.em = emitter
        self.mirrors = list(mirrors)
        """Session files that keep a copy of each checkpoint (offline replay with states)."""
        self.root_span = emitter.run_id
        self.announced = announced
        """(thread, ns, checkpoint id) already announced, shared by the target's runs."""
        self.after: set[str] | Literal["*"] = set()
        """The ``interrupt_after`` of the server run being translated."""
        self._children: dict[str, RunEmitter] = {}
        self.steps: dict[tuple[str, int], str] = {}
        self._step_t0: dict[str, float] = {}
        self.tasks: dict[tuple[str, str], TaskSpan] = {}
        self.calls: dict[str, CallSpan] = {}
        self.tools_run: set[str] = set()
        self.planned: dict[str, list[PlannedTask]] = {}
        self.writers: dict[str, list[str]] = {}
        self.started: set[str] = set()
        """Task ids whose ``node.started`` was sent (announced at a stop, or streamed)."""
        self.finished: set[str] = set()
        self.server_run_id: str | None = None
        self.error: ServerError | None = None
        self.interrupts: list[InterruptRaised] = []
        """The ``interrupt()`` calls the latest server run stopped at."""
        self.shown_interrupts: set[str] = set()
        """Ids of the interrupts reported so far: a subgraph's, reported by its node that called
        ``interrupt()``, comes again with the enclosing graph's node (which ends interrupted)."""
        self.values: Any = None
        """The root graph's values at its latest checkpoint (server JSON)."""
        self.state_seen: dict[str, Mapping[str, Any]] = {}
        """Each namespace's values at its latest checkpoint (what ``state.updated`` diffs)."""
        self.next: list[str] = []
        self.next_tasks: list[dict[str, Any]] = []
        self.has_debug = False
        self.parts = 0

    # -- plumbing ------------------------------------------------------------------------------

    def _emitter(self, ns: str) -> RunEmitter:
        if not ns:
            return self.em
        child = self._children.get(ns)
        if child is None:
            child = self._children[ns] = self.em.child(ns)
        return child

    async def _emit(
        self, cls: type[EventBase], ns: str, *, gated: bool = False, **fields: Any
    ) -> None:
        em = self._emitter(ns)
        if gated:
            await em.emit(cls, **fields)
        else:
            await em.emit_ungated(cls, **fields)

    def begin(self, after: Iterable[str] | Literal["*"]) -> None:
        """A new server run starts (with this ``interrupt_after``)."""
        self.after = "*" if after == "*" else set(after)
        self.server_run_id = None
        self.error = None
        self.interrupts = []

    # -- parts ---------------------------------------------------------------------------------

    async def part(self, part: StreamPart) -> None:
        self.parts += 1
        mode, data = part.mode, part.data
        if mode == "debug" and isinstance(data, Mapping):
            self.has_debug = True
            await self._debug(part.ns, data)
        elif mode == "events" and isinstance(data, Mapping):
            await self._event(data)
        elif mode == "custom":
            await self._custom(part.ns, data)
        elif mode == "metadata" and isinstance(data, Mapping):
            if data.get("run_id") and data.get("status") != "run_done":
                self.server_run_id = str(data["run_id"])
        elif mode == "error":
            info = data if isinstance(data, Mapping) else {"message": str(data)}
            self.error = ServerError(
                str(info.get("error") or "Error"), str(info.get("message") or "")
            )
        elif mode == "updates" and not self.has_debug and isinstance(data, Mapping):
            await self._updates(part.ns, data)

    async def _debug(self, ns: str, data: Mapping[str, Any]) -> None:
        payload = data.get("payload")
        if not isinstance(payload, Mapping):
            return
        kind = data.get("type")
        step = data.get("step") if isinstance(data.get("step"), int) else None
        if kind == "checkpoint":
            ts = data.get("timestamp")
            await self._checkpoint(ns, step, payload, ts if isinstance(ts, str) else None)
        elif kind == "task":
            await self._task(ns, step, payload, _server_time(data.get("timestamp")))
        elif kind == "task_result":
            await self._task_result(ns, step, payload, _server_time(data.get("timestamp")))

    # -- nodes ---------------------------------------------------------------------------------

    async def _task(
        self, ns: str, step: int | None, payload: Mapping[str, Any], server_t0: float | None
    ) -> None:
        node = str(payload.get("name") or "")
        task_id = str(payload.get("id") or "")
        if not node or node in SKIP:
            return
        await self.start_node(ns, step, node, task_id, payload.get("input"), server_t0)

    async def start_node(
        self,
        ns: str,
        step: int | None,
        node: str,
        task_id: str,
        input: Any = None,
        server_t0: float | None = None,
        *,
        gated: bool = False,
    ) -> None:
        """``node.started`` of a task (once, whether announced at a stop or streamed)."""
        if task_id in self.started:
            task = self.tasks.get((ns, task_id))
            if task is not None and server_t0 is not None:
                task.server_t0 = server_t0
            return
        self.started.add(task_id)
        sstep = await self._open_step(ns, step)
        span = new_span_id()
        self.tasks[(ns, task_id)] = TaskSpan(
            span, node, ns, step, time.perf_counter(), server_t0, tool_calls_in(input)
        )
        await self._emit(
            NodeStarted,
            ns,
            gated=gated,
            span_id=span,
            parent_span_id=sstep,
            step=step,
            node=node,
            task_id=task_id,
            input_summary=str(to_jsonable(input, max_str=200, max_items=5))[:300]
            if input is not None
            else "",
        )

    async def _task_result(
        self, ns: str, step: int | None, payload: Mapping[str, Any], server_t1: float | None
    ) -> None:
        node = str(payload.get("name") or "")
        task_id = str(payload.get("id") or "")
        if not node or node in SKIP or task_id in self.finished:
            return
        if task_id not in self.started:  # joined mid-run: the task began before we listened
            await self.start_node(ns, step, node, task_id)
        task = self.tasks.get((ns, task_id))
        err = payload.get("error")
        interrupts = [i for i in payload.get("interrupts") or () if isinstance(i, Mapping)]
        status: Literal["ok", "error", "interrupted"] = (
            "error" if err else "interrupted" if interrupts else "ok"
        )
        error = None
        if err:
            info = err if isinstance(err, Mapping) else {"message": str(err)}
            error = ErrorInfo(
                type=str(info.get("error") or "Error"), message=str(info.get("message") or "")
            )
        writes = _writes(payload.get("result"))
        await self._close_calls_of(task, error)
        await self._failed_without_a_tool(task, writes)
        self.finished.add(task_id)
        if status == "ok":
            self.writers.setdefault(ns, []).append(node)
        duration = 0.0
        if task is not None:
            if task.server_t0 is not None and server_t1 is not None:
                duration = max(0.0, (server_t1 - task.server_t0) * 1000)
            else:
                duration = (time.perf_counter() - task.t0) * 1000
        await self._close_inner_steps(ns, node, task_id, status)
        gate_after = not ns and (self.after == "*" or node in self.after or status == "error")
        await self._emit(
            NodeFinished,
            ns,
            gated=gate_after,
            span_id=task.span if task else new_span_id(),
            parent_span_id=self.steps.get((ns, -1 if step is None else step)),
            step=step,
            node=node,
            task_id=task_id,
            status=status,
            writes=[
                {"channel": ch, "value": to_jsonable(v, max_str=2000, max_items=20)}
                for ch, v in writes
            ],
            error=error,
            duration_ms=duration,
        )
        for intr in interrupts:
            await self._interrupt(ns, step, node, task_id, intr, task.span if task else None)

    async def _close_inner_steps(
        self, ns: str, node: str, task_id: str, status: Literal["ok", "error", "interrupted"]
    ) -> None:
        """Close the supersteps still open in the subgraph a finishing task ran (innermost
        first): one that stopped at an ``interrupt()`` or failed has no checkpoint after it."""
        own = f"{ns}|{node}:{task_id}" if ns else f"{node}:{task_id}"
        inner = [k for k in self.steps if k[0] == own or k[0].startswith(own + "|")]
        for inner_ns, inner_step in sorted(inner, key=lambda k: (-_depth(k[0]), -k[1])):
            await self._close_step(inner_ns, inner_step, status)

    async def _interrupt(
        self,
        ns: str,
        step: int | None,
        node: str,
        task_id: str,
        intr: Mapping[str, Any],
        span: str | None = None,
    ) -> None:
        """``interrupt.raised`` under the span of the node that called ``interrupt()``."""
        fields: dict[str, Any] = {
            "interrupt_id": str(intr.get("id") or "") or None,
            "value": to_jsonable(intr.get("value"), max_str=4000),
            "node": node,
            "task_id": task_id,
        }
        iid = fields["interrupt_id"]
        if iid is None or iid not in self.shown_interrupts:
            await self._emit(
                InterruptRaised,
                ns,
                gated=True,
                parent_span_id=span or self.root_span,
                step=step,
                **fields,
            )
        if iid is not None:
            self.shown_interrupts.add(iid)
        if not ns:
            self.interrupts.append(
                InterruptRaised(run_id=self.em.run_id, thread_id=self.em.thread_id, **fields)
            )

    async def _updates(self, ns: str, data: Mapping[str, Any]) -> None:
        for node, update in data.items():
            if node == "__interrupt__" or not isinstance(update, Mapping):
                continue
            self.writers.setdefault(ns, []).append(str(node))
            await self._emit(
                StateUpdated,
                ns,
                parent_span_id=self.root_span,
                changes=[
                    {"channel": str(k), "op": "set", "value": to_jsonable(v, max_str=2000)}
                    for k, v in update.items()
                ],
            )

    async def _custom(self, ns: str, data: Any) -> None:
        running = [
            t for t in self.tasks.values() if t.ns == ns and t.span not in self._done_spans()
        ]
        task = running[0] if len(running) == 1 else None
        await self._emit(
            CustomEvent,
            ns,
            parent_span_id=task.span if task else self.root_span,
            step=task.step if task else None,
            node=task.node if task else "",
            data=to_jsonable(data, max_str=4000),
        )

    def _done_spans(self) -> set[str]:
        return {t.span for (ns, tid), t in self.tasks.items() if tid in self.finished}

    # -- stops ---------------------------------------------------------------------------------

    async def announce_next(self, tasks: list[dict[str, Any]], step: int | None) -> None:
        """The server stopped before ``tasks`` (``interrupt_before``): their superstep and
        ``node.started`` now, through the gate, so the front end pauses at them."""
        for t in tasks:
            node = str(t.get("name") or "")
            if node and node not in SKIP:
                await self.start_node("", step, node, str(t.get("id") or ""), gated=True)

    async def close(self, status: Literal["ok", "interrupted", "cancelled", "error"]) -> None:
        """The remote run is over: close what is still open (innermost first)."""
        why = (
            ErrorInfo(type="Cancelled", message="the run was cancelled")
            if status == "cancelled"
            else None
        )
        for (ns, tid), task in sorted(self.tasks.items(), key=lambda kv: -_depth(kv[0][0])):
            if tid in self.finished:
                continue
            await self._close_calls_of(task, why)
            self.finished.add(tid)
            await self._emit(
                NodeFinished,
                ns,
                span_id=task.span,
                parent_span_id=self.steps.get((ns, -1 if task.step is None else task.step)),
                step=task.step,
                node=task.node,
                task_id=tid,
                status="cancelled" if status in ("cancelled", "error") else "interrupted",
                duration_ms=(time.perf_counter() - task.t0) * 1000,
            )
        for ns, step in sorted(self.steps, key=lambda k: -_depth(k[0])):
            await self._close_step(ns, step, "ok" if status == "ok" else status)
