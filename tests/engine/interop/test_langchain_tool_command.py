"""A langchain_core ``@tool`` returning the engine's ``Command`` (a program ported by imports
keeps ``langchain_core.tools.tool`` and imports ``Command`` from ``engine.types``): the tools
node applies the command, as LangChain does with LangGraph's ``Command``, instead of writing
its text into a ``ToolMessage``."""

from __future__ import annotations

from typing import Annotated

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import InjectedToolCallId
from langchain_core.tools import tool as lc_tool

from engine import create_agent
from engine.messages import REMOVE_ALL_MESSAGES, AIMessage, HumanMessage, RemoveMessage, ToolMessage
from engine.models import ScriptedChatModel
from engine.types import Command


def _calls(name: str) -> ScriptedChatModel:
    return ScriptedChatModel(
        [AIMessage("", tool_calls=[{"name": name, "args": {}, "id": "c1"}]), AIMessage("done")]
    )


def test_a_command_that_clears_the_history_clears_it() -> None:
    @lc_tool
    def wipe() -> Command:
        """Wipe the conversation."""
        return Command(update={"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]})

    out = create_agent(_calls("wipe"), [wipe]).invoke({"messages": [HumanMessage("x")]})
    assert [(type(m).__name__, m.content) for m in out["messages"]] == [("AIMessage", "done")]


def test_a_command_with_its_tool_message_updates_the_state() -> None:
    @lc_tool
    def remember(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Remember the user's city."""
        return Command(
            update={
                "city": "Oslo",
                "messages": [ToolMessage("noted", tool_call_id=tool_call_id)],
            }
        )

    from engine.agents import AgentState

    class State(AgentState, total=False):
        city: str

    agent = create_agent(_calls("remember"), [remember], state_schema=State)
    out = agent.invoke({"messages": [HumanMessage("x")]})
    assert out["city"] == "Oslo"
    (reply,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert reply.content == "noted" and reply.tool_call_id == "c1"
