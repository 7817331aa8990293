"""A langchain_core callback handler that turns what a real LangGraph run does into our events.

LangGraph reports every node as a chain run (``metadata["langgraph_node"]``), every model call
as a chat-model run and every tool call as a tool run.  Async handlers are awaited inline by
LangChain, so the debugger's gate (``RunEmitter.emit``) can pause the node or call that is
about to start without blocking the event loop.  Each call a retry middleware makes is its own
chat-model / tool run: we wrap every call in an ``attempt`` span numbered per parent span, and
close a failed attempt only once we know whether another one follows (``will_retry``).

Only imported by ``engine.attach`` (langchain_core is needed by then).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from engine.attach.base import Open, task_of
from engine.attach.calls import CallEvents
from engine.core.ids import new_span_id
from engine.events import (
    ErrorInfo,
    HookFinished,
    HookStarted,
    NodeFinished,
    NodeStarted,
    SuperstepFinished,
    SuperstepStarted,
)
from engine.serde import to_jsonable

__all__ = ["AttachCallbacks", "SyncAttachCallbacks"]

_SKIP_NODES = frozenset({"__start__", "__end__"})
_HOOKS = frozenset({"before_agent", "before_model", "after_model", "after_agent"})


class AttachCallbacks(CallEvents):
    """Translates LangChain callbacks of one attached run into ``RunEmitter`` events."""

    async def superstep_span(self, ns: str, step: int | None) -> str:
        """The span of superstep ``step`` of graph ``ns`` (opened when its first node starts)."""
        key = (ns, -1 if step is None else step)
        span = self.steps.get(key)
        if span is None:
            for other_ns, other_step in list(self.steps):
                if other_ns == ns and other_step < key[1]:  # the previous superstep is over
                    await self.finish_step(ns, other_step)
            span = self.steps[key] = new_span_id()
            await self._emit(
                SuperstepStarted,
                ns,
                span_id=span,
                parent_span_id=self._graph_span(ns),
                step=step,
            )
        return span

    async def finish_step(
        self, ns: str, step: int, status: Literal["ok", "interrupted"] = "ok"
    ) -> None:
        """Close superstep ``step`` of graph ``ns`` (-1: no step number), if it is open."""
        span = self.steps.pop((ns, step), None)
        if span is None:
            return
        await self._emit(
            SuperstepFinished,
            ns,
            span_id=span,
            parent_span_id=self._graph_span(ns),
            step=None if step < 0 else step,
            status=status,
        )

    def _graph_span(self, ns: str) -> str:
        """The span a graph's supersteps nest in: the run, or the node a subgraph runs in."""
        if not ns:
            return self.root_span
        parts = ns.split("|")
        last = parts[-1]
        task_id = last.split(":", 1)[1] if ":" in last else last
        return self.task_spans.get(("|".join(parts[:-1]), task_id), self.root_span)

    # -- nodes --------------------------------------------------------------------------------

    async def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.parents[run_id] = parent_run_id
        meta = metadata or {}
        node = meta.get("langgraph_node")
        name = kwargs.get("name") or (serialized or {}).get("name")
        if not node or node in _SKIP_NODES or name != node:
            return
        if parent_run_id is not None and parent_run_id in self.open:
            return  # a runnable named like its node, inside the node
        ns, task_id = task_of(meta)
        step = meta.get("langgraph_step")
        step = int(step) if isinstance(step, int) else None
        sstep = await self.superstep_span(ns, step)
        span = new_span_id()
        self.open[run_id] = Open(span, "node", str(node), time.perf_counter(), ns, step, task_id)
        self.task_spans[(ns, task_id)] = span
        tries = self.task_attempts[(ns, task_id)] = self.task_attempts.get((ns, task_id), 0) + 1
        self.open[run_id].attempt = tries
        await self._emit(
            NodeStarted,
            ns,
            span_id=span,
            parent_span_id=sstep,
            step=step,
            node=str(node),
            task_id=task_id,
            attempt=tries,
            input_summary=str(to_jsonable(inputs, max_str=200, max_items=5))[:300],
        )
        middleware, _, hook = str(node).rpartition(".")
        if middleware and hook in _HOOKS:  # create_agent names hook nodes "Middleware.hook"
            op = self.open[run_id]
            op.hook = (new_span_id(), middleware, hook)
            await self._emit(
                HookStarted,
                ns,
                span_id=op.hook[0],
                parent_span_id=span,
                step=step,
                middleware=middleware,
                hook=hook,
                node=str(node),
            )

    async def _end_node(self, run_id: UUID, outputs: Any, error: BaseException | None) -> None:
        op = self.open.get(run_id)
        if op is None or op.kind != "node":
            self.parents.pop(run_id, None)
            return
        await self._close_subgraph_steps(op)
        interrupted = error is not None and type(error).__name__ in ("GraphInterrupt", "Interrupt")
        status = "interrupted" if interrupted else "error" if error is not None else "ok"
        if interrupted:
            self.interrupted.setdefault(op.ns, []).append(op.name)
        if op.hook is not None:
            jump = outputs.get("jump_to") if isinstance(outputs, dict) else None
            await self._emit(
                HookFinished,
                op.ns,
                span_id=op.hook[0],
                parent_span_id=op.span,
                step=op.step,
                middleware=op.hook[1],
                hook=op.hook[2],
                node=op.name,
                update=to_jsonable(outputs, max_str=4000),
                jump_to=None if jump is None else str(jump),
                error=ErrorInfo.from_exception(error)
                if error is not None and not interrupted
                else None,
                duration_ms=(time.perf_counter() - op.t0) * 1000,
            )
        writes: list[dict[str, Any]] = []
        if isinstance(outputs, dict):
            writes = [
                {"channel": str(k), "value": to_jsonable(v, max_str=2000, max_items=20)}
                for k, v in outputs.items()
            ]
        try:
            await self._emit(
                NodeFinished,
                op.ns,
                span_id=op.span,
                parent_span_id=self.steps.get((op.ns, -1 if op.step is None else op.step)),
                step=op.step,
                node=op.name,
                task_id=op.task_id,
                attempt=op.attempt,
                status=status,
                writes=writes,
                error=ErrorInfo.from_exception(error, with_traceback=True)
                if error is not None and not interrupted
                else None,
                duration_ms=(time.perf_counter() - op.t0) * 1000,
            )
        finally:
            self.open.pop(run_id, None)

    async def _close_subgraph_steps(self, op: Open) -> None:
        """A node that ran a subgraph is done: so are the subgraph's supersteps."""
        child = f"{op.ns}|{op.name}:{op.task_id}" if op.ns else f"{op.name}:{op.task_id}"
        for ns, step in list(self.steps):
            if ns == child or ns.startswith(child + "|"):
                await self.finish_step(ns, step)

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, outputs, None)

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, None, error)


_EVENTS = (
    "on_chain_start",
    "on_chain_end",
    "on_chain_error",
    "on_chat_model_start",
    "on_llm_start",
    "on_llm_new_token",
    "on_llm_end",
    "on_llm_error",
    "on_tool_start",
    "on_tool_end",
    "on_tool_error",
)


def _complete(coro: Any) -> None:
    """Run a callback coroutine to its end here, in the worker thread that called it.

    A sync run calls them only off the loop thread, where they never wait on anything (their events go out through
    ``emit_sync``, which blocks this thread while the debugger holds the run), so the coroutine
    finishes at its first step: no event loop is needed, and none is made for every callback.
    One that did wait could not be finished here: that is a bug, and it says so."""
    try:
        coro.send(None)
    except StopIteration:
        return
    coro.close()
    raise RuntimeError("an attach callback waited on an event loop in a worker thread")


def _relay(event: str) -> Any:
    def method(self: SyncAttachCallbacks, *args: Any, **kwargs: Any) -> None:
        _complete(getattr(self.inner, event)(*args, **kwargs))

    method.__name__ = event
    return method


class SyncAttachCallbacks(BaseCallbackHandler):
    """``AttachCallbacks`` for a run on LangGraph's sync ``stream``.

    LangChain runs an async handler's callbacks from sync code on a throwaway loop and only logs
    what they raise, so a debugger ``stop`` at a pause would not stop the run.  This sync handler
    runs the same (async) callbacks to completion and lets their exceptions through; on the
    worker thread the run is on, their events reach the studio through ``emit_sync``, which
    blocks that thread, never the app's loop, while the debugger holds the run.
    """

    run_inline = True
    raise_error = True

    def __init__(self, inner: AttachCallbacks) -> None:
        self.inner = inner


for _event in _EVENTS:
    setattr(SyncAttachCallbacks, _event, _relay(_event))


class _QuietStop(logging.Filter):
    """LangChain logs a handler's exception before re-raising it; a debugger ``stop`` is not an
    error of the app, so that line is left out (any other callback error is still logged)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (
            len(args) == 3
            and args[0] in ("AttachCallbacks", "SyncAttachCallbacks")
            and str(args[2]).startswith("RunStopped(")
        )


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietStop())
