"""Stepwise's embedded agent engine: LangGraph-compatible graphs and LangChain-style agents.

The graph runtime and the agent factory are re-exported here
(``from engine import StateGraph, START, END, create_agent``).  They are imported on first
use, so ``import engine.messages`` (or any module of a lower layer) does not load the runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.agents import AgentState, ToolNode, create_agent, create_react_agent
    from engine.agents.conditions import tools_condition
    from engine.core.config import RunnableConfig
    from engine.func import entrypoint, task
    from engine.graph import (
        END,
        START,
        BaseChannel,
        BinaryOperatorAggregate,
        CheckpointError,
        Command,
        CompiledStateGraph,
        DrawableGraph,
        EmptyChannelError,
        EmptyInputError,
        EphemeralValue,
        GraphInterrupt,
        GraphRecursionError,
        Interrupt,
        InvalidUpdateError,
        LastValue,
        MessageList,
        NamedBarrierValue,
        NodeInterrupt,
        OmitFromInput,
        OmitFromOutput,
        ParentCommand,
        PregelTask,
        PrivateStateAttr,
        RetryPolicy,
        RunStopped,
        Runtime,
        Send,
        StateGraph,
        StateSnapshot,
        ThreadBusyError,
        Topic,
        UntrackedValue,
        get_config,
        get_runtime,
        get_store,
        get_stream_writer,
        interrupt,
        set_route_reason,
    )
    from engine.messages import add_messages
    from engine.observe.callbacks import BaseCallbackHandler, BaseTracer, Run
    from engine.observe.tracing import TracePolicy, omit_payload

_EXPORTS: dict[str, str] = {
    "AgentState": "engine.agents",
    "ToolNode": "engine.agents",
    "add_messages": "engine.messages",
    "create_agent": "engine.agents",
    "create_react_agent": "engine.agents",
    "tools_condition": "engine.agents.conditions",
    "RunnableConfig": "engine.core.config",
    "entrypoint": "engine.func",
    "task": "engine.func",
    "BaseChannel": "engine.graph",
    "BinaryOperatorAggregate": "engine.graph",
    "CheckpointError": "engine.graph",
    "Command": "engine.graph",
    "CompiledStateGraph": "engine.graph",
    "DrawableGraph": "engine.graph",
    "END": "engine.graph",
    "EmptyChannelError": "engine.graph",
    "EmptyInputError": "engine.graph",
    "EphemeralValue": "engine.graph",
    "GraphInterrupt": "engine.graph",
    "GraphRecursionError": "engine.graph",
    "Interrupt": "engine.graph",
    "InvalidUpdateError": "engine.graph",
    "LastValue": "engine.graph",
    "MessageList": "engine.graph",
    "NamedBarrierValue": "engine.graph",
    "NodeInterrupt": "engine.graph",
    "OmitFromInput": "engine.graph",
    "OmitFromOutput": "engine.graph",
    "ParentCommand": "engine.graph",
    "PregelTask": "engine.graph",
    "PrivateStateAttr": "engine.graph",
    "RetryPolicy": "engine.graph",
    "RunStopped": "engine.graph",
    "Runtime": "engine.graph",
    "START": "engine.graph",
    "Send": "engine.graph",
    "StateGraph": "engine.graph",
    "StateSnapshot": "engine.graph",
    "ThreadBusyError": "engine.graph",
    "Topic": "engine.graph",
    "UntrackedValue": "engine.graph",
    "get_config": "engine.graph",
    "get_runtime": "engine.graph",
    "get_store": "engine.graph",
    "get_stream_writer": "engine.graph",
    "interrupt": "engine.graph",
    "set_route_reason": "engine.graph",
    "BaseCallbackHandler": "engine.observe.callbacks",
    "BaseTracer": "engine.observe.callbacks",
    "Run": "engine.observe.callbacks",
    "TracePolicy": "engine.observe.tracing",
    "omit_payload": "engine.observe.tracing",
}
"""Each public name and the module it lives in."""

__all__ = [
    "END",
    "START",
    "AgentState",
    "BaseCallbackHandler",
    "BaseChannel",
    "BaseTracer",
    "BinaryOperatorAggregate",
    "CheckpointError",
    "Command",
    "CompiledStateGraph",
    "DrawableGraph",
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
    "Run",
    "RunStopped",
    "RunnableConfig",
    "Runtime",
    "Send",
    "StateGraph",
    "StateSnapshot",
    "ThreadBusyError",
    "ToolNode",
    "Topic",
    "TracePolicy",
    "UntrackedValue",
    "add_messages",
    "create_agent",
    "create_react_agent",
    "entrypoint",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "omit_payload",
    "set_route_reason",
    "task",
    "tools_condition",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
