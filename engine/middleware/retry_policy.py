"""Shared machinery of the built-in middleware: the retry policy and a sans-IO step runner.

Every built-in that has both a sync and an async twin writes its logic **once**, as a generator
of *steps*, and lets a thin driver perform them:

- ``Emit(event_cls, fields)`` - publish an event (``emit_sync`` / ``await emit``);
- ``Sleep(seconds)`` - a real pause (``time.sleep`` / ``asyncio.sleep``);
- ``Call(request, span)`` - call the handler (the next wrapper layer, a model, ...) inside
  ``span`` if one is given; the driver sends back an ``Outcome`` (value or exception).

The generator's return value is the driver's result; an exception raised by the generator
propagates to the caller. ``drive_sync`` and ``drive_async`` are the only places where the
two worlds differ.

``RetryConfig`` holds the parameters shared by ``ModelRetryMiddleware`` and
``ToolRetryMiddleware`` (validated with LangChain's error texts) and ``retry_steps`` is the
retry loop both use. Delay before retry ``k`` (0-based) is
``min(initial_delay * backoff_factor**k, max_delay)`` (``backoff_factor=0`` keeps it constant
at ``initial_delay``), then +-25% jitter when ``jitter`` is set, never below 0.  When the
error carries the server's wait hint (``RateLimitError.retry_after``, from ``Retry-After``), that
hint is the delay instead, capped by ``max_delay`` and without jitter.
"""

from __future__ import annotations

import asyncio
import random
import time
import warnings
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from engine.core import foreign
from engine.errors import GraphBubbleUp
from engine.event_base import engine_error_of
from engine.events import AttemptFinished, AttemptStarted, ErrorInfo, EventBase, MiddlewareAction
from engine.models.errors import ChatModelError
from engine.observe.bus import emit, emit_sync, span

__all__ = [
    "Call",
    "Emit",
    "OnFailure",
    "Outcome",
    "RetryConfig",
    "RetryOn",
    "RetrySettings",
    "Sleep",
    "Steps",
    "attempts_phrase",
    "default_retry_on",
    "drive_async",
    "drive_sync",
    "model_name",
    "retry_steps",
]

T = TypeVar("T")

RetryOn: TypeAlias = (
    type[BaseException] | tuple[type[BaseException], ...] | Callable[[Exception], bool]
)
"""Which exceptions are retried: an exception type, a tuple of them, or a predicate."""

OnFailure: TypeAlias = Literal["continue", "error"] | Callable[[Exception], str]
"""What to do once retries are exhausted: ``"error"`` re-raises, ``"continue"`` reports the
failure as a message, a callable returns that message's content."""


def default_retry_on(exc: BaseException) -> bool:
    """The default retry rule: any ``Exception``, unless it says it is permanent
    (``is_retryable`` / ``retryable`` set to False, e.g. an authentication error)."""
    if not isinstance(exc, Exception):
        return False
    for attr in ("is_retryable", "retryable"):
        flag = getattr(exc, attr, None)
        if isinstance(flag, bool):
            return flag
    return True


@dataclass
class Emit:
    event: type[EventBase]
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sleep:
    seconds: float


@dataclass
class Call:
    request: Any
    span: span | None = None


@dataclass
class Outcome:
    value: Any = None
    error: Exception | None = None
    duration_ms: float = 0.0


Step: TypeAlias = Emit | Sleep | Call
Steps: TypeAlias = Generator[Step, Outcome | None, T]

#: The sleeps the drivers use (module attributes so tests can replace them).
sleep_sync: Callable[[float], None] = time.sleep
sleep_async: Callable[[float], Awaitable[None]] = asyncio.sleep


def drive_sync(steps: Steps[T], handler: Callable[[Any], Any] | None = None) -> T:
    """Run ``steps`` from synchronous code."""
    reply: Outcome | None = None
    while True:
        try:
            step = steps.send(reply)
        except StopIteration as stop:
            return stop.value
        reply = None
        if isinstance(step, Emit):
            emit_sync(step.event, **step.fields)
        elif isinstance(step, Sleep):
            if step.seconds > 0:
                sleep_sync(step.seconds)
        else:
            if handler is None:
                raise RuntimeError("these steps call a handler, but none was given")
            t0 = time.perf_counter()
            try:
                if step.span is not None:
                    with step.span:
                        value = handler(step.request)
                else:
                    value = handler(step.request)
            except Exception as exc:
                reply = Outcome(error=exc, duration_ms=(time.perf_counter() - t0) * 1000)
            else:
                reply = Outcome(value=value, duration_ms=(time.perf_counter() - t0) * 1000)


async def drive_async(steps: Steps[T], handler: Callable[[Any], Awaitable[Any]] | None = None) -> T:
    """Run ``steps`` from async code."""
    reply: Outcome | None = None
    while True:
        try:
            step = steps.send(reply)
        except StopIteration as stop:
            return stop.value
        reply = None
        if isinstance(step, Emit):
            await emit(step.event, **step.fields)
        elif isinstance(step, Sleep):
            if step.seconds > 0:
                await sleep_async(step.seconds)
        else:
            if handler is None:
                raise RuntimeError("these steps call a handler, but none was given")
            t0 = time.perf_counter()
            try:
                if step.span is not None:
                    with step.span:
                        value = await handler(step.request)
                else:
                    value = await handler(step.request)
            except Exception as exc:
                reply = Outcome(error=exc, duration_ms=(time.perf_counter() - t0) * 1000)
            else:
                reply = Outcome(value=value, duration_ms=(time.perf_counter() - t0) * 1000)


def model_name(model: Any) -> str | None:
    """A model's display name (``model_name`` attribute, else the string itself; a
    langchain_core model's as our adapter of it names it)."""
    if model is None:
        return None
    adapted = foreign.adapt("chat_model", model)
    if adapted is not None:
        model = adapted
    name = getattr(model, "model_name", None)
    return str(name) if name else str(model)


def _is_exception_type(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


@dataclass
class RetryConfig:
    """Validated retry parameters (shared by model and tool retry)."""

    max_retries: int = 2
    retry_on: RetryOn = default_retry_on
    on_failure: OnFailure = "continue"
    backoff_factor: float = 2.0
    initial_delay: float = 1.0
    max_delay: float = 60.0
    jitter: bool = True

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.initial_delay < 0:
            raise ValueError("initial_delay must be >= 0")
        if self.max_delay < 0:
            raise ValueError("max_delay must be >= 0")
        if self.backoff_factor < 0:
            raise ValueError("backoff_factor must be >= 0")
        rule: Any = self.retry_on
        if _is_exception_type(rule):
            self.retry_on = (rule,)
        elif isinstance(rule, tuple):
            if not rule or not all(_is_exception_type(t) for t in rule):
                raise ValueError(
                    "retry_on must be an exception type, a non-empty tuple of exception types "
                    "or a callable"
                )
        elif not callable(rule):
            raise ValueError(
                "retry_on must be an exception type, a non-empty tuple of exception types "
                "or a callable"
            )
        failure: Any = self.on_failure
        if failure == "raise":  # LangChain's deprecated spellings
            warnings.warn(
                "on_failure='raise' is deprecated; use on_failure='error'",
                DeprecationWarning,
                stacklevel=4,
            )
            self.on_failure = "error"
        elif failure == "return_message":
            warnings.warn(
                "on_failure='return_message' is deprecated; use on_failure='continue'",
                DeprecationWarning,
                stacklevel=4,
            )
            self.on_failure = "continue"
        elif failure not in ("continue", "error") and not callable(failure):
            raise ValueError(
                f"on_failure must be 'continue', 'error' or a callable, got {failure!r}"
            )

    @property
    def max_attempts(self) -> int:
        return self.max_retries + 1

    def should_retry(self, exc: Exception) -> bool:
        rule = self.retry_on  # a tuple of types or a predicate (normalised in __post_init__)
        if isinstance(rule, tuple):
            # the library's exception as LangChain matches it; the engine's error types also
            # match the engine's error standing for it (a ``RateLimitError`` for a provider's)
            if isinstance(exc, rule):
                return True
            ours = engine_error_of(exc)
            return ours is not exc and isinstance(
                ours, tuple(t for t in rule if issubclass(t, ChatModelError))
            )
        return bool(rule(exc))  # type: ignore[call-arg]

    def delay(self, retry_number: int) -> float:
        """Seconds to sleep before retry ``retry_number`` (0 = the first retry)."""
        if self.backoff_factor == 0:
            base = self.initial_delay
        else:
            base = self.initial_delay * self.backoff_factor**retry_number
        base = min(base, self.max_delay)
        if self.jitter and base > 0:
            base += random.uniform(-0.25 * base, 0.25 * base)
        return max(0.0, base)

    def delay_for(self, exc: BaseException, retry_number: int) -> float:
        """The server's ``retry_after`` hint (capped by ``max_delay``) if it gave one, else
        ``delay(retry_number)``."""
        hint = getattr(engine_error_of(exc), "retry_after", None)
        if isinstance(hint, int | float) and not isinstance(hint, bool) and hint >= 0:
            return min(float(hint), self.max_delay)
        return self.delay(retry_number)

    def on_failure_label(self) -> str:
        return self.on_failure if isinstance(self.on_failure, str) else "callable"


class RetrySettings:
    """The retry parameters of a middleware holding a ``RetryConfig`` as ``self.config``,
    readable as attributes (``mw.max_retries``, ``mw.retry_on``, ``mw.on_failure``, ...)."""

    config: RetryConfig

    @property
    def max_retries(self) -> int:
        return self.config.max_retries

    @property
    def retry_on(self) -> RetryOn:
        return self.config.retry_on

    @property
    def on_failure(self) -> OnFailure:
        return self.config.on_failure

    @property
    def backoff_factor(self) -> float:
        return self.config.backoff_factor

    @property
    def initial_delay(self) -> float:
        return self.config.initial_delay

    @property
    def max_delay(self) -> float:
        return self.config.max_delay

    @property
    def jitter(self) -> bool:
        return self.config.jitter


def attempts_phrase(n: int) -> str:
    """``"1 attempt"`` / ``"3 attempts"``."""
    return f"{n} attempt" if n == 1 else f"{n} attempts"


def _failed(exc: BaseException) -> ErrorInfo:
    return ErrorInfo.from_exception(exc)


def retry_steps(
    cfg: RetryConfig,
    request: Any,
    *,
    middleware: str,
    target: dict[str, Any],
    on_exhausted: Callable[[Exception, int], T],
) -> Steps[T]:
    """The retry loop: call, and on a retryable error sleep and call again.

    ``target`` names what is called (``model=...`` or ``tool=..., tool_call_id=...``) for the
    events. Control-flow exceptions (interrupts) and exceptions ``retry_on`` does not match are
    re-raised at once. When retries are exhausted ``on_failure="error"`` re-raises, otherwise
    the result is ``on_exhausted(exc, attempts_made)``.
    """
    total = cfg.max_attempts
    for attempt in range(1, total + 1):
        s = span()
        ids = {"span_id": s.id, "parent_span_id": s.parent}
        common = {"middleware": middleware, "attempt": attempt, "max_attempts": total, **target}
        yield Emit(AttemptStarted, {**common, **ids})
        outcome = yield Call(request, s)
        assert outcome is not None
        finished = {**common, **ids, "duration_ms": outcome.duration_ms}
        exc = outcome.error
        if exc is None:
            yield Emit(AttemptFinished, {**finished, "outcome": "ok"})
            return outcome.value
        if isinstance(exc, GraphBubbleUp):
            yield Emit(AttemptFinished, {**finished, "outcome": "interrupted"})
            raise exc
        if not cfg.should_retry(exc):
            yield Emit(AttemptFinished, {**finished, "outcome": "error", "error": _failed(exc)})
            raise exc
        if attempt < total:
            delay = cfg.delay_for(exc, attempt - 1)
            yield Emit(
                AttemptFinished,
                {
                    **finished,
                    "outcome": "error",
                    "error": _failed(exc),
                    "will_retry": True,
                    "delay_s": delay,
                },
            )
            yield Sleep(delay)
            continue
        yield Emit(AttemptFinished, {**finished, "outcome": "error", "error": _failed(exc)})
        yield Emit(
            MiddlewareAction,
            {
                "middleware": middleware,
                "action": "retry_exhausted",
                "detail": {
                    **target,
                    "attempts": attempt,
                    "error": _failed(exc).model_dump(),
                    "on_failure": cfg.on_failure_label(),
                },
            },
        )
        if cfg.on_failure == "error":
            raise exc
        return on_exhausted(exc, attempt)
    raise AssertionError("unreachable: the retry loop always returns or raises")
