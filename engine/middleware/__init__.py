"""Agent middleware: the base class, request/response types, decorators and built-ins."""

from engine.graph.runtime import Runtime
from engine.graph.state import OmitFromInput, OmitFromOutput, PrivateStateAttr
from engine.middleware import builtins as _builtins

# The built-in middleware (one module each, gathered in engine/middleware/builtins.py).
from engine.middleware.builtins import *  # noqa: F403
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
    ExtendedModelResponse,
    InputAgentState,
    JumpTo,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
    OutputAgentState,
    ToolCallRequest,
    hook_config,
)
from engine.observe.tracing import TracePolicy, configure_trace_policy, omit_payload

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "ExtendedModelResponse",
    "InputAgentState",
    "JumpTo",
    "ModelCallResult",
    "ModelRequest",
    "ModelResponse",
    "OmitFromInput",
    "OmitFromOutput",
    "OutputAgentState",
    "PrivateStateAttr",
    "Runtime",
    "ToolCallRequest",
    "TracePolicy",
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "configure_trace_policy",
    "dynamic_prompt",
    "hook_config",
    "omit_payload",
    "wrap_model_call",
    "wrap_tool_call",
]
__all__ += _builtins.__all__
