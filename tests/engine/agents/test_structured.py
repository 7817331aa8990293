"""Spec section 8 and scenario 25: ToolStrategy, ProviderStrategy, AutoStrategy."""

from __future__ import annotations

import dataclasses
from typing import TypedDict

import pytest
from pydantic import BaseModel

from engine import create_agent
from engine.agents import (
    MultipleStructuredOutputsError,
    ProviderStrategy,
    StructuredOutputValidationError,
    ToolStrategy,
)
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, ToolMessage
from engine.models import ModelProfile, ScriptedChatModel
from engine.models.profiles import native_structured_output

from .helpers import ai, ask, call, cfg, echo, kinds

NO_NATIVE = ModelProfile(structured_output=False)


class Weather(BaseModel):
    """The weather in a city."""

    temperature: float
    condition: str


class Wind(BaseModel):
    speed: int


def test_25_tool_strategy_retries_after_bad_args_then_succeeds():
    model = ScriptedChatModel(
        [
            ai(call("Weather", "s1", temperature="hot", condition="sunny")),
            ai(call("Weather", "s2", temperature=21.5, condition="sunny")),
        ]
    )
    agent = create_agent(
        model, [echo], response_format=ToolStrategy(Weather), checkpointer=InMemorySaver()
    )
    out = agent.invoke(ask(), cfg())
    assert out["structured_response"] == Weather(temperature=21.5, condition="sunny")
    msgs = out["messages"]
    assert kinds(msgs)[:2] == ["Human", "AI[Weather]"]
    error = msgs[2]
    assert isinstance(error, ToolMessage)
    # LangChain's answer to an invalid structured call keeps the default status
    assert (error.status, error.tool_call_id, error.name) == ("success", "s1", "Weather")
    assert error.content.startswith(
        "Error: Failed to parse structured output for tool 'Weather': "
        "Failed to parse data to Weather: 1 validation error"  # LangChain's words
    )
    assert error.content.endswith(".\n Please fix your mistakes.")
    assert kinds(msgs)[3:] == [
        "AI[Weather]",
        "Tool(Returning structured response: temperature=21.5 condition='sunny')",
    ]
    assert msgs[4].status == "success"
    assert model.calls[0].tool_choice == "any"
    assert [t["name"] for t in model.calls[0].tools] == ["echo", "Weather"]
    assert model.calls[0].tools[1]["description"] == "The weather in a city."
    # START, model, model, plus input: the structured answer ends the loop without the tools node
    assert len(list(agent.get_state_history(cfg()))) == 4


def test_tool_strategy_with_other_tools_runs_them_and_ends():
    model = ScriptedChatModel(
        [ai(call("echo", "c1", text="x"), call("Weather", "s1", temperature=1, condition="c"))]
    )
    out = create_agent(model, [echo], response_format=ToolStrategy(Weather)).invoke(ask())
    assert kinds(out["messages"]) == [
        "Human",
        "AI[echo,Weather]",
        "Tool(Returning structured response: temperature=1.0 condition='c')",
        "Tool(echo:x)",
    ]
    assert len(model.calls) == 1


def test_tool_strategy_union_and_custom_content_and_no_tools_node():
    model = ScriptedChatModel([ai(call("Wind", "s1", speed=7))])
    strategy = ToolStrategy(Weather | Wind, tool_message_content="got it")
    out = create_agent(model, response_format=strategy).invoke(ask())
    assert out["structured_response"] == Wind(speed=7)
    assert kinds(out["messages"]) == ["Human", "AI[Wind]", "Tool(got it)"]
    assert [t["name"] for t in model.calls[0].tools] == ["Weather", "Wind"]


def test_multiple_structured_calls_get_one_error_each_then_retry():
    model = ScriptedChatModel(
        [
            ai(call("Weather", "s1", temperature=1, condition="a"), call("Wind", "s2", speed=3)),
            ai(call("Wind", "s3", speed=4)),
        ]
    )
    out = create_agent(model, response_format=ToolStrategy(Weather | Wind)).invoke(ask())
    errors = [m for m in out["messages"] if isinstance(m, ToolMessage) and "Error" in m.content]
    text = (
        "Error: Model incorrectly returned multiple structured responses (Weather, Wind) when only one is "
        "expected.\n Please fix your mistakes."
    )
    assert [(e.tool_call_id, e.content) for e in errors] == [("s1", text), ("s2", text)]
    assert out["structured_response"] == Wind(speed=4)


def test_unhandled_structured_errors_raise():
    bad = ScriptedChatModel([ai(call("Weather", "s1", temperature="hot", condition="x"))])
    with pytest.raises(
        StructuredOutputValidationError,
        match="Failed to parse structured output for tool 'Weather'",
    ):
        create_agent(bad, response_format=ToolStrategy(Weather, handle_errors=False)).invoke(ask())
    two = ScriptedChatModel(
        [ai(call("Weather", "s1", temperature=1, condition="a"), call("Wind", "s2", speed=3))]
    )
    with pytest.raises(MultipleStructuredOutputsError):
        create_agent(
            two, response_format=ToolStrategy(Weather | Wind, handle_errors=ValueError)
        ).invoke(ask())


def test_handle_errors_string_and_callable():
    model = ScriptedChatModel(
        [
            ai(call("Weather", "s1", temperature="hot", condition="x")),
            ai(call("Weather", "s2", temperature=2, condition="y")),
        ]
    )
    out = create_agent(
        model, response_format=ToolStrategy(Weather, handle_errors="try again")
    ).invoke(ask())
    assert out["messages"][2].content == "try again"
    model = ScriptedChatModel(
        [
            ai(call("Weather", "s1", temperature="hot", condition="x")),
            ai(call("Weather", "s2", temperature=2, condition="y")),
        ]
    )
    strategy = ToolStrategy(Weather, handle_errors=lambda e: f"bad: {type(e).__name__}")
    out = create_agent(model, response_format=strategy).invoke(ask())
    assert out["messages"][2].content == "bad: StructuredOutputValidationError"


def test_provider_strategy_sends_a_json_schema_and_parses_the_reply():
    model = ScriptedChatModel(['{"temperature": 3, "condition": "snow"}'])
    out = create_agent(model, response_format=ProviderStrategy(Weather, strict=True)).invoke(ask())
    assert out["structured_response"] == Weather(temperature=3, condition="snow")
    rf = model.calls[0].response_format
    assert rf is not None
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["name"] == "Weather"
    assert rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["schema"]["required"] == ["temperature", "condition"]
    assert model.calls[0].tools == []


def test_provider_strategy_parse_failure_raises():
    model = ScriptedChatModel(["not json"])
    with pytest.raises(
        StructuredOutputValidationError,
        match="Failed to parse structured output for tool 'Weather'",
    ):
        create_agent(model, response_format=ProviderStrategy(Weather)).invoke(ask())


def test_auto_strategy_follows_the_model_profile():
    native = ScriptedChatModel(
        ['{"temperature": 1, "condition": "fog"}'], profile=ModelProfile(structured_output=True)
    )
    out = create_agent(native, response_format=Weather).invoke(ask())
    assert out["structured_response"].condition == "fog"
    assert native.calls[0].response_format is not None
    tools_only = ScriptedChatModel(
        [ai(call("Weather", "s1", temperature=1, condition="fog"))], profile=NO_NATIVE
    )
    out = create_agent(tools_only, response_format=Weather).invoke(ask())
    assert out["structured_response"].condition == "fog"
    assert tools_only.calls[0].response_format is None
    assert tools_only.calls[0].tool_choice == "any"


def test_auto_strategy_without_a_profile_goes_by_the_model_name_as_langchain_does():
    """No profile: the tool strategy, unless the name is a family known to answer natively."""
    unknown = ScriptedChatModel([ai(call("Weather", "s1", temperature=1, condition="fog"))])
    out = create_agent(unknown, response_format=Weather).invoke(ask())
    assert out["structured_response"].condition == "fog"
    assert unknown.calls[0].response_format is None and unknown.calls[0].tool_choice == "any"
    for name in ("gpt-4o-mini", "openai:gpt-5.1", "azure/gpt-4.1", "grok-4"):
        known = ScriptedChatModel(['{"temperature": 1, "condition": "fog"}'], name=name)
        out = create_agent(known, response_format=Weather).invoke(ask())
        assert out["structured_response"].condition == "fog", name
        assert known.calls[0].response_format is not None, name
    assert native_structured_output("gpt-4o") and not native_structured_output("llama3.1")
    assert not native_structured_output("notgpt-4o")


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Person(TypedDict):
    name: str


def test_dataclass_typeddict_and_json_schema_dict():
    model = ScriptedChatModel(
        [
            ai(call("Point", "a", x=1, y=2)),
            ai(call("Person", "b", name="Ada")),
            ai(call("contact", "c", email="a@b.c")),
            ai(call("contact", "d")),
        ],
        profile=NO_NATIVE,
    )
    assert create_agent(model, response_format=Point).invoke(ask())["structured_response"] == Point(
        1, 2
    )
    assert create_agent(model, response_format=Person).invoke(ask())["structured_response"] == {
        "name": "Ada"
    }
    schema = {
        "title": "contact",
        "type": "object",
        "properties": {"email": {"type": "string"}},
        "required": ["email"],
    }
    agent = create_agent(model, response_format=ToolStrategy(schema, handle_errors=False))
    assert agent.invoke(ask())["structured_response"] == {"email": "a@b.c"}
    # a JSON schema is not checked, as in LangChain: the arguments are the answer as given
    assert agent.invoke(ask())["structured_response"] == {}


def test_structured_response_is_not_accepted_as_input():
    model = ScriptedChatModel([ai(call("Wind", "s1", speed=1))])
    out = create_agent(model, response_format=ToolStrategy(Wind)).invoke(
        {**ask(), "structured_response": "forged"}
    )
    assert out["structured_response"] == Wind(speed=1)


def test_plain_text_under_tool_strategy_without_tools_asks_again():
    # LangChain's agent without a tools node loops until a call gives the structured response
    model = ScriptedChatModel([AIMessage(content="I refuse"), ai(call("Wind", "w1", speed=3))])
    out = create_agent(model, response_format=ToolStrategy(Wind)).invoke(ask())
    assert kinds(out["messages"]) == [
        "Human",
        "AI(I refuse)",
        "AI[Wind]",
        "Tool(Returning structured response: speed=3)",
    ]
    assert out["structured_response"] == Wind(speed=3)
    assert len(model.calls) == 2


def test_plain_text_under_tool_strategy_with_tools_ends_and_clears_the_last_response():
    model = ScriptedChatModel([ai(call("Wind", "w1", speed=3)), AIMessage(content="I refuse")])
    agent = create_agent(
        model, [echo], response_format=ToolStrategy(Wind), checkpointer=InMemorySaver()
    )
    assert agent.invoke(ask(), cfg())["structured_response"] == Wind(speed=3)
    out = agent.invoke(ask("again"), cfg())
    assert kinds(out["messages"])[-2:] == ["Human", "AI(I refuse)"]
    assert out["structured_response"] is None
    assert len(model.calls) == 2


def test_provider_output_that_is_not_json_is_named_as_langchain_names_it() -> None:
    model = ScriptedChatModel([AIMessage(content="not json")])
    agent = create_agent(model, response_format=ProviderStrategy(Weather))
    with pytest.raises(StructuredOutputValidationError) as info:
        agent.invoke(ask())
    assert str(info.value).startswith(
        "Failed to parse structured output for tool 'Weather': Native structured output "
        "expected valid JSON for Weather, but parsing failed: Expecting value"
    )
    assert type(info.value.source) is ValueError


def test_an_unsupported_schema_is_named_as_langchain_names_it() -> None:
    with pytest.raises(ValueError, match=r"Supported types: Pydantic models, dataclasses, "):
        ToolStrategy([Weather])  # type: ignore[arg-type]
