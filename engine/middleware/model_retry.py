"""``ModelRetryMiddleware``: retry failed model calls with exponential backoff.

Wraps the model call (``wrap_model_call``): each attempt re-runs every inner wrapper layer and
the model. Interrupts are never retried; an exception ``retry_on`` does not match is re-raised
at once. Once ``max_retries`` retries are spent, ``on_failure="error"`` re-raises the last
exception and ``"continue"`` answers with an ``AIMessage`` describing the failure (it has no
tool calls, so the agent ends). A failed attempt writes nothing to the state.

Every attempt is reported (``attempt.started`` / ``attempt.finished`` with the delay slept
before the next one; the model call nests inside the attempt's span) and an exhausted retry
budget as ``middleware.action`` ``retry_exhausted``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from engine.messages import AIMessage
from engine.middleware.retry_policy import (
    OnFailure,
    RetryConfig,
    RetryOn,
    RetrySettings,
    Steps,
    attempts_phrase,
    default_retry_on,
    drive_async,
    drive_sync,
    model_name,
    retry_steps,
)
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse

__all__ = ["ModelRetryMiddleware"]


class ModelRetryMiddleware(RetrySettings, AgentMiddleware):
    """Retry the model call on failure.

    Args:
        max_retries: retries after the first call (``>= 0``).
        retry_on: exception types (a type or a tuple) or a predicate ``(exc) -> bool``;
            default: every ``Exception`` unless it is marked not retryable.
        on_failure: ``"continue"`` (an AIMessage reports the failure), ``"error"`` (re-raise)
            or a callable ``(exc) -> str`` giving that AIMessage's content.
        backoff_factor, initial_delay, max_delay: delay before retry k (0-based) is
            ``min(initial_delay * backoff_factor**k, max_delay)`` seconds.
        jitter: add +-25% random jitter to each delay.
    """

    def __init__(
        self,
        *,
        max_retries: int = 2,
        retry_on: RetryOn = default_retry_on,
        on_failure: OnFailure = "continue",
        backoff_factor: float = 2.0,
        initial_delay: float = 1.0,
        max_delay: float = 60.0,
        jitter: bool = True,
    ) -> None:
        self.config = RetryConfig(
            max_retries=max_retries,
            retry_on=retry_on,
            on_failure=on_failure,
            backoff_factor=backoff_factor,
            initial_delay=initial_delay,
            max_delay=max_delay,
            jitter=jitter,
        )
        self.tools = []

    def failure_message(self, exc: Exception, attempts: int) -> AIMessage:
        """The AIMessage that replaces the model's answer when retries are exhausted (it names
        the library's own error when ours stands for one, as LangChain's message does)."""
        shown = getattr(exc, "provider_error", None) or exc
        if callable(self.config.on_failure):
            content = self.config.on_failure(shown)
        else:
            content = (
                f"Model call failed after {attempts_phrase(attempts)} "
                f"with {type(shown).__name__}: {shown}"
            )
        return AIMessage(content=content)

    def _steps(self, request: ModelRequest) -> Steps[ModelCallResult]:
        return retry_steps(
            self.config,
            request,
            middleware=self.name,
            target={"model": model_name(request.model)},
            on_exhausted=lambda exc, n: ModelResponse(result=[self.failure_message(exc, n)]),
        )

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        return drive_sync(self._steps(request), handler)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        return await drive_async(self._steps(request), handler)
