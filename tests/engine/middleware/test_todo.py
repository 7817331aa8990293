"""TodoListMiddleware: the write_todos tool, the planning prompt, parallel calls (scenario 24)."""

from __future__ import annotations

import typing

import pytest

from engine.graph.state import OmitFromInput, StateSpec
from engine.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from engine.middleware.todo import (
    PARALLEL_WRITE_TODOS_ERROR,
    WRITE_TODOS_SYSTEM_PROMPT,
    PlanningState,
    TodoListMiddleware,
)
from engine.tools import ToolArgsValidationError
from engine.types import Command
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    ai_answer,
    captured_events,
    model_request,
)

TODOS = [
    {"content": "创建 login.tsx", "status": "in_progress"},
    {"content": "创建 register.tsx", "status": "pending"},
]


def test_tool_schema_hides_the_call_id() -> None:
    (write_todos,) = TodoListMiddleware().tools
    schema = write_todos.tool_call_schema
    assert schema["name"] == "write_todos"
    assert list(schema["parameters"]["properties"]) == ["todos"]


async def test_write_todos_returns_a_command_with_todos_and_message() -> None:
    (write_todos,) = TodoListMiddleware().tools
    args = write_todos.validate_args({"todos": TODOS})
    out = await write_todos.arun(args, tool_call_id="call_todo")
    assert isinstance(out, Command)
    assert out.update["todos"] == TODOS
    (msg,) = out.update["messages"]
    assert isinstance(msg, ToolMessage)
    assert msg.tool_call_id == "call_todo"
    assert msg.content == f"Updated todo list to {TODOS}"
    assert msg.content.startswith(
        "Updated todo list to [{'content': '创建 login.tsx', 'status': 'in_progress'}"
    )


def test_write_todos_validates_statuses() -> None:
    (write_todos,) = TodoListMiddleware().tools
    with pytest.raises(ToolArgsValidationError):
        write_todos.validate_args({"todos": [{"content": "x", "status": "done"}]})


def test_invalid_todos_are_reported_as_pydantic_words_them() -> None:
    (write_todos,) = TodoListMiddleware().tools
    with pytest.raises(ValueError) as err:
        write_todos.invoke(
            {
                "args": {"todos": [{"status": "pending"}]},
                "name": "write_todos",
                "type": "tool_call",
                "id": "c",
            }
        )
    assert str(err.value).startswith(
        "1 validation error for write_todos\ntodos.0.content\n  Field required"
    )


def test_state_schema_adds_todos_omitted_from_input() -> None:
    spec = StateSpec(PlanningState)
    assert "todos" in spec.keys and "messages" in spec.keys
    assert "todos" not in spec.input_keys()
    hints = typing.get_type_hints(PlanningState, include_extras=True)
    assert OmitFromInput in typing.get_args(typing.get_args(hints["todos"])[0])
    assert TodoListMiddleware.state_schema is PlanningState


def test_prompt_is_appended_to_the_system_prompt() -> None:
    mw = TodoListMiddleware()
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(system_message=SystemMessage(content="You are a coder.")), h)
    assert h.requests[0].system_prompt == "You are a coder.\n\n" + WRITE_TODOS_SYSTEM_PROMPT
    mw.wrap_model_call(model_request(), h)
    assert h.requests[1].system_prompt == WRITE_TODOS_SYSTEM_PROMPT


async def test_async_prompt_and_custom_texts() -> None:
    mw = TodoListMiddleware(system_prompt="Plan first.", tool_description="Keep a list.")
    assert mw.tools[0].description == "Keep a list."
    h = Flaky([], ai_answer())
    await mw.awrap_model_call(model_request(system_message=SystemMessage(content="Base")), h.acall)
    assert h.requests[0].system_prompt == "Base\n\nPlan first."


def test_empty_texts_are_rejected() -> None:
    with pytest.raises(ValueError, match="system_prompt must be a non-empty string"):
        TodoListMiddleware(system_prompt=" ")
    with pytest.raises(ValueError, match="tool_description must be a non-empty string"):
        TodoListMiddleware(tool_description="")


def _ai(*calls: tuple[str, str]) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": n, "args": {"todos": TODOS}, "id": i} for n, i in calls]
    )


def test_scenario_24_parallel_write_todos_get_an_error_each() -> None:
    mw = TodoListMiddleware()
    state = {
        "messages": [
            HumanMessage(content="plan"),
            _ai(("write_todos", "a"), ("write_todos", "b"), ("ls", "c")),
        ]
    }
    with captured_events() as events:
        update = mw.after_model(state, None)  # type: ignore[arg-type]
    assert update is not None
    msgs = update["messages"]
    assert [(m.tool_call_id, m.status, m.content) for m in msgs] == [
        ("a", "error", PARALLEL_WRITE_TODOS_ERROR),
        ("b", "error", PARALLEL_WRITE_TODOS_ERROR),
    ]
    assert PARALLEL_WRITE_TODOS_ERROR == (
        "Error: The `write_todos` tool should never be called multiple times in parallel. "
        "Please call it only once per model invocation to update the todo list."
    )
    assert actions(events, "todos_parallel_calls_rejected")[0].detail["tool_call_ids"] == ["a", "b"]


async def test_single_call_or_no_ai_message_changes_nothing() -> None:
    mw = TodoListMiddleware()
    assert mw.after_model({"messages": [_ai(("write_todos", "a"))]}, None) is None  # type: ignore[arg-type]
    assert mw.after_model({"messages": [HumanMessage(content="hi")]}, None) is None  # type: ignore[arg-type]
    assert await mw.aafter_model({"messages": []}, None) is None  # type: ignore[arg-type]
    two = {"messages": [_ai(("write_todos", "a"), ("write_todos", "b"))]}
    update = await mw.aafter_model(two, None)  # type: ignore[arg-type]
    assert update is not None and len(update["messages"]) == 2
