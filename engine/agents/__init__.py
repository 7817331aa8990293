"""Agents: ``create_agent`` (LangChain v1's middleware agent), ``create_react_agent``
(LangGraph's prebuilt one), ``ToolNode``, structured output."""

from engine.agents.conditions import tools_condition
from engine.agents.factory import create_agent
from engine.agents.output_binding import OutputToolBinding, ProviderStrategyBinding
from engine.agents.react_agent import create_react_agent
from engine.agents.structured import (
    AutoStrategy,
    MultipleStructuredOutputsError,
    ProviderStrategy,
    StructuredOutputError,
    StructuredOutputValidationError,
    ToolStrategy,
)
from engine.agents.subagent_stream import SubagentTransformer
from engine.agents.tool_call_stream import ToolCallStream, ToolCallTransformer
from engine.agents.tool_node import ToolNode
from engine.middleware.types import AgentState

__all__ = [
    "AgentState",
    "AutoStrategy",
    "MultipleStructuredOutputsError",
    "OutputToolBinding",
    "ProviderStrategy",
    "ProviderStrategyBinding",
    "StructuredOutputError",
    "StructuredOutputValidationError",
    "SubagentTransformer",
    "ToolCallStream",
    "ToolCallTransformer",
    "ToolNode",
    "ToolStrategy",
    "create_agent",
    "create_react_agent",
    "tools_condition",
]
