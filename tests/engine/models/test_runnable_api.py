"""The model API tutorials call, on our models (and the helpers they import)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel

from engine import END, START, RunnableConfig, StateGraph, ToolNode, tools_condition
from engine.messages import AIMessage, AnyMessage, HumanMessage, add_messages
from engine.models import ScriptedChatModel
from engine.tools import tool


class Weather(BaseModel):
    city: str
    celsius: int


@tool
def lookup(city: str) -> str:
    """Look the weather up."""
    return f"{city}: 21 C"


def call(name: str, args: dict, i: int = 1) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}])


def test_invoke_a_string_batch_and_bind_tools() -> None:
    model = ScriptedChatModel(["one", "two", "three", call("lookup", {"city": "Oslo"})])
    assert model.invoke("hello").text == "one"
    assert [r.text for r in model.batch(["a", "b"])] == ["two", "three"]
    bound = model.bind_tools([lookup], tool_choice="lookup")
    reply = bound.invoke([HumanMessage("weather in Oslo?")])
    assert reply.tool_calls[0]["name"] == "lookup"
    request = model.calls[-1]
    assert request.tool_names == ["lookup"] and request.tool_choice == "lookup"


def test_with_structured_output_by_tool_call_or_json_schema() -> None:
    model = ScriptedChatModel(
        [call("Weather", {"city": "Oslo", "celsius": 21}), '{"city": "Rome", "celsius": 30}']
    )
    assert model.with_structured_output(Weather).invoke("Oslo?") == Weather(city="Oslo", celsius=21)
    assert model.calls[-1].tool_choice == "Weather"
    out = model.with_structured_output(Weather, method="json_schema", include_raw=True).invoke("?")
    assert out["parsed"] == Weather(city="Rome", celsius=30) and out["raw"].text.startswith("{")
    assert model.calls[-1].response_format["json_schema"]["name"] == "Weather"  # type: ignore[index]
    with pytest.raises(ValueError, match="method must be"):
        model.with_structured_output(Weather, method="xml")


def test_with_retry_and_with_fallbacks() -> None:
    flaky = ScriptedChatModel([TimeoutError("slow"), "second try"])
    assert flaky.with_retry(stop_after_attempt=2).invoke("x").text == "second try"
    broken = ScriptedChatModel([ConnectionError("down")])
    spare = ScriptedChatModel(["from the spare"])
    assert broken.with_fallbacks([spare]).invoke("x").text == "from the spare"


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: Annotated[list[int], operator.add]


def test_the_classic_react_graph_with_tools_condition() -> None:
    model = ScriptedChatModel([call("lookup", {"city": "Oslo"}), "It is 21 C in Oslo."])

    def agent(state: State, config: RunnableConfig) -> dict:
        assert config["configurable"]["thread_id"] == "t"
        return {"messages": [model.bind_tools([lookup]).invoke(state["messages"])], "turns": [1]}

    g = StateGraph(State)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([lookup]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    out = g.compile().invoke(
        {"messages": [HumanMessage("weather in Oslo?")]}, {"configurable": {"thread_id": "t"}}
    )
    assert out["messages"][-1].text == "It is 21 C in Oslo." and out["turns"] == [1, 1]
    assert tools_condition(out) == END


def test_bind_tools_takes_plain_functions_and_schema_classes() -> None:
    """As langchain-academy binds them: functions with docstrings, a pydantic model."""

    def multiply(a: int, b: int) -> int:
        """Multiply a and b.

        Args:
            a: first int
            b: second int
        """
        return a * b

    class Weather(BaseModel):
        """Weather in a city."""

        city: str

    model = ScriptedChatModel(["fine"])
    assert model.bind_tools([multiply, Weather]).invoke("hi").text == "fine"
    sent = model.calls[-1].tools
    assert [t["name"] for t in sent] == ["multiply", "Weather"]
    assert sent[0]["description"] == "Multiply a and b."
    assert sent[0]["parameters"]["properties"]["a"] == {
        "description": "first int",
        "type": "integer",
    }
    assert sent[1]["parameters"]["required"] == ["city"]
