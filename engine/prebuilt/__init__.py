"""The names LangGraph's ``langgraph.prebuilt`` offers, where a program ported by imports
(``langgraph`` -> ``engine``) looks for them: the prebuilt ReAct agent, the tools node and its
condition, and the injected tool parameters."""

from __future__ import annotations

from engine.agents import ToolCallTransformer, ToolNode, create_react_agent, tools_condition
from engine.tools import InjectedState, InjectedStore, ToolInvocationError, ToolRuntime

__all__ = [
    "InjectedState",
    "InjectedStore",
    "ToolCallTransformer",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "create_react_agent",
    "tools_condition",
]
