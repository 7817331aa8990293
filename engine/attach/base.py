"""Shared state and plumbing of the attach-mode callback handler (see ``callbacks``)."""

from __future__ import annotations

import threading
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler

from engine.events import EventBase
from engine.observe.bus import RunEmitter

__all__ = ["ACTIVE", "WRAP_SPAN", "HandlerBase", "Open", "task_of"]

ACTIVE: ContextVar[HandlerBase | None] = ContextVar("stepwise_attach_handler", default=None)
"""The handler of the attached run the current code belongs to (LangGraph copies the context
into every task it starts, so the instrumented middleware layers find their run here)."""

WRAP_SPAN: ContextVar[str | None] = ContextVar("stepwise_attach_wrap_span", default=None)
"""The innermost ``wrap_model_call`` / ``wrap_tool_call`` layer (or its attempt) running: the
model and tool calls made inside it nest there instead of directly under their node."""


@dataclass
class Open:
    span: str
    kind: str  # node | model | tool
    name: str
    t0: float
    ns: str
    step: int | None
    task_id: str = ""
    attempt: int = 1
    parent: str = ""
    """The span a call nests in (a node's parent is its superstep, kept in ``steps``)."""
    hook: tuple[str, str, str] | None = None
    """(span, middleware, hook) when the node is a create_agent middleware hook."""


def task_of(meta: dict[str, Any]) -> tuple[str, str]:
    """(namespace of the graph the node runs in, task id) from LangGraph's metadata."""
    cp_ns = str(meta.get("langgraph_checkpoint_ns") or "")
    parts = cp_ns.split("|")
    last = parts[-1] if parts else ""
    task_id = last.split(":", 1)[1] if ":" in last else last
    return "|".join(parts[:-1]), task_id


class HandlerBase(AsyncCallbackHandler):
    """The handler's state: open runs, their parents, open supersteps, pending attempts."""

    run_inline = True
    raise_error = True  # so a debugger ``stop`` (RunStopped) stops the run

    def __init__(self, emitter: RunEmitter, root_span: str) -> None:
        self.em = emitter
        self.root_span = root_span
        self.parents: dict[UUID, UUID | None] = {}
        self.open: dict[UUID, Open] = {}
        self.steps: dict[tuple[str, int], str] = {}
        self.task_spans: dict[tuple[str, str], str] = {}
        """(graph namespace, task id) -> the span of the node running that task."""
        self.task_attempts: dict[tuple[str, str], int] = {}
        """How often each task has started (a node ``RetryPolicy`` reruns it)."""
        self.interrupted: dict[str, list[str]] = {}
        """Per graph namespace, the nodes whose last run stopped at ``interrupt()``."""
        self.wrap_owner: dict[str, str] = {}
        """Wrapper / attempt span -> the span of the node whose middleware opened it."""

    # -- plumbing -----------------------------------------------------------------------------

    async def _emit(self, cls: type[EventBase], ns: str, **fields: Any) -> EventBase | None:
        em = self.em
        child = em.child(ns) if ns != em.ns else em
        if threading.get_ident() == em.loop_thread:
            return await child.emit(cls, **fields)
        # a sync node or tool running in a worker thread (its own throwaway loop)
        return child.emit_sync(cls, **fields)

    def emit_sync(self, cls: type[EventBase], ns: str, **fields: Any) -> None:
        """``_emit`` from synchronous code (a sync middleware layer)."""
        em = self.em
        (em.child(ns) if ns != em.ns else em).emit_sync(cls, **fields)

    def _open_above(self, run_id: UUID | None) -> Open | None:
        """The nearest node or call that is still open, walking up LangChain's run tree."""
        seen = 0
        while run_id is not None and seen < 1000:
            op = self.open.get(run_id)
            if op is not None:
                return op
            run_id = self.parents.get(run_id)
            seen += 1
        return None

    def parent_span(self, run_id: UUID | None) -> str:
        """The span a call starting under LangChain run ``run_id`` nests in: the nearest open
        call, else the middleware layer running in its node, else its node, else the run."""
        op = self._open_above(run_id)
        wrap = WRAP_SPAN.get()
        if wrap is not None and (op is None or self.wrap_owner.get(wrap) == op.span):
            return wrap
        return op.span if op is not None else self.root_span

    def node_span(self, meta: dict[str, Any]) -> str | None:
        """The span of the node task LangGraph's run metadata ``meta`` belongs to."""
        return self.task_spans.get(task_of(meta))
