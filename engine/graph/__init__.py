"""The graph runtime: LangGraph-compatible state graphs run as Pregel supersteps."""

from engine.graph.builder import StateGraph
from engine.graph.channels import (
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
)
from engine.graph.channels_delta import DeltaChannel
from engine.graph.compiled import CompiledStateGraph, RunStopped
from engine.graph.config_types import RunnableConfig
from engine.graph.drawing import DrawableGraph
from engine.graph.errors import (
    CheckpointError,
    EmptyChannelError,
    EmptyInputError,
    GraphInterrupt,
    GraphRecursionError,
    InvalidUpdateError,
    NodeInterrupt,
    ParentCommand,
    ThreadBusyError,
)
from engine.graph.message_log import MessageList
from engine.graph.message_state import MessagesState
from engine.graph.runtime import (
    Runtime,
    get_config,
    get_runtime,
    get_store,
    get_stream_writer,
    interrupt,
    set_route_reason,
)
from engine.graph.state import OmitFromInput, OmitFromOutput, PrivateStateAttr
from engine.graph.types import (
    END,
    START,
    Command,
    Interrupt,
    PregelTask,
    RetryPolicy,
    Send,
    StateSnapshot,
)

__all__ = [
    "END",
    "START",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "CheckpointError",
    "Command",
    "CompiledStateGraph",
    "DeltaChannel",
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
    "MessagesState",
    "NamedBarrierValue",
    "NodeInterrupt",
    "OmitFromInput",
    "OmitFromOutput",
    "ParentCommand",
    "PregelTask",
    "PrivateStateAttr",
    "RetryPolicy",
    "RunStopped",
    "RunnableConfig",
    "Runtime",
    "Send",
    "StateGraph",
    "StateSnapshot",
    "ThreadBusyError",
    "Topic",
    "UntrackedValue",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "set_route_reason",
]
