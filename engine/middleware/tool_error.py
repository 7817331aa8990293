"""``ToolErrorMiddleware``: turn chosen tool exceptions into error ``ToolMessage``s for the model.

``on_error(exc, request)`` is asked about every exception a tool's execution raises (for the
tools named in ``tools``; all tools when None). Content it returns (a string or content blocks)
answers the call as ``ToolMessage(status="error")``; ``None`` lets the exception propagate, so
nothing is disclosed to the model unless the handler chooses to. Interrupts and other graph
control signals (``GraphBubbleUp``) always propagate and never reach the handler.

``aon_error`` is the async handler used on the async path (falling back to ``on_error``); the
sync path only ever calls ``on_error`` and raises ``RuntimeError`` if there is none. This
middleware never retries: put ``ToolRetryMiddleware(on_failure="error")`` inside it for that.

A handled exception is reported as ``middleware.action`` ``tool_error_handled`` (tool, call id
and exception type; not the exception's message, which may be sensitive).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from engine.errors import GraphBubbleUp
from engine.events import MiddlewareAction
from engine.messages import ToolMessage
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware, ToolCallRequest
from engine.tools import BaseTool
from engine.types import Command

__all__ = ["ToolErrorMiddleware"]

ErrorContent: TypeAlias = str | list[Any] | None
OnError: TypeAlias = Callable[[Exception, ToolCallRequest], ErrorContent]
AOnError: TypeAlias = Callable[[Exception, ToolCallRequest], Awaitable[ErrorContent]]
ToolResult: TypeAlias = ToolMessage | Command


class ToolErrorMiddleware(AgentMiddleware):
    """Report selected tool exceptions to the model instead of failing the run.

    Args:
        on_error: ``(exc, request) -> content | None``; content becomes an error ToolMessage,
            None re-raises.
        aon_error: async variant for the async path (defaults to ``on_error``).
        tools: tool names or ``BaseTool``s to watch; None = every tool.
    """

    def __init__(
        self,
        on_error: OnError | None = None,
        *,
        aon_error: AOnError | None = None,
        tools: Sequence[BaseTool | str] | None = None,
    ) -> None:
        if on_error is None and aon_error is None:
            raise ValueError("ToolErrorMiddleware requires `on_error` and/or `aon_error`.")
        self.on_error = on_error
        self.aon_error = aon_error
        self.tool_filter: list[str] | None = (
            None if tools is None else [t if isinstance(t, str) else t.name for t in tools]
        )
        self.tools = []

    def applies_to(self, tool_name: str) -> bool:
        return self.tool_filter is None or tool_name in self.tool_filter

    def _answer(
        self, request: ToolCallRequest, exc: Exception, content: ErrorContent
    ) -> Steps[ToolMessage]:
        """The error ToolMessage for handled content; re-raises ``exc`` when content is None."""
        if content is None:
            raise exc
        name = _tool_name(request)
        call_id = str(request.tool_call.get("id") or "")
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "tool_error_handled",
                "detail": {"tool": name, "tool_call_id": call_id, "error_type": type(exc).__name__},
            },
        )
        return ToolMessage(content=content, tool_call_id=call_id, name=name, status="error")

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return handler(request)
        try:
            return handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            if self.on_error is None:
                raise RuntimeError(
                    "ToolErrorMiddleware has no sync `on_error`; run async "
                    "(ainvoke/astream) or provide `on_error`."
                ) from exc
            return drive_sync(self._answer(request, exc, self.on_error(exc, request)))

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return await handler(request)
        try:
            return await handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            if self.aon_error is not None:
                content = await self.aon_error(exc, request)
            else:
                assert self.on_error is not None
                content = self.on_error(exc, request)
            return await drive_async(self._answer(request, exc, content))


def _tool_name(request: ToolCallRequest) -> str:
    return request.tool.name if request.tool is not None else str(request.tool_call.get("name", ""))
