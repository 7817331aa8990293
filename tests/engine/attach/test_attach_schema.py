"""An attached app whose input schema LangGraph cannot derive still runs from the studio's form:
LangGraph derives schemas with pydantic, which refuses a ``typing.TypedDict`` state on Python
< 3.12, while the graph itself runs (the engine's own schema then describes it), and a field no
schema can describe makes the form one of the state's keys."""

from __future__ import annotations

import sys
import typing

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.graph import START, StateGraph

from engine.attach import attach
from engine.targets import AttachTarget


class Plain(typing.TypedDict, total=False):  # typing's, not typing_extensions'
    topic: str
    n: int


def _count(state: Plain) -> dict[str, int]:
    return {"n": len(state.get("topic", ""))}


def _graph() -> AttachTarget:
    b = StateGraph(Plain)
    b.add_node("count", _count)
    b.add_edge(START, "count")
    return AttachTarget(attach(b.compile()))


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="pydantic derives it on 3.12+")
def test_an_underivable_typing_typeddict_still_gets_typed_fields() -> None:
    """LangGraph has no schema for it; the engine's own ``schema_json`` rebuilds the class
    for pydantic, so the form's fields keep their types (not one JSON box each)."""
    target = _graph()
    with pytest.raises(Exception, match="typing_extensions"):
        target.graph.get_input_jsonschema()  # what LangGraph itself does here
    schema = target.input_schema()
    assert schema is not None and "description" not in schema
    assert schema["properties"]["topic"]["type"] == "string"
    assert schema["properties"]["n"]["type"] == "integer"
    assert "required" not in schema  # total=False
    assert target.context_schema() is None
    assert target.graph.invoke({"topic": "abc"}) == {"topic": "abc", "n": 3}


class Place:
    """A field type no JSON schema describes."""


class Opaque(typing.TypedDict, total=False):
    topic: str
    where: Place


def _echo(state: Opaque) -> dict[str, str]:
    return {}


def test_an_input_nothing_can_describe_becomes_a_form_of_the_state_keys() -> None:
    b = StateGraph(Opaque)
    b.add_node("echo", _echo)
    b.add_edge(START, "echo")
    target = AttachTarget(attach(b.compile()))
    schema = target.input_schema()
    assert schema is not None
    assert set(schema["properties"]) == {"topic", "where"}
    assert all(p == {} for p in schema["properties"].values())  # each field typed as JSON
    assert "could not be derived" in schema["description"]


def test_a_derivable_input_schema_is_langgraphs_own() -> None:
    from typing_extensions import TypedDict

    class Typed(TypedDict, total=False):
        topic: str

    b = StateGraph(Typed)
    b.add_node("echo", lambda s: {})
    b.add_edge(START, "echo")
    target = AttachTarget(attach(b.compile()))
    assert target.input_schema() == target.graph.get_input_jsonschema()
