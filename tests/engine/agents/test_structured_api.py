"""Structured-output strategy objects: their specs, model kwargs, and JSON-schema unions."""

from __future__ import annotations

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
