"""One entry into one ``wrap_model_call`` / ``wrap_tool_call`` layer of a real create_agent, as
our ``wrapper.*`` and ``attempt.*`` events (the layers are instrumented by ``wrappers``).

A layer is a span under its node (or under the layer above it).  Each call it makes to its
``handler`` runs the layers below and, at the bottom, the model or the tool.  For middleware
that retries or falls back (it has ``max_retries`` or fallback ``models``) every handler call is
an ``attempt`` span, as on the embedded engine; for any other layer, calls after the first show
as attempts 2, 3, ... so a home-made retry is still visible.  A failed attempt is closed once
we know whether another follows: by the next handler call (``will_retry``, the delay slept,
the fallback model) or by the layer returning or raising.

The bookkeeping below is shared by the sync and the async layers: each step returns the
events to emit, and the caller emits them the way its thread can (``RunEmitter.emit`` on the
loop, ``emit_sync`` in a worker thread).
"""

from __future__ import annotations

import time
from contextvars import Token
from typing import Any, Literal

from engine.attach.base import ACTIVE, WRAP_SPAN, HandlerBase, task_of
from engine.attach.model_names import model_name
from engine.core.ids import new_span_id
from engine.events import (
    AttemptFinished,
    AttemptStarted,
    ErrorInfo,
    EventBase,
    WrapperFinished,
    WrapperStarted,
)

__all__ = ["Layer", "LayerSpec", "Out"]

Out = list[tuple[type[EventBase], dict[str, Any]]]
"""Events to emit, in order."""

WrapperKind = Literal["wrap_model_call", "wrap_tool_call"]


def _is_interrupt(exc: BaseException) -> bool:
    return any(c.__name__ in ("GraphBubbleUp", "GraphInterrupt") for c in type(exc).__mro__)


def _model_name(request: Any) -> str | None:
    """The name of the chat model a ``ModelRequest`` goes to (its provider's model name)."""
    model = getattr(request, "model", None)
    return None if model is None else model_name(model)


def _backoff(m: Any, exc: BaseException, attempt: int) -> float | None:
    """The delay before the retry a retry middleware (``max_retries`` and ``retry_on``, as
    LangChain's model and tool retry middleware) makes after failed ``attempt``; None when it
    will not retry or when it does not say how it decides."""
    retries, retry_on = getattr(m, "max_retries", None), getattr(m, "retry_on", None)
    if not isinstance(retries, int) or retry_on is None or attempt > retries:
        return None
    if not isinstance(exc, Exception):
        return None
    try:
        from langchain.agents.middleware._retry import calculate_delay, should_retry_exception

        if not should_retry_exception(exc, retry_on):
            return None
        return calculate_delay(
            attempt - 1,
            backoff_factor=float(getattr(m, "backoff_factor", 2.0)),
            initial_delay=float(getattr(m, "initial_delay", 1.0)),
            max_delay=float(getattr(m, "max_delay", 60.0)),
            jitter=False,
        )
    except Exception:  # another LangChain: the retry is reported when it starts
        return None


def retry_budget(m: Any) -> tuple[bool, int | None]:
    """(does ``m`` retry or fall back?, its attempts at most when it says)."""
    retries = getattr(m, "max_retries", None)
    if isinstance(retries, int) and not isinstance(retries, bool):
        return True, retries + 1
    models = getattr(m, "models", None)
    if isinstance(models, list | tuple) and models:
        return True, len(models) + 1
    return False, None


class LayerSpec:
    """What the instrumentation knows of a layer before it runs: its middleware and depth."""

    __slots__ = ("depth", "max_attempts", "middleware", "name", "retries", "wrapper")

    def __init__(self, middleware: Any, wrapper: WrapperKind, depth: int) -> None:
        self.middleware = middleware
        self.name = str(getattr(middleware, "name", None) or type(middleware).__name__)
        self.wrapper: WrapperKind = wrapper
        self.depth = depth
        self.retries, self.max_attempts = retry_budget(middleware)

    def enter(self, request: Any) -> Layer | None:
        """The layer entered for ``request``, or None outside an attached run."""
        cb = ACTIVE.get()
        return None if cb is None else Layer(self, cb, request)


class Layer:
    """The events of one entry into a layer (see the module docstring)."""

    def __init__(self, spec: LayerSpec, cb: HandlerBase, request: Any) -> None:
        self.spec = spec
        self.cb = cb
        meta = _run_metadata()
        self.ns = task_of(meta)[0]
        step = meta.get("langgraph_step")
        self.step = int(step) if isinstance(step, int) else None
        outer = WRAP_SPAN.get()
        node = cb.node_span(meta)
        if outer is not None and (node is None or cb.wrap_owner.get(outer) == node):
            self.parent = outer
            self.owner = cb.wrap_owner.get(outer, node or cb.root_span)
        else:
            self.parent = node or cb.root_span
            self.owner = self.parent
        self.span = new_span_id()
        cb.wrap_owner[self.span] = self.owner
        self.t0 = time.perf_counter()
        self.calls = 0
        self.ids: dict[str, Any] = {}
        if spec.wrapper == "wrap_tool_call":
            call = getattr(request, "tool_call", None) or {}
            self.ids = {"tool_call_id": call.get("id"), "tool": call.get("name")}
        self.attempt_span: str | None = None
        self.attempt_t0 = 0.0
        self.last_model: str | None = None
        self.failed: tuple[str, int, ErrorInfo | None, float, str | None] | None = None
        """A failed attempt not closed yet: (span, attempt, error, failed at, model)."""
        self._tokens: list[Token[str | None]] = []

    def _common(self) -> dict[str, Any]:
        return {"step": self.step, "middleware": self.spec.name, **self.ids}

    # -- the layer ----------------------------------------------------------------------------

    def start(self) -> Out:
        self._tokens.append(WRAP_SPAN.set(self.span))
        return [
            (
                WrapperStarted,
                {
                    "span_id": self.span,
                    "parent_span_id": self.parent,
                    "wrapper": self.spec.wrapper,
                    "depth": self.spec.depth,
                    **self._common(),
                },
            )
        ]

    def finish(self, exc: BaseException | None) -> Out:
        WRAP_SPAN.reset(self._tokens.pop())
        out = self._close_failed(will_retry=False, next_model=None)
        outcome = "ok" if exc is None else "interrupted" if _is_interrupt(exc) else "error"
        out.append(
            (
                WrapperFinished,
                {
                    "span_id": self.span,
                    "parent_span_id": self.parent,
                    "wrapper": self.spec.wrapper,
                    "outcome": outcome,
                    "handler_calls": self.calls,
                    "error": ErrorInfo.from_exception(exc)
                    if exc is not None and outcome == "error"
                    else None,
                    "duration_ms": (time.perf_counter() - self.t0) * 1000,
                    **self._common(),
                },
            )
        )
        self.cb.wrap_owner.pop(self.span, None)
        return out

    # -- each call of its handler -------------------------------------------------------------

    def before_call(self, request: Any) -> Out:
        self.calls += 1
        model = _model_name(request) if self.spec.wrapper == "wrap_model_call" else None
        out = self._close_failed(will_retry=True, next_model=model)
        self.attempt_span = None
        if self.spec.retries or self.calls > 1:
            self.attempt_span = new_span_id()
            self.attempt_t0 = time.perf_counter()
            self.cb.wrap_owner[self.attempt_span] = self.owner
            out.append(
                (
                    AttemptStarted,
                    {
                        "span_id": self.attempt_span,
                        "parent_span_id": self.span,
                        "attempt": self.calls,
                        "max_attempts": self.spec.max_attempts,
                        "model": model,
                        **self._common(),
                    },
                )
            )
        self.last_model = model
        self._tokens.append(WRAP_SPAN.set(self.attempt_span or self.span))
        return out

    def after_call(self, exc: BaseException | None) -> Out:
        WRAP_SPAN.reset(self._tokens.pop())
        span, self.attempt_span = self.attempt_span, None
        if span is None:
            return []
        if exc is not None and not _is_interrupt(exc):
            error = ErrorInfo.from_exception(exc)
            self.failed = (span, self.calls, error, time.perf_counter(), self.last_model)
            backoff = _backoff(self.spec.middleware, exc, self.calls)
            if backoff is None:
                return []
            # the middleware will retry after a backoff: say so now, before it sleeps (the
            # debugger can pause here, at the start of the backoff, as on the engine)
            out = self._close_failed(will_retry=True, next_model=None)
            out[0][1]["delay_s"] = backoff
            return out
        self.cb.wrap_owner.pop(span, None)
        return [
            (
                AttemptFinished,
                {
                    "span_id": span,
                    "parent_span_id": self.span,
                    "attempt": self.calls,
                    "max_attempts": self.spec.max_attempts,
                    "outcome": "ok" if exc is None else "interrupted",
                    "model": self.last_model,
                    "duration_ms": (time.perf_counter() - self.attempt_t0) * 1000,
                    **self._common(),
                },
            )
        ]

    def _close_failed(self, *, will_retry: bool, next_model: str | None) -> Out:
        if self.failed is None:
            return []
        span, attempt, error, failed_at, model = self.failed
        self.failed = None
        self.cb.wrap_owner.pop(span, None)
        switch = will_retry and next_model is not None and next_model != model
        return [
            (
                AttemptFinished,
                {
                    "span_id": span,
                    "parent_span_id": self.span,
                    "attempt": attempt,
                    "max_attempts": self.spec.max_attempts,
                    "outcome": "error",
                    "error": error,
                    "will_retry": will_retry,
                    "delay_s": round(time.perf_counter() - failed_at, 3) if will_retry else None,
                    "fallback_model": next_model if switch else None,
                    "model": model,
                    "duration_ms": (failed_at - self.attempt_t0) * 1000,
                    **self._common(),
                },
            )
        ]

    # -- emitting -------------------------------------------------------------------------------

    async def aemit(self, out: Out) -> None:
        for cls, fields in out:
            await self.cb._emit(cls, self.ns, **fields)

    def emit(self, out: Out) -> None:
        for cls, fields in out:
            self.cb.emit_sync(cls, self.ns, **fields)


def _run_metadata() -> dict[str, Any]:
    """The metadata LangGraph gave the node task running now (empty outside one)."""
    try:
        from langgraph.config import get_config

        return dict(get_config().get("metadata") or {})
    except (ImportError, RuntimeError):
        return {}
