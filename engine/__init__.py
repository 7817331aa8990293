"""Stepwise's embedded agent engine: LangGraph-compatible graphs and LangChain-style agents.

The graph runtime is re-exported here (``from engine import StateGraph, START, END``).
"""

from engine.graph import *  # noqa: F403
from engine.graph import __all__ as _graph_all

__all__ = list(_graph_all)

from engine.agents import AgentState, ToolNode, create_agent  # noqa: E402

__all__ += ["AgentState", "ToolNode", "create_agent"]
