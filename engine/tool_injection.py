"""Injected tool parameters: the markers (``InjectedState``, ``InjectedStore``,
``InjectedToolCallId``), ``ToolRuntime``, and a parameter typed ``RunnableConfig``. Such
parameters are hidden from the model's schema and filled in at call time."""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, Union, get_args, get_origin

from typing_extensions import TypeVar

from engine.core.execution import ExecutionInfo, ServerInfo

__all__ = [
    "InjectedState",
    "InjectedStore",
    "InjectedToolArg",
    "InjectedToolCallId",
    "Injection",
    "InjectionKind",
    "ToolRuntime",
    "injection_of",
]


class InjectedToolArg:
    """Marker base: a parameter filled in at call time, never shown to the model."""


class InjectedState(InjectedToolArg):
    """``Annotated[dict, InjectedState]`` (whole state) or ``InjectedState("field")``."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field

    def __repr__(self) -> str:
        return f"InjectedState({self.field!r})" if self.field else "InjectedState()"


class InjectedStore(InjectedToolArg):
    """``Annotated[BaseStore, InjectedStore()]``: the graph's store."""


class InjectedToolCallId(InjectedToolArg):
    """``Annotated[str, InjectedToolCallId]``: the id of the tool call being executed."""


ToolContextT = TypeVar("ToolContextT", default=Any)
ToolStateT = TypeVar("ToolStateT", default=Any)


def _drop(_delta: Any) -> None:
    return None


@dataclass
class ToolRuntime(Generic[ToolContextT, ToolStateT]):
    """Everything a tool may need about the run; a ``runtime: ToolRuntime`` parameter (or
    ``ToolRuntime[MyContext]``, or any parameter named ``runtime``) gets it."""

    state: ToolStateT = None  # type: ignore[assignment]
    context: ToolContextT = None  # type: ignore[assignment]
    config: dict[str, Any] = field(default_factory=dict)
    stream_writer: Callable[[Any], None] = lambda _chunk: None
    tool_call_id: str | None = None
    store: Any = None
    tools: list[Any] = field(default_factory=list)
    """The tools available to the agent (a reviewer may redirect a call to another one)."""
    execution_info: ExecutionInfo | None = None
    """The run's execution info (thread and run ids, the node's attempt), as the graph's
    ``Runtime`` gives it."""
    server_info: ServerInfo | None = None
    """The server the run is on, when it is (else None)."""

    def __post_init__(self) -> None:
        # not a field (LangChain's ToolRuntime has none such; programs list the fields)
        self.output_sink: Callable[[Any], None] = _drop
        """Where ``emit_output_delta`` sends a partial output (the run's ``tools`` stream)."""

    def emit_output_delta(self, delta: Any) -> None:
        """Stream a piece of this tool's output before it returns (a ``tool-output-delta``
        on the run's ``tools`` stream; ``ToolCallStream.output_deltas`` in a v3 run)."""
        self.output_sink(delta)


InjectionKind = Literal["state", "store", "tool_call_id", "runtime", "config"]


@dataclass(frozen=True)
class Injection:
    kind: InjectionKind
    field: str | None = None


def _is_runnable_config(annotation: Any) -> bool:
    """``RunnableConfig`` or ``RunnableConfig | None``: the call's config is passed there (the
    parameter's name does not matter, as in LangChain)."""
    from engine.core.config import RunnableConfig

    if annotation is RunnableConfig:
        return True
    args = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else ()
    return RunnableConfig in args and all(a in (RunnableConfig, type(None)) for a in args)


def injection_of(annotation: Any) -> Injection | None:
    """How a parameter with this annotation is filled in at call time; None: by the model."""
    if _is_runnable_config(annotation):
        return Injection("config")
    if get_origin(annotation) is ToolRuntime:
        return Injection("runtime")
    if annotation is ToolRuntime or (
        isinstance(annotation, type) and issubclass(annotation, ToolRuntime)
    ):
        return Injection("runtime")
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        for m in meta:
            marker = m() if isinstance(m, type) and issubclass(m, InjectedToolArg) else m
            if isinstance(marker, InjectedState):
                return Injection("state", marker.field)
            if isinstance(marker, InjectedStore):
                return Injection("store")
            if isinstance(marker, InjectedToolCallId):
                return Injection("tool_call_id")
            if isinstance(marker, InjectedToolArg):
                return Injection("runtime")
        return injection_of(base) if base is ToolRuntime else None
    return None
