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

import threading
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler

from engine.bus import RunEmitter
from engine.events import (
    AttemptFinished,
    AttemptStarted,
    ErrorInfo,
    EventBase,
    HookFinished,
    HookStarted,
    ModelRequest,
    ModelResponse,
    ModelToken,
    NodeFinished,
    NodeStarted,
    SuperstepFinished,
    SuperstepStarted,
    ToolFinished,
    ToolStarted,
)
from engine.ids import new_span_id
from engine.serde import to_jsonable

__all__ = ["AttachCallbacks"]

_SKIP_NODES = frozenset({"__start__", "__end__"})
_HOOKS = frozenset({"before_agent", "before_model", "after_model", "after_agent"})


@dataclass
class _Open:
    span: str
    kind: str  # node | model | tool
    name: str
    t0: float
    ns: str
    step: int | None
    task_id: str = ""
    attempt_span: str | None = None
    attempt: int = 1
    hook: tuple[str, str, str] | None = None
    """(span, middleware, hook) when the node is a create_agent middleware hook."""


@dataclass
class _PendingAttempt:
    """A failed attempt whose ``attempt.finished`` waits to learn if a retry follows."""

    span: str
    attempt: int
    kind: str
    name: str
    error: ErrorInfo
    ns: str
    step: int | None
    parent: str
    t0: float


@dataclass
class _Parent:
    attempts: dict[str, int] = field(default_factory=dict)
    pending: dict[str, _PendingAttempt] = field(default_factory=dict)


def _task_of(meta: dict[str, Any]) -> tuple[str, str]:
    """(namespace of the graph the node runs in, task id) from LangGraph's metadata."""
    cp_ns = str(meta.get("langgraph_checkpoint_ns") or "")
    parts = cp_ns.split("|")
    last = parts[-1] if parts else ""
    task_id = last.split(":", 1)[1] if ":" in last else last
    return "|".join(parts[:-1]), task_id


class AttachCallbacks(AsyncCallbackHandler):
    """Translates LangChain callbacks of one attached run into ``RunEmitter`` events."""

    run_inline = True
    raise_error = True  # so a debugger ``stop`` (RunStopped) stops the run

    def __init__(self, emitter: RunEmitter, root_span: str) -> None:
        self.em = emitter
        self.root_span = root_span
        self.parents: dict[UUID, UUID | None] = {}
        self.open: dict[UUID, _Open] = {}
        self.steps: dict[tuple[str, int], str] = {}
        self.by_parent: dict[str, _Parent] = {}
        self.task_spans: dict[tuple[str, str], str] = {}
        """(graph namespace, task id) -> the span of the node running that task."""
        self.task_attempts: dict[tuple[str, str], int] = {}
        """How often each task has started (a node ``RetryPolicy`` reruns it)."""
        self.interrupted: dict[str, list[str]] = {}
        """Per graph namespace, the nodes whose last run stopped at ``interrupt()``."""
        self.lock = threading.Lock()

    # -- plumbing -----------------------------------------------------------------------------

    async def _emit(self, cls: type[EventBase], ns: str, **fields: Any) -> None:
        em = self.em
        child = em.child(ns) if ns != em.ns else em
        if threading.get_ident() == em.loop_thread:
            await child.emit(cls, **fields)
        else:  # a sync node or tool running in a worker thread (its own throwaway loop)
            child.emit_sync(cls, **fields)

    def _span_above(self, run_id: UUID | None) -> str | None:
        seen = 0
        while run_id is not None and seen < 1000:
            op = self.open.get(run_id)
            if op is not None:
                return op.attempt_span or op.span
            run_id = self.parents.get(run_id)
            seen += 1
        return None

    async def superstep_span(self, ns: str, step: int | None) -> str:
        """The span of superstep ``step`` of graph ``ns`` (opened when its first node starts)."""
        key = (ns, -1 if step is None else step)
        span = self.steps.get(key)
        if span is None:
            for (other_ns, other_step), other in list(self.steps.items()):
                if other_ns == ns and other_step < key[1]:  # the previous superstep is over
                    del self.steps[(other_ns, other_step)]
                    await self._emit(
                        SuperstepFinished,
                        ns,
                        span_id=other,
                        parent_span_id=self._graph_span(ns),
                        step=None if other_step < 0 else other_step,
                    )
            span = self.steps[key] = new_span_id()
            await self._emit(
                SuperstepStarted,
                ns,
                span_id=span,
                parent_span_id=self._graph_span(ns),
                step=step,
            )
        return span

    def _graph_span(self, ns: str) -> str:
        """The span a graph's supersteps nest in: the run, or the node a subgraph runs in."""
        if not ns:
            return self.root_span
        parts = ns.split("|")
        last = parts[-1]
        task_id = last.split(":", 1)[1] if ":" in last else last
        return self.task_spans.get(("|".join(parts[:-1]), task_id), self.root_span)

    async def _flush_pending(self, parent: str, kind: str, will_retry: bool) -> None:
        rec = self.by_parent.get(parent)
        pend = rec.pending.pop(kind, None) if rec else None
        if pend is None:
            return
        await self._emit(
            AttemptFinished,
            pend.ns,
            span_id=pend.span,
            parent_span_id=pend.parent,
            step=pend.step,
            middleware="retry",
            attempt=pend.attempt,
            outcome="error",
            error=pend.error,
            will_retry=will_retry,
            model=pend.name if pend.kind == "model" else None,
            tool=pend.name if pend.kind == "tool" else None,
            duration_ms=(time.perf_counter() - pend.t0) * 1000,
        )

    async def _close_pending_under(self, span: str) -> None:
        rec = self.by_parent.pop(span, None)
        if rec is None:
            return
        self.by_parent[span] = rec
        for kind in list(rec.pending):
            await self._flush_pending(span, kind, False)
        self.by_parent.pop(span, None)

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
        ns, task_id = _task_of(meta)
        step = meta.get("langgraph_step")
        step = int(step) if isinstance(step, int) else None
        sstep = await self.superstep_span(ns, step)
        span = new_span_id()
        self.open[run_id] = _Open(span, "node", str(node), time.perf_counter(), ns, step, task_id)
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
        await self._close_pending_under(op.span)
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

    async def _close_subgraph_steps(self, op: _Open) -> None:
        """A node that ran a subgraph is done: so are the subgraph's supersteps."""
        child = f"{op.ns}|{op.name}:{op.task_id}" if op.ns else f"{op.name}:{op.task_id}"
        for (ns, step), span in list(self.steps.items()):
            if ns == child or ns.startswith(child + "|"):
                del self.steps[(ns, step)]
                await self._emit(
                    SuperstepFinished,
                    ns,
                    span_id=span,
                    parent_span_id=self._graph_span(ns),
                    step=None if step < 0 else step,
                )

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, outputs, None)

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        await self._end_node(run_id, None, error)

    # -- attempts (one per model / tool call) -------------------------------------------------

    async def _open_call(
        self, run_id: UUID, parent_run_id: UUID | None, kind: str, name: str, meta: dict[str, Any]
    ) -> tuple[_Open, str]:
        self.parents[run_id] = parent_run_id
        parent = self._span_above(parent_run_id) or self.root_span
        ns, _ = _task_of(meta)
        step = meta.get("langgraph_step")
        step = int(step) if isinstance(step, int) else None
        rec = self.by_parent.setdefault(parent, _Parent())
        retrying = kind in rec.pending
        await self._flush_pending(parent, kind, True)
        attempt = rec.attempts.get(kind, 0) + 1 if retrying else 1
        rec.attempts[kind] = attempt
        attempt_span = new_span_id()
        await self._emit(
            AttemptStarted,
            ns,
            span_id=attempt_span,
            parent_span_id=parent,
            step=step,
            middleware="retry",
            attempt=attempt,
            model=name if kind == "model" else None,
            tool=name if kind == "tool" else None,
        )
        op = _Open(
            new_span_id(), kind, name, time.perf_counter(), ns, step,
            attempt_span=attempt_span, attempt=attempt,
        )  # fmt: skip
        self.open[run_id] = op
        return op, parent

    async def _close_call(
        self, run_id: UUID, error: BaseException | None
    ) -> tuple[_Open, str] | None:
        op = self.open.pop(run_id, None)
        if op is None or op.attempt_span is None:
            return None
        parent = self._span_above(self.parents.get(run_id)) or self.root_span
        return op, parent

    async def _finish_attempt(self, op: _Open, parent: str, error: BaseException | None) -> None:
        assert op.attempt_span is not None
        if error is not None:
            rec = self.by_parent.setdefault(parent, _Parent())
            rec.pending[op.kind] = _PendingAttempt(
                op.attempt_span, op.attempt, op.kind, op.name,
                ErrorInfo.from_exception(error), op.ns, op.step, parent, op.t0,
            )  # fmt: skip
            return
        await self._emit(
            AttemptFinished,
            op.ns,
            span_id=op.attempt_span,
            parent_span_id=parent,
            step=op.step,
            middleware="retry",
            attempt=op.attempt,
            outcome="ok",
            model=op.name if op.kind == "model" else None,
            tool=op.name if op.kind == "tool" else None,
            duration_ms=(time.perf_counter() - op.t0) * 1000,
        )

    # -- models -------------------------------------------------------------------------------

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = metadata or {}
        params = invocation_params or kwargs.get("invocation_params") or {}
        model = str(
            meta.get("ls_model_name")
            or params.get("model")
            or params.get("model_name")
            or kwargs.get("name")
            or (serialized or {}).get("name")
            or "model"
        )
        op, _ = await self._open_call(run_id, parent_run_id, "model", model, meta)
        msgs = messages[0] if messages else []
        tools = [
            str((t.get("function") or t).get("name", "")) if isinstance(t, dict) else str(t)
            for t in params.get("tools") or ()
        ]
        await self._emit(
            ModelRequest,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            model=model,
            messages_count=len(msgs),
            last_messages=[to_jsonable(m, max_str=2000) for m in msgs[-3:]],
            tools=tools,
            streaming=bool(params.get("stream")),
        )

    async def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        await self.on_chat_model_start(
            serialized, [list(prompts)], run_id=run_id, parent_run_id=parent_run_id,
            metadata=metadata, **kwargs,
        )  # fmt: skip

    async def on_llm_new_token(
        self, token: str | list[str | dict[str, Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        op = self.open.get(run_id)
        if op is None or op.kind != "model":
            return
        chunk = kwargs.get("chunk")
        msg = getattr(chunk, "message", None)
        tcc = [to_jsonable(c) for c in getattr(msg, "tool_call_chunks", None) or ()]
        await self._emit(
            ModelToken,
            op.ns,
            parent_span_id=op.span,
            step=op.step,
            model=op.name,
            text=token
            if isinstance(token, str)
            else "".join(t for t in token if isinstance(t, str)),
            tool_call_chunks=tcc,
        )

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        closed = await self._close_call(run_id, None)
        if closed is None:
            return
        op, parent = closed
        message: Any = None
        usage: Any = None
        gens = getattr(response, "generations", None) or []
        if gens and gens[0]:
            gen = gens[0][0]
            msg = getattr(gen, "message", None)
            message = to_jsonable(msg if msg is not None else getattr(gen, "text", None))
            usage = getattr(msg, "usage_metadata", None)
        await self._emit(
            ModelResponse,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            model=op.name,
            message=message,
            usage=to_jsonable(dict(usage)) if usage else None,
            latency_ms=(time.perf_counter() - op.t0) * 1000,
        )
        await self._finish_attempt(op, parent, None)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        closed = await self._close_call(run_id, error)
        if closed is None:
            return
        op, parent = closed
        await self._emit(
            ModelResponse,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            model=op.name,
            error=ErrorInfo.from_exception(error),
            latency_ms=(time.perf_counter() - op.t0) * 1000,
        )
        await self._finish_attempt(op, parent, error)

    # -- tools --------------------------------------------------------------------------------

    async def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = metadata or {}
        name = str(kwargs.get("name") or (serialized or {}).get("name") or "tool")
        op, _ = await self._open_call(run_id, parent_run_id, "tool", name, meta)
        await self._emit(
            ToolStarted,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            tool=name,
            tool_call_id=kwargs.get("tool_call_id"),
            args=to_jsonable(inputs if inputs is not None else input_str, max_str=2000),
        )

    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        closed = await self._close_call(run_id, None)
        if closed is None:
            return
        op, parent = closed
        status = "error" if getattr(output, "status", "success") == "error" else "success"
        await self._emit(
            ToolFinished,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            tool=op.name,
            tool_call_id=getattr(output, "tool_call_id", None),
            status=status,
            result=to_jsonable(output, max_str=4000),
            duration_ms=(time.perf_counter() - op.t0) * 1000,
        )
        await self._finish_attempt(op, parent, None)

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        closed = await self._close_call(run_id, error)
        if closed is None:
            return
        op, parent = closed
        interrupted = type(error).__name__ == "GraphInterrupt"
        await self._emit(
            ToolFinished,
            op.ns,
            span_id=op.span,
            parent_span_id=op.attempt_span,
            step=op.step,
            tool=op.name,
            status="error",
            error=None if interrupted else ErrorInfo.from_exception(error),
            duration_ms=(time.perf_counter() - op.t0) * 1000,
        )
        await self._finish_attempt(op, parent, None if interrupted else error)
