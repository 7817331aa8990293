"""The middleware contract: ``AgentMiddleware``, ``ModelRequest``, ``ModelResponse``,
``ToolCallRequest``, ``AgentState`` and ``hook_config`` (LangChain v1's names and shapes).

Six interception points: ``before_agent``, ``before_model``, ``after_model``, ``after_agent``
(hooks: each becomes a graph node ``<name>.<hook>``) and ``wrap_model_call``,
``wrap_tool_call`` (wrappers: the first middleware in the list is the outermost layer).
Every method has an async twin (``abefore_model``, ``awrap_model_call``, ...).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, NotRequired, Required

from typing_extensions import TypedDict, TypeVar

from engine.graph.channels import EphemeralValue
from engine.graph.runtime import Runtime
from engine.graph.state import OmitFromInput, PrivateStateAttr
from engine.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
    add_messages,
)
from engine.observe.tracing import TracePolicy
from engine.tools import BaseTool
from engine.tools.tool_node import ToolCallRequest
from engine.types import Command

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "ContextT",
    "ExtendedModelResponse",
    "InputAgentState",
    "JumpTo",
    "ModelCallResult",
    "ModelRequest",
    "ModelResponse",
    "OutputAgentState",
    "ResponseT",
    "StateT",
    "StateT_co",
    "ToolCallRequest",
    "hook_config",
    "overrides",
]

F = TypeVar("F", bound=Callable[..., Any])
ResponseT = TypeVar("ResponseT", default=Any)
"""The type of an agent's structured response (``AgentState[MyAnswer]``)."""
ContextT = TypeVar("ContextT", default=Any)
"""The type of the run's context (``ModelRequest[MyContext]``, ``Runtime[MyContext]``)."""

HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
JumpTo = Literal["model", "tools", "end"]
JUMP_TARGETS: tuple[str, ...] = ("model", "tools", "end")
WRAPPERS = ("wrap_model_call", "wrap_tool_call")


class AgentState(TypedDict, Generic[ResponseT]):
    """The base state of every agent (``AgentState[T]``: ``structured_response`` is a T)."""

    messages: Required[Annotated[list[AnyMessage], add_messages]]
    jump_to: NotRequired[Annotated[JumpTo | None, EphemeralValue, PrivateStateAttr]]
    structured_response: NotRequired[Annotated[ResponseT, OmitFromInput]]


class InputAgentState(TypedDict):
    """What an agent accepts as input: the messages (objects or dicts)."""

    messages: Required[Annotated[list[AnyMessage | dict[str, Any]], add_messages]]


class OutputAgentState(TypedDict, Generic[ResponseT]):
    """What an agent returns: the messages and, with a response format, the parsed answer."""

    messages: Required[Annotated[list[AnyMessage], add_messages]]
    structured_response: NotRequired[ResponseT]


StateT = TypeVar("StateT", bound=AgentState[Any], default=AgentState[Any])
StateT_co = TypeVar("StateT_co", bound=AgentState[Any], default=AgentState[Any], covariant=True)

_SYSTEM_PROMPT_SETATTR = (
    "Direct attribute assignment to ModelRequest.system_prompt is deprecated. "
    "Use request.override(system_message=SystemMessage(...)) instead."
)
_BOTH_PROMPTS = "Cannot specify both system_prompt and system_message"


@dataclass(init=False)
class ModelRequest(Generic[ContextT]):
    """One model call as the model node will make it; wrappers may change it with ``override``.

    ``system_prompt=`` (a string) is accepted wherever ``system_message=`` is, but not both.
    Assigning attributes directly still works and warns (``DeprecationWarning``): prefer
    ``override``, which returns a changed copy.
    """

    model: Any
    messages: list[BaseMessage]
    """The conversation, without the system message."""
    system_message: SystemMessage | None
    tool_choice: Any
    tools: list[BaseTool | dict[str, Any]]
    response_format: Any
    state: Any
    runtime: Runtime[ContextT] | None
    model_settings: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        *,
        model: Any,
        messages: list[BaseMessage],
        system_message: SystemMessage | None = None,
        system_prompt: str | None = None,
        tool_choice: Any = None,
        tools: list[BaseTool | dict[str, Any]] | None = None,
        response_format: Any = None,
        state: Any = None,
        runtime: Runtime[ContextT] | None = None,
        model_settings: dict[str, Any] | None = None,
    ) -> None:
        if system_prompt is not None and system_message is not None:
            raise ValueError(_BOTH_PROMPTS)
        if system_prompt is not None:
            system_message = SystemMessage(content=system_prompt)
        init = object.__setattr__
        init(self, "model", model)
        init(self, "messages", messages)
        init(self, "system_message", system_message)
        init(self, "tool_choice", tool_choice)
        init(self, "tools", tools if tools is not None else [])
        init(self, "response_format", response_format)
        init(self, "state", state if state is not None else {"messages": []})
        init(self, "runtime", runtime)
        init(self, "model_settings", model_settings if model_settings is not None else {})

    @property
    def system_prompt(self) -> str | None:
        """The system message's text (None without a system message)."""
        return self.system_message.text if self.system_message is not None else None

    @system_prompt.setter
    def system_prompt(self, value: str | None) -> None:
        self.system_message = None if value is None else SystemMessage(content=value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "system_prompt":
            warnings.warn(_SYSTEM_PROMPT_SETATTR, DeprecationWarning, stacklevel=2)
            object.__setattr__(
                self, "system_message", None if value is None else SystemMessage(content=value)
            )
            return
        warnings.warn(
            f"Direct attribute assignment to ModelRequest.{name} is deprecated. "
            f"Use request.override({name}=...) instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        object.__setattr__(self, name, value)

    def override(self, **changes: Any) -> ModelRequest[ContextT]:
        """A copy with some fields replaced (``system_prompt="..."`` sets the system message)."""
        if "system_prompt" in changes and "system_message" in changes:
            raise ValueError(_BOTH_PROMPTS)
        if "system_prompt" in changes:
            prompt = changes.pop("system_prompt")
            changes["system_message"] = (
                SystemMessage(content=prompt) if prompt is not None else None
            )
        return dataclasses.replace(self, **changes)


@dataclass
class ModelResponse(Generic[ResponseT]):
    """What a model call produced: the messages to add and, maybe, a structured response."""

    result: list[BaseMessage]
    structured_response: ResponseT | None = None


@dataclass
class ExtendedModelResponse(Generic[ResponseT]):
    """A ``wrap_model_call`` result carrying a state update alongside the model's response.

    ``command.update`` is applied after the model node's own update, through the state's
    reducers (messages in it are added next to the response's).  ``goto``, ``resume`` and
    ``graph`` are not supported on this command (``NotImplementedError``).
    """

    model_response: ModelResponse[ResponseT]
    command: Command[Any] | None = None


ModelCallResult = ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]


def hook_config(*, can_jump_to: Sequence[str] | None = None) -> Callable[[F], F]:
    """Declare where a hook may jump (``"model"``, ``"tools"``, ``"end"``)."""

    def deco(fn: F) -> F:
        fn.__can_jump_to__ = list(can_jump_to or [])  # type: ignore[attr-defined]
        return fn

    return deco


def can_jump_to(fn: Any) -> list[str]:
    return list(getattr(fn, "__can_jump_to__", []) or [])


class AgentMiddleware(Generic[StateT, ContextT, ResponseT]):
    """Base class of middleware. Override the hooks/wrappers you need (sync, async, or both).

    ``AgentMiddleware[MyState, MyContext, MyResponse]`` only informs type checkers.
    """

    state_schema: Any = AgentState
    tools: Sequence[BaseTool] = ()
    transformers: Sequence[Any] = ()
    """Stream transformer factories this middleware adds to ``stream_events(version="v3")``
    runs of its agent (``engine.graph.run_stream``)."""
    trace_policy: TracePolicy | None = None
    """What traces record about this middleware's hooks (``engine.observe.tracing``); None: the default."""

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
