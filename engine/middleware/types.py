"""The middleware contract: ``AgentMiddleware``, ``ModelRequest``, ``ModelResponse``,
``ToolCallRequest``, ``AgentState`` and ``hook_config`` (LangChain v1's names and shapes).

Six interception points: ``before_agent``, ``before_model``, ``after_model``, ``after_agent``
(hooks: each becomes a graph node ``<name>.<hook>``) and ``wrap_model_call``,
``wrap_tool_call`` (wrappers: the first middleware in the list is the outermost layer).
Every method has an async twin (``abefore_model``, ``awrap_model_call``, ...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar

from engine.graph.channels import EphemeralValue
from engine.graph.runtime import Runtime
from engine.graph.state import OmitFromInput, PrivateStateAttr
from engine.graph.types import Command
from engine.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    add_messages,
)
from engine.tools import BaseTool, ToolRuntime
from engine.tracing import TracePolicy

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "JumpTo",
    "ModelCallResult",
    "ModelRequest",
    "ModelResponse",
    "ToolCallRequest",
    "hook_config",
    "overrides",
]

F = TypeVar("F", bound=Callable[..., Any])

HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
JumpTo = Literal["model", "tools", "end"]
JUMP_TARGETS: tuple[str, ...] = ("model", "tools", "end")
WRAPPERS = ("wrap_model_call", "wrap_tool_call")


class AgentState(TypedDict):
    """The base state of every agent."""

    messages: Annotated[list[AnyMessage], add_messages]
    jump_to: NotRequired[Annotated[str | None, EphemeralValue, PrivateStateAttr]]
    structured_response: NotRequired[Annotated[Any, OmitFromInput]]


@dataclass
class ModelRequest:
    """One model call as the model node will make it; wrappers may change it with ``override``."""

    model: Any
    messages: list[BaseMessage]
    """The conversation, without the system message."""
    system_message: SystemMessage | None = None
    tool_choice: Any = None
    tools: list[BaseTool | dict[str, Any]] = field(default_factory=list)
    response_format: Any = None
    state: Any = None
    runtime: Runtime[Any] | None = None
    model_settings: dict[str, Any] = field(default_factory=dict)

    @property
    def system_prompt(self) -> str | None:
        return self.system_message.text if self.system_message is not None else None

    def override(self, **changes: Any) -> ModelRequest:
        """A copy with some fields replaced (``system_prompt="..."`` sets the system message)."""
        if "system_prompt" in changes:
            prompt = changes.pop("system_prompt")
            changes["system_message"] = (
                SystemMessage(content=prompt) if prompt is not None else None
            )
        return dataclasses.replace(self, **changes)


@dataclass
class ModelResponse:
    """What a model call produced: the messages to add and, maybe, a structured response."""

    result: list[BaseMessage]
    structured_response: Any = None


ModelCallResult = ModelResponse | AIMessage


@dataclass
class ToolCallRequest:
    """One tool call as the tools node will execute it; ``tool`` is None for an unknown name."""

    tool_call: ToolCall
    tool: BaseTool | None
    state: Any
    runtime: ToolRuntime

    def override(self, **changes: Any) -> ToolCallRequest:
        return dataclasses.replace(self, **changes)


def hook_config(*, can_jump_to: Sequence[str] | None = None) -> Callable[[F], F]:
    """Declare where a hook may jump (``"model"``, ``"tools"``, ``"end"``)."""

    def deco(fn: F) -> F:
        fn.__can_jump_to__ = list(can_jump_to or [])  # type: ignore[attr-defined]
        return fn

    return deco


def can_jump_to(fn: Any) -> list[str]:
    return list(getattr(fn, "__can_jump_to__", []) or [])


class AgentMiddleware:
    """Base class of middleware. Override the hooks/wrappers you need (sync, async, or both)."""

    state_schema: Any = AgentState
    tools: Sequence[BaseTool] = ()
    trace_policy: TracePolicy | None = None
    """What traces record about this middleware's hooks (``engine.tracing``); None: the default."""

    @property
    def name(self) -> str:
        return type(self).__name__

    # hooks: return a state update dict (may include "jump_to"), or None
    def before_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    async def abefore_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    def after_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None

    # wrappers: call handler zero or more times.  The base versions refuse (with LangChain's
    # texts): a middleware implementing only one variant fails clearly under the other API.
    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        raise NotImplementedError(_missing_variant("wrap_model_call", sync=True))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        raise NotImplementedError(_missing_variant("wrap_model_call", sync=False))

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command]
    ) -> ToolMessage | Command:
        raise NotImplementedError(_missing_variant("wrap_tool_call", sync=True))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
    ) -> ToolMessage | Command:
        raise NotImplementedError(_missing_variant("wrap_tool_call", sync=False))

    def __repr__(self) -> str:
        return f"<middleware {self.name}>"


def _missing_variant(wrapper: str, *, sync: bool) -> str:
    """LangChain's text for a wrapper variant a middleware does not implement."""
    if sync:
        return (
            f"Synchronous implementation of {wrapper} is not available. "
            "You are likely encountering this error because you defined only the async version "
            f"(a{wrapper}) and invoked your agent in a synchronous context "
            "(e.g., using `stream()` or `invoke()`). "
            "To resolve this, either: "
            f"(1) subclass AgentMiddleware and implement the synchronous {wrapper} method, "
            f"(2) use the @{wrapper} decorator on a standalone sync function, or "
            "(3) invoke your agent asynchronously using `astream()` or `ainvoke()`."
        )
    return (
        f"Asynchronous implementation of a{wrapper} is not available. "
        "You are likely encountering this error because you defined only the sync version "
        f"({wrapper}) and invoked your agent in an asynchronous context "
        "(e.g., using `astream()` or `ainvoke()`). "
        "To resolve this, either: "
        f"(1) subclass AgentMiddleware and implement the asynchronous a{wrapper} method, "
        f"(2) use the @{wrapper} decorator on a standalone async function, or "
        "(3) invoke your agent synchronously using `stream()` or `invoke()`."
    )


def uses(m: AgentMiddleware, hook: str) -> bool:
    """True if ``m`` implements ``hook`` (e.g. ``"before_model"``) in either variant."""
    return overrides(m, hook) or overrides(m, f"a{hook}")


def overrides(m: AgentMiddleware, method: str) -> bool:
    """True if ``m``'s class (not ``AgentMiddleware``) defines ``method``."""
    base = getattr(AgentMiddleware, method, None)
    own = getattr(type(m), method, None)
    if own is None:
        return False
    inst = m.__dict__.get(method)
    if inst is not None:  # decorator-built middleware set functions on the instance
        return True
    return own is not base
