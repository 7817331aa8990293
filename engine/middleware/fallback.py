"""``ModelFallbackMiddleware``: when the model call fails, try the next model.

``ModelFallbackMiddleware(first, *more)``: on any exception from the primary model (the
request's own), the call is repeated with ``request.override(model=m)`` for each fallback in
order; every attempt re-runs the inner wrapper layers. When all fail, the last exception is
raised. Interrupts are never swallowed. Models may be given as objects or ``"provider:model"``
strings (resolved with ``init_chat_model`` when the middleware is built). Before a fallback
runs, provider-specific cache settings it would not accept are removed from its request
(``fallback_sanitize``); the primary's request is left as it was.

Each attempt is reported like a retry attempt (``attempt.started`` / ``attempt.finished``;
attempt n of len(models) + 1), the failed attempt naming ``fallback_model``, and every switch as
``middleware.action`` ``fallback_switch`` with ``{"from", "to", "error"}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.errors import GraphBubbleUp
from engine.events import AttemptFinished, AttemptStarted, ErrorInfo, MiddlewareAction
from engine.middleware.fallback_sanitize import sanitized_for
from engine.middleware.retry_policy import Call, Emit, Steps, drive_async, drive_sync, model_name
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse
from engine.observe.bus import span

__all__ = ["ModelFallbackMiddleware"]


def _resolve(model: Any) -> Any:
    """A ``"provider:model"`` string as its model; a model object as the program gave it (a
    langchain_core model is shown to the wrappers inside as itself, as LangChain shows it,
    and adapted when it is called)."""
    if not isinstance(model, str):
        return model
    from engine.models.resolve import as_chat_model

    return as_chat_model(model)


class ModelFallbackMiddleware(AgentMiddleware):
    """Fall back to other models, in order, when the model call raises."""

    def __init__(self, first_model: Any, *additional_models: Any) -> None:
        models = [first_model, *additional_models]
        if any(m is None for m in models):
            raise ValueError("fallback models must not be None")
        self.models: list[Any] = [_resolve(m) for m in models]
        self.tools = []

    def _steps(self, request: ModelRequest) -> Steps[ModelCallResult]:
        candidates = [request.model, *self.models]
        total = len(candidates)
        for number, model in enumerate(candidates, 1):
            attempt_request = (
                request if number == 1 else sanitized_for(request, model).override(model=model)
            )
            s = span()
            common = {
                "middleware": self.name,
                "attempt": number,
                "max_attempts": total,
                "model": model_name(model),
                "span_id": s.id,
                "parent_span_id": s.parent,
            }
            yield Emit(AttemptStarted, dict(common))
            outcome = yield Call(attempt_request, s)
            assert outcome is not None
            exc = outcome.error
            finished = {**common, "duration_ms": outcome.duration_ms}
            if exc is None:
                yield Emit(AttemptFinished, {**finished, "outcome": "ok"})
                return outcome.value
            error = ErrorInfo.from_exception(exc)
            following = (
                candidates[number]
                if number < total and not isinstance(exc, GraphBubbleUp)
                else None
            )
            if following is None:
                yield Emit(AttemptFinished, {**finished, "outcome": "error", "error": error})
                if not isinstance(exc, GraphBubbleUp):
                    yield Emit(
                        MiddlewareAction,
                        {
                            "middleware": self.name,
                            "action": "fallback_exhausted",
                            "detail": {
                                "models": [model_name(m) for m in candidates],
                                "error": error.model_dump(),
                            },
                        },
                    )
                raise exc
            yield Emit(
                AttemptFinished,
                {
                    **finished,
                    "outcome": "error",
                    "error": error,
                    "will_retry": True,
                    "delay_s": 0.0,
                    "fallback_model": model_name(following),
                },
            )
            yield Emit(
                MiddlewareAction,
                {
                    "middleware": self.name,
                    "action": "fallback_switch",
                    "detail": {
                        "from": model_name(model),
                        "to": model_name(following),
                        "error": error.model_dump(),
                    },
                },
            )
        raise AssertionError("unreachable: the fallback loop always returns or raises")

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        return drive_sync(self._steps(request), handler)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        return await drive_async(self._steps(request), handler)
