"""An agent whose model keeps calling a tool the agent does not have (the CLI loop test)."""

from __future__ import annotations

from engine.agents import create_agent
from engine.messages import AIMessage, ToolCall
from engine.models import ScriptedChatModel
from engine.tools import tool


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


_calls = [
    AIMessage(content="", tool_calls=[ToolCall(name="search_web", args={"q": i}, id=f"c{i}")])
    for i in range(40)
]
looper = create_agent(ScriptedChatModel(_calls), [lookup], name="looper")
