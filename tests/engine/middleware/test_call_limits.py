"""ModelCallLimitMiddleware and ToolCallLimitMiddleware (scenario 23, hook level)."""

from __future__ import annotations

import typing

import pytest

from engine.graph.channels import UntrackedValue
from engine.graph.state import StateSpec
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware.call_limits import (
    NOT_RUN_MESSAGE,
    ModelCallLimitExceededError,
    ModelCallLimitMiddleware,
    ModelCallLimitState,
    ToolCallLimitExceededError,
    ToolCallLimitMiddleware,
)
from engine.middleware.types import can_jump_to
from tests.engine.middleware.helpers import actions, captured_events

# -- model calls ------------------------------------------------------------------------------


def test_model_limit_validation() -> None:
    with pytest.raises(ValueError) as info:
        ModelCallLimitMiddleware()
    assert str(info.value) == "At least one limit must be specified (thread_limit or run_limit)"
    with pytest.raises(ValueError) as info:
        ModelCallLimitMiddleware(run_limit=1, exit_behavior="stop")  # type: ignore[arg-type]
    assert str(info.value) == "Invalid exit_behavior: stop. Must be 'end' or 'error'"
    with pytest.raises(ValueError, match="run_limit must be an int >= 0"):
        ModelCallLimitMiddleware(run_limit=-1)


def test_model_limit_state_schema() -> None:
    spec = StateSpec(ModelCallLimitState)
    assert {"thread_model_call_count", "run_model_call_count"} <= set(spec.keys)
    assert not {"thread_model_call_count", "run_model_call_count"} & set(spec.input_keys())
    assert not {"thread_model_call_count", "run_model_call_count"} & set(spec.output_keys())
    assert isinstance(spec.channels["run_model_call_count"], UntrackedValue)
    assert not isinstance(spec.channels["thread_model_call_count"], UntrackedValue)


def test_model_limit_counts_and_ends_with_the_exact_message() -> None:
    mw = ModelCallLimitMiddleware(run_limit=2)
    assert can_jump_to(mw.before_model) == ["end"] and can_jump_to(mw.abefore_model) == ["end"]
    state: dict[str, typing.Any] = {"messages": [HumanMessage(content="go")]}
    for _ in range(2):
        assert mw.before_model(state, None) is None  # type: ignore[arg-type]
        state.update(mw.after_model(state, None) or {})  # type: ignore[arg-type]
    assert (state["thread_model_call_count"], state["run_model_call_count"]) == (2, 2)
    with captured_events() as events:
        update = mw.before_model(state, None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "end"
    (msg,) = update["messages"]
    assert (
        isinstance(msg, AIMessage) and msg.content == "Model call limits exceeded: run limit (2/2)"
    )
    (hit,) = actions(events, "limit_exceeded")
    assert hit.detail["limit"] == "model_calls" and hit.detail["run_count"] == 2


def test_model_thread_limit_and_both() -> None:
    mw = ModelCallLimitMiddleware(thread_limit=3, run_limit=3)
    update = mw.before_model({"thread_model_call_count": 3, "run_model_call_count": 3}, None)  # type: ignore[arg-type]
    assert update is not None
    assert (
        update["messages"][0].content
        == "Model call limits exceeded: thread limit (3/3), run limit (3/3)"
    )
    thread_only = mw.before_model({"thread_model_call_count": 3, "run_model_call_count": 0}, None)  # type: ignore[arg-type]
    assert thread_only is not None
    assert thread_only["messages"][0].content == "Model call limits exceeded: thread limit (3/3)"


async def test_model_limit_error_behavior_sync_and_async() -> None:
    mw = ModelCallLimitMiddleware(thread_limit=1, exit_behavior="error")
    with pytest.raises(ModelCallLimitExceededError) as info:
        mw.before_model({"thread_model_call_count": 1}, None)  # type: ignore[arg-type]
    assert str(info.value) == "Model call limits exceeded: thread limit (1/1)"
    assert (info.value.thread_count, info.value.thread_limit) == (1, 1)
    with pytest.raises(ModelCallLimitExceededError):
        await mw.abefore_model({"thread_model_call_count": 5}, None)  # type: ignore[arg-type]
    assert await mw.aafter_model({}, None) == {
        "thread_model_call_count": 1,
        "run_model_call_count": 1,
    }  # type: ignore[arg-type]


# -- tool calls -------------------------------------------------------------------------------


def _batch(*names: str) -> dict[str, typing.Any]:
    calls = [{"name": n, "args": {}, "id": f"c{i}"} for i, n in enumerate(names, 1)]
    return {"messages": [HumanMessage(content="go"), AIMessage(content="", tool_calls=calls)]}


def test_tool_limit_validation() -> None:
    with pytest.raises(
        ValueError, match=r"^At least one limit must be specified \(thread_limit or run_limit\)$"
    ):
        ToolCallLimitMiddleware()
    with pytest.raises(ValueError) as info:
        ToolCallLimitMiddleware(run_limit=1, exit_behavior="stop")  # type: ignore[arg-type]
    assert (
        str(info.value)
        == "Invalid exit_behavior: 'stop'. Must be one of ('continue', 'error', 'end')"
    )
    with pytest.raises(ValueError) as info:
        ToolCallLimitMiddleware(thread_limit=2, run_limit=3)
    assert str(info.value) == (
        "run_limit (3) cannot exceed thread_limit (2). The run limit should be less than or equal to the thread limit."
    )


def test_scenario_23_three_parallel_calls_third_blocked() -> None:
    mw = ToolCallLimitMiddleware(run_limit=2)
    with captured_events() as events:
        update = mw.after_model(_batch("search", "search", "weather"), None)  # type: ignore[arg-type]
    assert update is not None and "jump_to" not in update
    (blocked,) = update["messages"]
    assert isinstance(blocked, ToolMessage)
    assert (blocked.tool_call_id, blocked.status, blocked.name) == ("c3", "error", "weather")
    assert blocked.content == "Tool call limit exceeded. Do not make additional tool calls."
    assert update["thread_tool_call_count"] == {"__all__": 2}
    assert update["run_tool_call_count"] == {"__all__": 3}
    (hit,) = actions(events, "limit_exceeded")
    assert hit.detail["blocked"] == ["c3"] and hit.middleware == "ToolCallLimitMiddleware"


def test_per_tool_limit_counts_only_that_tool() -> None:
    mw = ToolCallLimitMiddleware(tool_name="search", thread_limit=1)
    assert mw.name == "ToolCallLimitMiddleware[search]"
    update = mw.after_model(_batch("search", "weather", "search"), None)  # type: ignore[arg-type]
    assert update is not None
    (blocked,) = update["messages"]
    assert blocked.tool_call_id == "c3"
    assert blocked.content == "Tool call limit exceeded. Do not call 'search' again."
    assert update["thread_tool_call_count"] == {"search": 1}
    assert mw.after_model(_batch("weather"), None) is None  # type: ignore[arg-type]


def test_counts_carry_over_between_turns() -> None:
    mw = ToolCallLimitMiddleware(thread_limit=3)
    state = _batch("a", "b")
    first = mw.after_model(state, None)  # type: ignore[arg-type]
    assert first == {
        "thread_tool_call_count": {"__all__": 2},
        "run_tool_call_count": {"__all__": 2},
    }
    second_state = {**_batch("a", "b"), **first}
    second = mw.after_model(second_state, None)  # type: ignore[arg-type]
    assert second is not None and [m.tool_call_id for m in second["messages"]] == ["c2"]


def test_end_stops_the_whole_batch() -> None:
    mw = ToolCallLimitMiddleware(run_limit=1, exit_behavior="end")
    assert can_jump_to(mw.after_model) == ["end"]
    update = mw.after_model(_batch("a", "b", "c"), None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "end"
    *tools, final = update["messages"]
    assert [(m.tool_call_id, m.content) for m in tools] == [  # blocked first, as LangChain's
        ("c2", "Tool call limit exceeded. Do not make additional tool calls."),
        ("c3", "Tool call limit exceeded. Do not make additional tool calls."),
        ("c1", NOT_RUN_MESSAGE),
    ]
    assert all(m.status == "error" for m in tools)
    assert isinstance(final, AIMessage)
    assert final.content == "Tool call limit reached: run limit exceeded (3/1 calls)."
    assert update["thread_tool_call_count"] == {"__all__": 0}


async def test_error_behavior_sync_and_async() -> None:
    mw = ToolCallLimitMiddleware(tool_name="search", thread_limit=1, exit_behavior="error")
    with pytest.raises(ToolCallLimitExceededError) as info:
        mw.after_model(_batch("search", "search"), None)  # type: ignore[arg-type]
    assert str(info.value) == "'search' tool call limit reached: thread limit exceeded (2/1 calls)."
    with pytest.raises(ToolCallLimitExceededError):
        await mw.aafter_model(_batch("search", "search"), None)  # type: ignore[arg-type]


async def test_answered_calls_and_no_calls_are_ignored() -> None:
    mw = ToolCallLimitMiddleware(run_limit=1)
    state = _batch("a", "b")
    state["messages"].append(ToolMessage(content="done", tool_call_id="c1"))
    update = await mw.aafter_model(state, None)  # type: ignore[arg-type]
    assert update == {
        "thread_tool_call_count": {"__all__": 1},
        "run_tool_call_count": {"__all__": 1},
    }
    assert await mw.aafter_model({"messages": [HumanMessage(content="x")]}, None) is None  # type: ignore[arg-type]
