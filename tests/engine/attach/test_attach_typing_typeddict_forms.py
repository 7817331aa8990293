"""An attached app whose state and context are ``typing.TypedDict`` classes, as users write
them: pydantic refuses those before Python 3.12, so LangGraph gives no JSON schema for them,
yet the target still describes their fields (the studio's input and context forms)."""

from __future__ import annotations

from typing import TypedDict

from engine.attach import attach
from engine.targets import AttachTarget


class State(TypedDict):
    city: str
    days: int


class Context(TypedDict):
    user_name: str


def _plan(state: State) -> dict[str, int]:
    return {"days": state["days"] + 1}


def _graph() -> object:
    from langgraph.graph import START, StateGraph

    builder = StateGraph(State, context_schema=Context)
    builder.add_node("plan", _plan)
    builder.add_edge(START, "plan")
    return builder.compile()


def test_the_input_and_context_of_typing_typeddicts_have_typed_fields() -> None:
    target = AttachTarget(attach(_graph()))
    schema = target.input_schema()
    assert schema is not None and "description" not in schema  # no "could not be derived"
    assert schema["properties"]["city"]["type"] == "string"
    assert schema["properties"]["days"]["type"] == "integer"
    assert "required" not in schema  # LangGraph takes a TypedDict input with any of its keys
    context = target.context_schema()
    assert context is not None and context["properties"]["user_name"]["type"] == "string"
