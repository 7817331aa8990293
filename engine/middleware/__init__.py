"""Agent middleware: the base class, request/response types, decorators and built-ins."""

from engine.graph.state import OmitFromInput, OmitFromOutput, PrivateStateAttr
from engine.middleware.decorators import (
    after_agent,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from engine.middleware.types import (
    AgentMiddleware,
    AgentState,
    JumpTo,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    hook_config,
)

# Built-in middleware (one module each in engine/middleware/) are exported below this line
# as they are added, e.g. ``from engine.middleware.retry import ModelRetryMiddleware``.

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "JumpTo",
    "ModelCallResult",
    "ModelRequest",
    "ModelResponse",
    "OmitFromInput",
    "OmitFromOutput",
    "PrivateStateAttr",
    "ToolCallRequest",
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "dynamic_prompt",
    "hook_config",
    "wrap_model_call",
    "wrap_tool_call",
]
