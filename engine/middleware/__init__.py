"""Agent middleware: the base class, request/response types, decorators and built-ins."""

from engine.graph.state import OmitFromInput, OmitFromOutput, PrivateStateAttr
from engine.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    hook_config,
)

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "ModelCallResult",
    "ModelRequest",
    "ModelResponse",
    "OmitFromInput",
    "OmitFromOutput",
    "PrivateStateAttr",
    "ToolCallRequest",
    "hook_config",
]
