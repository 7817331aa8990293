"""ToolErrorMiddleware: handled errors become error ToolMessages; others and interrupts propagate."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from engine.errors import GraphInterrupt
from engine.messages import ToolMessage
from engine.middleware import ToolErrorMiddleware
from engine.middleware.types import ToolCallRequest
from tests.engine.middleware.helpers import actions, captured_events, tool_request


def raising(exc: BaseException) -> Callable[[ToolCallRequest], ToolMessage]:
    def handler(_req: ToolCallRequest) -> ToolMessage:
        raise exc

    return handler


def only_timeouts(exc: Exception, req: ToolCallRequest) -> str | None:
    if isinstance(exc, TimeoutError):
        return f"{req.tool_call['name']} timed out; try a smaller query"
    return None


def test_needs_a_handler() -> None:
    with pytest.raises(ValueError, match="on_error"):
        ToolErrorMiddleware()


def test_handled_error_becomes_error_message_and_event() -> None:
    mw = ToolErrorMiddleware(only_timeouts)
    with captured_events() as events:
        msg = mw.wrap_tool_call(
            tool_request("search", call_id="c9"), raising(TimeoutError("db 10.0.0.1 slow"))
        )
    assert isinstance(msg, ToolMessage)
    assert (msg.status, msg.name, msg.tool_call_id) == ("error", "search", "c9")
    assert msg.content == "search timed out; try a smaller query"
    (ev,) = actions(events, "tool_error_handled")
    assert ev.detail == {"tool": "search", "tool_call_id": "c9", "error_type": "TimeoutError"}
    assert "10.0.0.1" not in str(ev.model_dump())


def test_unhandled_error_and_interrupts_propagate() -> None:
    mw = ToolErrorMiddleware(only_timeouts)
    with pytest.raises(KeyError):
        mw.wrap_tool_call(tool_request(), raising(KeyError("x")))
    seen: list[Exception] = []
    mw2 = ToolErrorMiddleware(lambda exc, _r: seen.append(exc) or "handled")
    with pytest.raises(GraphInterrupt):
        mw2.wrap_tool_call(tool_request(), raising(GraphInterrupt(())))
    assert seen == []


def test_tools_filter() -> None:
    mw = ToolErrorMiddleware(lambda _e, _r: "handled", tools=["fetch"])
    with pytest.raises(ValueError):
        mw.wrap_tool_call(tool_request("other"), raising(ValueError("x")))
    out = mw.wrap_tool_call(tool_request("fetch"), raising(ValueError("x")))
    assert isinstance(out, ToolMessage) and out.content == "handled"


def test_async_only_handler() -> None:
    async def aon_error(exc: Exception, _req: ToolCallRequest) -> str:
        return f"async saw {type(exc).__name__}"

    async def failing(_req: ToolCallRequest) -> ToolMessage:
        raise RuntimeError("boom")

    mw = ToolErrorMiddleware(aon_error=aon_error)
    out = asyncio.run(mw.awrap_tool_call(tool_request(), failing))
    assert isinstance(out, ToolMessage) and out.content == "async saw RuntimeError"
    with pytest.raises(RuntimeError, match="no sync `on_error`"):
        mw.wrap_tool_call(tool_request(), raising(RuntimeError("boom")))
