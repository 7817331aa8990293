"""``get_input_jsonschema`` of a state written as users write it on Python 3.11: a plain
``typing.TypedDict`` (pydantic refuses those before 3.12), nested, with reducers and
``total=False`` keys."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph


class Address(TypedDict):
    city: str


class State(TypedDict, total=False):
    topic: str
    count: int
    log: Annotated[list[str], operator.add]
    where: Address | None
    places: list[Address]


def _noop(state: State) -> State:
    return {}


def test_a_typing_typeddict_state_gives_a_json_schema() -> None:
    b = StateGraph(State)
    b.add_node("n", _noop)
    b.add_edge(START, "n")
    b.add_edge("n", END)
    schema = b.compile().get_input_jsonschema()
    props = schema["properties"]
    assert set(props) == {"topic", "count", "log", "where", "places"}
    assert props["count"]["type"] == "integer"
    assert props["log"] == {"items": {"type": "string"}, "title": "Log", "type": "array"}
    assert "required" not in schema  # total=False
    address = schema["$defs"]["Address"]
    assert address["properties"]["city"]["type"] == "string" and address["required"] == ["city"]
