"""LLMToolEmulator: which calls are emulated, the prompt, the reply, the events, model setup."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import INTERNAL_CALL_METADATA_KEY, LLMToolEmulator, internal_call_metadata
from engine.models import ScriptedChatModel
from engine.tools import tool
from tests.engine.middleware.helpers import actions, captured_events, tool_answer, tool_request


@tool
def book_flight(origin: str, destination: str) -> str:
    """Book a flight between two airports."""
    raise AssertionError("the real booking tool must not run")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_emulated_call_never_runs_the_tool() -> None:
    emulator_model = ScriptedChatModel(["Booked: LHR->JFK, ref ZX81"], name="emu")
    mw = LLMToolEmulator(tools=[book_flight], model=emulator_model)
    req = tool_request("book_flight", {"origin": "LHR", "destination": "JFK"}, "c1", book_flight)
    with captured_events() as events:
        out = mw.wrap_tool_call(req, tool_answer("real result"))
    assert isinstance(out, ToolMessage)
    assert (out.content, out.name, out.tool_call_id) == (
        "Booked: LHR->JFK, ref ZX81",
        "book_flight",
        "c1",
    )
    (prompt,) = emulator_model.calls[0].messages
    assert isinstance(prompt, HumanMessage)
    assert "Tool: book_flight" in prompt.text and "Book a flight" in prompt.text
    assert "'origin': 'LHR'" in prompt.text
    (ev,) = actions(events, "tool_emulated")
    assert ev.detail["tool"] == "book_flight" and ev.detail["model"] == "emu"
    assert ev.detail["output"] == "Booked: LHR->JFK, ref ZX81"
    assert ev.detail["prompt"] == prompt.text


def test_selection_rules() -> None:
    model = ScriptedChatModel([], name="emu")
    assert LLMToolEmulator(model=model).emulates("anything")
    only = LLMToolEmulator(tools=["book_flight"], model=model)
    assert only.emulates("book_flight") and not only.emulates("add")
    assert not LLMToolEmulator(tools=[], model=model).emulates("add")
    out = only.wrap_tool_call(tool_request("add", {"a": 1, "b": 2}), tool_answer("3"))
    assert isinstance(out, ToolMessage) and out.content == "3"


def test_async_path_and_unknown_tool_description() -> None:
    model = ScriptedChatModel(["42 items"], name="emu")
    mw = LLMToolEmulator(model=model)

    async def never(_req: Any) -> ToolMessage:
        raise AssertionError("not called")

    out = asyncio.run(mw.awrap_tool_call(tool_request("count", {}, "c7"), never))
    assert isinstance(out, ToolMessage) and out.content == "42 items"
    assert "No description available" in model.calls[0].messages[0].text


def test_models_with_a_config_parameter_get_internal_metadata() -> None:
    seen: list[Any] = []

    class ConfigAware:
        model_name = "cfg"

        def invoke(self, messages: Any, config: Any = None) -> AIMessage:
            seen.append(config)
            return AIMessage(content="ok")

    mw = LLMToolEmulator(model=ConfigAware())
    mw.wrap_tool_call(tool_request("x"), tool_answer())
    meta = seen[0]["metadata"]
    assert meta["lc_source"] == "tool_emulation"
    assert meta[INTERNAL_CALL_METADATA_KEY] == internal_call_metadata()[INTERNAL_CALL_METADATA_KEY]


def test_default_and_string_models() -> None:
    with pytest.warns(DeprecationWarning, match="deprecated"), pytest.raises(ImportError):
        LLMToolEmulator()
    with pytest.raises(ImportError, match="'anthropic'"):
        LLMToolEmulator(model="anthropic:some-model")


def test_in_an_agent_mixed_with_real_tools() -> None:
    agent_model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {"name": "book_flight", "args": {"origin": "A", "destination": "B"}, "id": "1"},
                    {"name": "add", "args": {"a": 2, "b": 3}, "id": "2"},
                ],
            ),
            "all done",
        ],
        name="agent",
    )
    emu = ScriptedChatModel(["Booked A->B"], name="emu")
    agent = create_agent(
        agent_model,
        tools=[book_flight, add],
        middleware=[LLMToolEmulator(tools=["book_flight"], model=emu)],
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        result = agent.invoke({"messages": [HumanMessage(content="go")]})
    by_name = {m.name: m.content for m in result["messages"] if isinstance(m, ToolMessage)}
    assert by_name == {"book_flight": "Booked A->B", "add": "5"}
    assert [e.detail["tool"] for e in actions(events, "tool_emulated")] == ["book_flight"]
