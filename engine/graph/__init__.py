"""The graph runtime: LangGraph-compatible state graphs run as Pregel supersteps."""

from engine.core.config import RunnableConfig
from engine.errors import (
    CheckpointError,
    EmptyChannelError,
    EmptyInputError,
    GraphInterrupt,
    GraphRecursionError,
    InvalidUpdateError,
    NodeInterrupt,
    ParentCommand,
    ThreadBusyError,
    is_invalid_resume,
)
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
from engine.graph.drawing import DrawableGraph
from engine.graph.managed import IsLastStep, RemainingSteps
from engine.graph.message_push import push_message
from engine.graph.pregel_api import NodeBuilder, Pregel
from engine.graph.run_stream import (
    AsyncGraphRunStream,
    ChatModelStream,
    GraphRunStream,
    MessagesTransformer,
    ProtocolEvent,
    StreamChannel,
    StreamTransformer,
    SubgraphRunStream,
    SubgraphTransformer,
    ValuesTransformer,
)
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
from engine.message_log import MessageList
from engine.messages import MessagesState, add_messages
from engine.types import (
    END,
    START,
    Command,
    Interrupt,
    Overwrite,
    PregelTask,
    RetryPolicy,
    Send,
    StateSnapshot,
    StateUpdate,
)

__all__ = [
    "END",
    "START",
    "AsyncGraphRunStream",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "ChatModelStream",
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
    "GraphRunStream",
    "Interrupt",
    "InvalidUpdateError",
    "IsLastStep",
    "LastValue",
    "MessageList",
    "MessagesState",
    "MessagesTransformer",
    "NamedBarrierValue",
    "NodeBuilder",
    "NodeInterrupt",
    "OmitFromInput",
    "OmitFromOutput",
    "Overwrite",
    "ParentCommand",
    "Pregel",
    "PregelTask",
    "PrivateStateAttr",
    "ProtocolEvent",
    "RemainingSteps",
    "RetryPolicy",
    "RunStopped",
    "RunnableConfig",
    "Runtime",
    "Send",
    "StateGraph",
    "StateSnapshot",
    "StateUpdate",
    "StreamChannel",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphTransformer",
    "ThreadBusyError",
    "Topic",
    "UntrackedValue",
    "ValuesTransformer",
    "add_messages",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "is_invalid_resume",
    "push_message",
    "set_route_reason",
]
