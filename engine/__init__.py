"""Stepwise's embedded agent engine: LangGraph-compatible graphs and LangChain-style agents.

The graph runtime and the agent factory are re-exported here
(``from engine import StateGraph, START, END, create_agent``).
"""

from engine.agents import AgentState, ToolNode, create_agent
from engine.graph import *  # noqa: F403

__all__ = [
    "AgentState",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "CheckpointError",
    "Command",
    "CompiledStateGraph",
    "DrawableGraph",
    "END",
    "EmptyChannelError",
    "EmptyInputError",
    "EphemeralValue",
    "GraphInterrupt",
    "GraphRecursionError",
    "Interrupt",
    "InvalidUpdateError",
    "LastValue",
    "MessageList",
    "NamedBarrierValue",
    "NodeInterrupt",
    "OmitFromInput",
    "OmitFromOutput",
    "ParentCommand",
    "PregelTask",
    "PrivateStateAttr",
    "RetryPolicy",
    "RunStopped",
    "Runtime",
    "START",
    "Send",
    "StateGraph",
    "StateSnapshot",
    "ThreadBusyError",
    "ToolNode",
    "Topic",
    "UntrackedValue",
    "create_agent",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "set_route_reason",
]
