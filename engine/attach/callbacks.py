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

import asyncio
import logging
import threading
import time
from typing import Any, Literal
from uuid import UUID

from engine.attach.abort import StepwiseAbort
from engine.attach.base import Interrupted, Open, either, interrupt_ids_of, task_of
from engine.attach.calls import CallEvents
from engine.attach.node_writes import node_writes
from engine.attach.routes import command_targets
from engine.attach.summary import summary
from engine.core.ids import new_span_id
from engine.errors import RunStopped
from engine.events import (
    ErrorInfo,
    HookFinished,
    HookStarted,
    NodeFinished,
    NodeStarted,
    PlannedTask,
    Route,
    SuperstepFinished,
    SuperstepStarted,
)
from engine.serde import to_jsonable

__all__ = ["AttachCallbacks", "handoff_of"]

_SKIP_NODES = frozenset({"__start__", "__end__"})
_HOOKS = frozenset({"before_agent", "before_model", "after_model", "after_agent"})


def handoff_of(error: BaseException | None) -> Any:
    """The ``Command`` a ``ParentCommand`` carries to the parent graph (None for any other)."""
    if error is None or type(error).__name__ != "ParentCommand":
        return None
    return error.args[0] if error.args else None


class AttachCallbacks(CallEvents):
    """Translates LangChain callbacks of one attached run into ``RunEmitter`` events."""

    async def superstep_span(
        self, ns: str, step: int | None, tasks: list[PlannedTask] | None = None
    ) -> str:
        """The span of superstep ``step`` of graph ``ns`` (opened when its first node starts,
        or at its checkpoint when no node ran: the input applied, cache hits)."""
        key = (ns, -1 if step is None else step)
        span = self.steps.get(key)
        if span is not None:
            return span
        if threading.get_ident() == self.em.loop_thread:
            return await self._open_step(ns, step, key, tasks, shown_first=False)
        # two nodes starting at once on worker threads: one opens the superstep, and the
        # other's start waits until its start is out (the coroutine never suspends off the
        # loop: ``either``)
        with self._opening:
            span = self.steps.get(key)
            if span is None:
                span = await self._open_step(ns, step, key, tasks, shown_first=True)
        return span

    async def _open_step(
        self,
        ns: str,
        step: int | None,
        key: tuple[str, int],
        tasks: list[PlannedTask] | None,
        *,
        shown_first: bool,
    ) -> str:
        """Open superstep ``key`` (closing the graph's previous one).  ``shown_first``: the
        span is known to others only once its start is out (off the loop, under
        ``_opening``); on the loop it is known at once, as a coroutine may wait for the
        debugger in between."""
        for other_ns, other_step in list(self.steps):
            if other_ns == ns and other_step < key[1]:  # the previous superstep is over
                await self.finish_step(ns, other_step)
        span = new_span_id()
        if not shown_first:
            self.steps[key] = span
        self.step_t0[key] = time.perf_counter()
        await self._emit(
            SuperstepStarted,
            ns,
            span_id=span,
            parent_span_id=self._graph_span(ns),
            step=step,
            tasks=list(tasks) if tasks is not None else self.planned_for(ns, step),
        )
        self.steps[key] = span
        return span

    def planned_for(self, ns: str, step: int | None) -> list[PlannedTask]:
        """The tasks the translator read from the checkpoint before ``step`` of graph ``ns``."""
        planned = self.planned_tasks
        return list(planned(ns)) if planned is not None else []

    async def finish_step(
        self,
        ns: str,
        step: int,
        status: Literal["ok", "error", "interrupted", "cancelled"] = "ok",
    ) -> None:
        """Close superstep ``step`` of graph ``ns`` (-1: no step number), if it is open; once
        its last node has reported its end when one has not yet (LangGraph may stream a
        subgraph's step before the callback of its node's end)."""
        if self._running_in(ns, step):
            self.closing[(ns, step)] = status
            return
        self.closing.pop((ns, step), None)
        span = self.steps.pop((ns, step), None)
        t0 = self.step_t0.pop((ns, step), None)
        if span is None:
            return
        await self._emit(
            SuperstepFinished,
            ns,
            span_id=span,
            parent_span_id=self._graph_span(ns),
            step=None if step < 0 else step,
            status=status,
            duration_ms=0.0 if t0 is None else (time.perf_counter() - t0) * 1000,
        )

    async def cancel_open(self) -> None:
        """The run was cancelled with nodes still running (a stop that could wait no longer for
        a hung node): close them, then their supersteps, as cancelled, as the engine does."""
        for run_id, op in list(self.open.items()):
            if op.kind == "node":
                await self._end_node(run_id, None, asyncio.CancelledError())
        for ns, step in sorted(self.steps, key=lambda k: -len(k[0])):  # inner graphs first
            await self.finish_step(ns, step, "cancelled")

    async def fail_open(self) -> None:
        """The run failed: the supersteps still open (the failed node's) end as failed, as the
        engine's do, instead of staying open after the run's end."""
        for ns, step in sorted(self.steps, key=lambda k: -len(k[0])):  # inner graphs first
            await self.finish_step(ns, step, "error")

    def _running_in(self, ns: str, step: int) -> bool:
        return any(
            op.kind == "node" and op.ns == ns and (-1 if op.step is None else op.step) == step
            for op in list(self.open.values())
        )

    async def cached_node(self, ns: str, step: int | None, node: str) -> None:
        """A node whose writes LangGraph served from its cache (it did not run): its span, as
        the engine reports one, with ``cached`` set."""
        parent = await self.superstep_span(ns, step)
        span = new_span_id()
        ids = {"span_id": span, "parent_span_id": parent, "step": step, "node": node}
        await self._emit(NodeStarted, ns, task_id="", **ids)
        await self._emit(NodeFinished, ns, task_id="", status="ok", cached=True, **ids)

    def _graph_span(self, ns: str) -> str:
        """The span a graph's supersteps nest in: the run, or the node a subgraph runs in."""
        if not ns:
            return self.root_span
        parts = ns.split("|")
        last = parts[-1]
        task_id = last.split(":", 1)[1] if ":" in last else last
        return self.task_spans.get(("|".join(parts[:-1]), task_id), self.root_span)

    # -- nodes --------------------------------------------------------------------------------

    @either
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
        ns, task_id = task_of(meta)
        above = self.open.get(parent_run_id) if parent_run_id is not None else None
        if above is not None and (above.ns, above.task_id) == (ns, task_id):
            return  # a runnable named like its node, inside the node (the same task)
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
            input_summary=summary(inputs, 300, max_str=200, max_items=5),
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
        interrupted = error is not None and type(error).__name__ in ("GraphInterrupt", "Interrupt")
        await self._close_subgraph_steps(op, "interrupted" if interrupted else "ok")
        status: Literal["ok", "error", "interrupted", "cancelled"] = (
            "interrupted" if interrupted else "error" if error is not None else "ok"
        )
        if interrupted:
            ids = interrupt_ids_of(error) if error is not None else []
            self.interrupted.setdefault(op.ns, []).append(
                Interrupted(op.name, op.span, op.task_id, ids)
            )
        if isinstance(error, StepwiseAbort):  # our stop or our failure: never the app's error
            stopped = isinstance(error.cause, RunStopped)
            status = "cancelled" if stopped else "error"
            error = None if stopped else error.cause
        elif isinstance(error, asyncio.CancelledError):  # a stop that could not wait any longer
            status, error = "cancelled", None
        elif handoff_of(error) is not None:  # Command(graph=PARENT): a handoff, not a failure
            await self._handoff(op, handoff_of(error))
            status, error = "ok", None
        elif error is None and outputs is not None and not isinstance(outputs, dict):
            goto = command_targets(outputs)
            if goto is not None:
                self.commands[(op.ns, op.name)] = goto
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
                outcome="interrupted" if interrupted else "ok" if error is None else "error",
                error=ErrorInfo.from_exception(error)
                if error is not None and not interrupted
                else None,
                duration_ms=(time.perf_counter() - op.t0) * 1000,
            )
        writes = node_writes(outputs)
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
        key = (op.ns, -1 if op.step is None else op.step)
        if key in self.closing:
            await self.finish_step(*key, status=self.closing[key])  # type: ignore[arg-type]

    async def _handoff(self, op: Open, command: Any) -> None:
        """The node handed off with ``Command(goto=..., graph=Command.PARENT)``.  LangGraph
        bubbles the command up to the graph it names; in the node of that graph which ran the
        handing-off subgraph (or agent) it becomes a route, drawn once, from that node."""
        own = f"{op.ns}|{op.name}:{op.task_id}" if op.ns else f"{op.name}:{op.task_id}"
        if str(getattr(command, "graph", "")) != own:
            return  # still on its way up
        goto = getattr(command, "goto", None) or ()
        targets = [goto] if isinstance(goto, str) else list(goto)
        names = [str(getattr(t, "node", t)) for t in targets]
        self.routed.add((op.ns, op.name))
        await self._emit(
            Route,
            op.ns,
            parent_span_id=op.span,
            step=op.step,
            from_node=op.name,
            to=names,
            reason="command",
            detail="handoff (Command.PARENT)",
        )

    async def _close_subgraph_steps(
        self, op: Open, status: Literal["ok", "interrupted"] = "ok"
    ) -> None:
        """A node that ran a subgraph is done: so are the subgraph's supersteps (interrupted
        with it when the node waits on the subgraph's ``interrupt()``)."""
        child = f"{op.ns}|{op.name}:{op.task_id}" if op.ns else f"{op.name}:{op.task_id}"
        for ns, step in list(self.steps):
            if ns == child or ns.startswith(child + "|"):
                await self.finish_step(ns, step, status)

    @either
    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, outputs, None)

    @either
    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, None, error)


class _QuietStop(logging.Filter):
    """LangChain logs a handler's exception before re-raising it; a debugger ``stop`` is not an
    error of the app, and a failure of ours is logged once by ``abort_for``, so those lines are
    left out (any other callback error is still logged)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (
            len(args) == 3
            and args[0] == "AttachCallbacks"
            and str(args[2]).startswith(("RunStopped(", "StepwiseAbort("))
        )


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietStop())
