"""Structured-output strategy objects: their specs, model kwargs, and JSON-schema unions."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from engine import create_agent
from engine.agents import ProviderStrategy, ToolStrategy
from engine.models import ScriptedChatModel

from .helpers import ai, ask, call


class Wind(BaseModel):
    """Wind report."""

    speed: int


class Rain(BaseModel):
    mm: float


def test_specs_per_union_member_and_one_spec_for_the_provider():
    assert [s.schema for s in ToolStrategy(Wind | Rain).schema_specs] == [Wind, Rain]
    p = ProviderStrategy(Wind, strict=True)
    assert p.schema_spec.schema is Wind and p.schema_spec.strict is True
    assert ProviderStrategy(Wind).schema_spec.strict is None


def test_provider_kwargs_carry_the_schema_as_given():
    kwargs = ProviderStrategy(Wind, strict=True).to_model_kwargs()
    js = kwargs["response_format"]["json_schema"]
    assert kwargs["response_format"]["type"] == "json_schema"
    assert js["name"] == "Wind" and js["strict"] is True
    assert js["schema"]["title"] == "Wind" and js["schema"]["description"] == "Wind report."
    assert (
        "strict" not in ProviderStrategy(Wind).to_model_kwargs()["response_format"]["json_schema"]
    )


def test_json_schema_one_of_becomes_one_tool_per_variant():
    a = {"title": "alpha", "type": "object", "properties": {"x": {"type": "integer"}}}
    b = {"title": "beta", "type": "object", "properties": {"y": {"type": "string"}}}
    strategy = ToolStrategy({"oneOf": [a, b]})
    assert [s.name for s in strategy.schema_specs] == ["alpha", "beta"]
    model = ScriptedChatModel([ai(call("beta", "1", y="yes"))])
    out = create_agent(model, response_format=strategy).invoke(ask())
    assert out["structured_response"] == {"y": "yes"}


def test_bindings_parse_tool_arguments_and_native_json():
    from engine.agents import OutputToolBinding, ProviderStrategyBinding
    from engine.agents.structured import SchemaSpec
    from engine.messages import AIMessage

    tool_binding = OutputToolBinding.from_schema_spec(SchemaSpec(Wind))
    assert (tool_binding.schema_kind, tool_binding.tool.name) == ("pydantic", "Wind")
    assert tool_binding.tool.description == "Wind report."
    assert tool_binding.parse({"speed": 3}) == Wind(speed=3)
    native = ProviderStrategyBinding.from_schema_spec(SchemaSpec({"title": "t", "type": "object"}))
    assert native.schema_kind == "json_schema"
    assert native.parse(AIMessage(content=[{"type": "text", "text": '{"a": 1}'}])) == {"a": 1}
    with pytest.raises(ValueError, match="expected valid JSON"):
        native.parse(AIMessage(content="not json"))
