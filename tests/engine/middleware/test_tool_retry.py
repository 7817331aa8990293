"""ToolRetryMiddleware: retries, the tools filter, failure messages, events, sync and async."""

from __future__ import annotations

import pytest

from engine.errors import GraphInterrupt
from engine.messages import ToolMessage
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.tools import tool
from engine.types import Command
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    captured_events,
    of_kind,
    tool_answer,
    tool_request,
)

FAST = {"initial_delay": 0.001, "jitter": False}


@tool
def create_file(path: str) -> str:
    """Create a file."""
    return f"created {path}"


def test_validation() -> None:
    with pytest.raises(ValueError, match=r"^max_retries must be >= 0$"):
        ToolRetryMiddleware(max_retries=-3)
    with pytest.raises(ValueError, match=r"^max_delay must be >= 0$"):
        ToolRetryMiddleware(max_delay=-3)
    with pytest.raises(ValueError, match="tool names or BaseTool"):
        ToolRetryMiddleware(tools=[42])  # type: ignore[list-item]


def test_seed_000_disk_full_once_then_created() -> None:
    mw = ToolRetryMiddleware(max_retries=1, retry_on=(IOError,), **FAST)
    handler = Flaky([OSError("Disk full")], tool_answer("created login.tsx"))
    req = tool_request(args={"path": "login.tsx"}, call_id="c-login")
    with captured_events() as events:
        result = mw.wrap_tool_call(req, handler)
    assert isinstance(result, ToolMessage) and result.content == "created login.tsx"
    assert handler.calls == 2
    started = of_kind(events, "attempt.started")
    assert [(e.attempt, e.max_attempts, e.tool, e.tool_call_id) for e in started] == [
        (1, 2, "create_file", "c-login"),
        (2, 2, "create_file", "c-login"),
    ]
    first, second = of_kind(events, "attempt.finished")
    assert (first.outcome, first.error.type, first.error.message) == (
        "error",
        "OSError",
        "Disk full",
    )
    assert (first.will_retry, first.delay_s, first.tool) == (True, 0.001, "create_file")
    assert second.outcome == "ok"
    assert handler.spans == [s.span_id for s in started]


def test_exhausted_continue_returns_an_error_tool_message() -> None:
    mw = ToolRetryMiddleware(max_retries=2, **FAST)
    req = tool_request(call_id="c9")
    with captured_events() as events:
        result = mw.wrap_tool_call(req, Flaky([OSError("Disk full")] * 3, tool_answer()))
    assert isinstance(result, ToolMessage)
    assert result.content == (
        "Tool 'create_file' failed after 3 attempts with OSError: Disk full. Please try again."
    )
    assert (result.status, result.tool_call_id, result.name) == ("error", "c9", "create_file")
    (exhausted,) = actions(events, "retry_exhausted")
    assert exhausted.detail["tool"] == "create_file" and exhausted.detail["attempts"] == 3


def test_singular_attempt_and_callable_on_failure() -> None:
    one = ToolRetryMiddleware(max_retries=0)
    msg = one.wrap_tool_call(tool_request(), Flaky([KeyError("k")], tool_answer()))
    assert isinstance(msg, ToolMessage)
    assert (
        msg.content
        == "Tool 'create_file' failed after 1 attempt with KeyError: 'k'. Please try again."
    )
    custom = ToolRetryMiddleware(max_retries=0, on_failure=lambda e: "database unavailable")
    msg = custom.wrap_tool_call(tool_request(), Flaky([KeyError("k")], tool_answer()))
    assert isinstance(msg, ToolMessage) and (msg.content, msg.status) == (
        "database unavailable",
        "error",
    )


def test_exhausted_error_reraises() -> None:
    mw = ToolRetryMiddleware(max_retries=1, on_failure="error", **FAST)
    with pytest.raises(OSError, match="Disk full"):
        mw.wrap_tool_call(tool_request(), Flaky([OSError("Disk full")] * 2, tool_answer()))


def test_non_matching_and_interrupt_are_not_retried() -> None:
    mw = ToolRetryMiddleware(max_retries=3, retry_on=(IOError,), **FAST)
    h = Flaky([ValueError("bad args")], tool_answer())
    with pytest.raises(ValueError):
        mw.wrap_tool_call(tool_request(), h)
    assert h.calls == 1
    h = Flaky([GraphInterrupt(())], tool_answer())
    with pytest.raises(GraphInterrupt):
        mw.wrap_tool_call(tool_request(), h)
    assert h.calls == 1


def test_tools_filter_by_name_and_by_tool() -> None:
    for tools in (["create_file"], [create_file]):
        mw = ToolRetryMiddleware(tools=tools, max_retries=1, **FAST)
        assert mw.tool_filter == ["create_file"]
        h = Flaky([OSError("x")], tool_answer("ok"))
        assert isinstance(mw.wrap_tool_call(tool_request("create_file"), h), ToolMessage)
        assert h.calls == 2
        other = Flaky([OSError("x")], tool_answer())
        with captured_events() as events, pytest.raises(OSError):
            mw.wrap_tool_call(tool_request("delete_file"), other)
        assert other.calls == 1 and not events  # not wrapped at all


def test_the_tool_object_name_wins_over_the_call_name() -> None:
    mw = ToolRetryMiddleware(tools=["create_file"], max_retries=0)
    msg = mw.wrap_tool_call(
        tool_request("alias", tool=create_file), Flaky([OSError("x")], tool_answer())
    )
    assert isinstance(msg, ToolMessage) and msg.content.startswith("Tool 'create_file' failed")


def test_a_command_result_passes_through() -> None:
    mw = ToolRetryMiddleware(**FAST)
    cmd = Command(update={"todos": []})
    assert mw.wrap_tool_call(tool_request(), Flaky([OSError()], lambda _r: cmd)) is cmd


async def test_async_retry_and_failure() -> None:
    mw = ToolRetryMiddleware(max_retries=1, retry_on=(IOError,), **FAST)
    h = Flaky([OSError("Disk full")], tool_answer("created"))
    with captured_events() as events:
        result = await mw.awrap_tool_call(tool_request(), h.acall)
    assert isinstance(result, ToolMessage) and result.content == "created"
    assert [e.outcome for e in of_kind(events, "attempt.finished")] == ["error", "ok"]
    failed = await mw.awrap_tool_call(
        tool_request(), Flaky([OSError("Disk full")] * 2, tool_answer()).acall
    )
    assert isinstance(failed, ToolMessage) and failed.status == "error"
    unfiltered = ToolRetryMiddleware(tools=["x"])
    h = Flaky([], tool_answer("direct"))
    direct = await unfiltered.awrap_tool_call(tool_request(), h.acall)
    assert isinstance(direct, ToolMessage) and direct.content == "direct"
