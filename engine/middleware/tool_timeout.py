"""``ToolTimeoutMiddleware``: a time limit on tool calls.

    create_agent(model, tools, middleware=[ToolTimeoutMiddleware(30.0, tools=["fetch"])])

A call of a listed tool (every tool when ``tools`` is None) that has not finished after
``timeout`` seconds is abandoned.  ``on_timeout="continue"`` (the default) answers it with an
error ``ToolMessage`` ("Tool 'fetch' did not finish within 30s."), so the model sees the failure
and decides; ``on_timeout="error"`` raises ``ToolTimeoutError`` (a ``TimeoutError``, so an outer
``ToolRetryMiddleware(retry_on=(TimeoutError,))`` can retry it).  Each timeout is reported as
``middleware.action`` ``tool_timeout``.

An async tool is cancelled.  A sync tool in an async run (``ainvoke``/``astream``, the CLI, the
studio) runs on a worker thread, which Python cannot stop: the thread is left to finish on its
own and its result is dropped.  Under a sync ``invoke`` a sync tool runs on the run's own
thread, so the limit can only be enforced for async tools there.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from engine.events import MiddlewareAction
from engine.messages import ToolMessage
from engine.middleware.types import AgentMiddleware, ToolCallRequest
from engine.observe.bus import emit, emit_sync
from engine.tools import BaseTool
from engine.types import Command

__all__ = ["ToolTimeoutError", "ToolTimeoutMiddleware"]

ToolResult = ToolMessage | Command


class ToolTimeoutError(TimeoutError):
    """A tool call did not finish within its time limit."""


class ToolTimeoutMiddleware(AgentMiddleware):
    """Give up on tool calls that take longer than ``timeout`` seconds (see module doc)."""

    def __init__(
        self,
        timeout: float,
        *,
        tools: Sequence[str | BaseTool] | None = None,
        on_timeout: Literal["continue", "error"] = "continue",
    ) -> None:
        super().__init__()
        if not timeout > 0:
            raise ValueError("timeout must be > 0 seconds")
        if on_timeout not in ("continue", "error"):
            raise ValueError(f"on_timeout must be 'continue' or 'error', got {on_timeout!r}")
        self.timeout = float(timeout)
        self.on_timeout = on_timeout
        self._only = (
            None if tools is None else {t.name if isinstance(t, BaseTool) else t for t in tools}
        )
        self.tools = ()

    def applies_to(self, name: str) -> bool:
        return self._only is None or name in self._only

    def _timed_out(self, request: ToolCallRequest) -> tuple[ToolTimeoutError, dict[str, Any]]:
        name = _tool_name(request)
        error = ToolTimeoutError(f"Tool '{name}' did not finish within {self.timeout:g}s.")
        fields = {
            "middleware": self.name,
            "action": "tool_timeout",
            "detail": {
                "tool": name,
                "tool_call_id": request.tool_call.get("id"),
                "timeout_s": self.timeout,
                "on_timeout": self.on_timeout,
            },
        }
        return error, fields

    def _answer(self, request: ToolCallRequest, error: ToolTimeoutError) -> ToolResult:
        if self.on_timeout == "error":
            raise error
        return ToolMessage(
            content=str(error),
            tool_call_id=str(request.tool_call.get("id") or ""),
            name=_tool_name(request),
            status="error",
        )

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return await handler(request)
        try:
            return await asyncio.wait_for(handler(request), self.timeout)
        except TimeoutError as exc:
            if isinstance(exc, ToolTimeoutError):
                raise
            error, fields = self._timed_out(request)
        await emit(MiddlewareAction, **fields)
        return self._answer(request, error)

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        if not self.applies_to(_tool_name(request)):
            return handler(request)
        box: dict[str, Any] = {}
        context = contextvars.copy_context()

        def work() -> None:
            try:
                box["value"] = context.run(handler, request)
            except BaseException as exc:  # handed to the caller below
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"tool-{_tool_name(request)}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            error, fields = self._timed_out(request)
            emit_sync(MiddlewareAction, **fields)
            return self._answer(request, error)
        if "error" in box:
            raise box["error"]
        return box["value"]


def _tool_name(request: ToolCallRequest) -> str:
    return request.tool.name if request.tool is not None else str(request.tool_call.get("name", ""))
