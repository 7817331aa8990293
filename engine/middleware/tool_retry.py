"""``ToolRetryMiddleware``: retry failed tool calls with exponential backoff.

Wraps each tool call (``wrap_tool_call``) of the tools named in ``tools`` (all tools when
None). Same parameters and semantics as ``ModelRetryMiddleware``; once retries are exhausted
``on_failure="continue"`` answers the call with an error ``ToolMessage``
("Tool '{name}' failed after {n} attempt(s) with {ExcType}: {msg}. Please try again."), so the
model sees the failure and decides what to do. A failed attempt writes nothing to the state.

Every attempt is reported (``attempt.started`` / ``attempt.finished`` carrying the tool name,
the call id and the delay before the next try; the tool call nests inside the attempt's span),
and an exhausted retry budget as ``middleware.action`` ``retry_exhausted``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from engine.messages import ToolMessage
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
    retry_steps,
)
from engine.middleware.types import AgentMiddleware, ToolCallRequest
from engine.tools import BaseTool
from engine.types import Command

__all__ = ["ToolRetryMiddleware"]

ToolResult = ToolMessage | Command


class ToolRetryMiddleware(RetrySettings, AgentMiddleware):
    """Retry tool calls on failure.

    Args:
        max_retries: retries after the first call (``>= 0``).
        tools: the tools (names or ``BaseTool``s) to retry; None retries every tool.
        retry_on: exception types (a type or a tuple) or a predicate ``(exc) -> bool``;
            default: every ``Exception`` unless it is marked not retryable.
        on_failure: ``"continue"`` (an error ToolMessage reports the failure), ``"error"``
            (re-raise) or a callable ``(exc) -> str`` giving that ToolMessage's content.
        backoff_factor, initial_delay, max_delay, jitter: as in ``ModelRetryMiddleware``.
    """

    def __init__(
        self,
        *,
        max_retries: int = 2,
        tools: Sequence[BaseTool | str] | None = None,
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
        if tools is not None:
            for t in tools:
                if not isinstance(t, str | BaseTool):
                    raise ValueError(f"tools must hold tool names or BaseTool instances, got {t!r}")
        self.tool_filter: list[str] | None = (
            None if tools is None else [t if isinstance(t, str) else t.name for t in tools]
        )
        self.tools = []  # this middleware registers no tools of its own

    def applies_to(self, tool_name: str) -> bool:
        return self.tool_filter is None or tool_name in self.tool_filter

    def failure_message(
        self, request: ToolCallRequest, exc: Exception, attempts: int
    ) -> ToolMessage:
        """The error ToolMessage that answers the call when retries are exhausted."""
        name = _tool_name(request)
        if callable(self.config.on_failure):
            content = self.config.on_failure(exc)
        else:
            content = (
                f"Tool '{name}' failed after {attempts_phrase(attempts)} "
                f"with {type(exc).__name__}: {exc}. Please try again."
            )
        return ToolMessage(
            content=content,
            tool_call_id=request.tool_call.get("id") or "",
            name=name,
            status="error",
        )

    def _steps(self, request: ToolCallRequest) -> Steps[ToolResult]:
        return retry_steps(
            self.config,
            request,
            middleware=self.name,
            target={"tool": _tool_name(request), "tool_call_id": request.tool_call.get("id")},
            on_exhausted=lambda exc, n: self.failure_message(request, exc, n),
        )

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return handler(request)
        return drive_sync(self._steps(request), handler)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return await handler(request)
        return await drive_async(self._steps(request), handler)


def _tool_name(request: ToolCallRequest) -> str:
    return request.tool.name if request.tool is not None else str(request.tool_call.get("name", ""))
