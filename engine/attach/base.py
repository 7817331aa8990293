"""Shared state and plumbing of the attach-mode callback handler (see ``callbacks``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler

from engine.bus import RunEmitter
from engine.events import ErrorInfo, EventBase

__all__ = ["HandlerBase", "Open", "PendingAttempt", "task_of"]


@dataclass
class Open:
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
class PendingAttempt:
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
class Parent:
    attempts: dict[str, int] = field(default_factory=dict)
    pending: dict[str, PendingAttempt] = field(default_factory=dict)


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
        self.by_parent: dict[str, Parent] = {}
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
