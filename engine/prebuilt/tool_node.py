"""``langgraph.prebuilt.tool_node``'s names, where a program ported by imports looks for them
(``from langgraph.prebuilt.tool_node import ToolNode, ToolRuntime``...)."""

from __future__ import annotations

from engine.agents import ToolNode, tools_condition
from engine.middleware.types import ToolCallRequest
from engine.tools import (
    InjectedState,
    InjectedStore,
    InjectedToolArg,
    ToolInvocationError,
    ToolRuntime,
)

__all__ = [
    "InjectedState",
    "InjectedStore",
    "InjectedToolArg",
    "ToolCallRequest",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "tools_condition",
]
