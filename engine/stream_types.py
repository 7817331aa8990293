"""The types of LangGraph's ``version="v2"`` run output (``langgraph.types`` has them; a
program ported by imports finds them in ``engine.types`` too): the typed parts ``stream`` /
``astream`` yield (``StreamPart``: one ``TypedDict`` per stream mode, with the payloads of the
``tasks``, ``checkpoints`` and ``debug`` modes) and ``GraphOutput``, what ``invoke`` /
``ainvoke`` return.  ``engine.graph.stream_parts`` makes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, NotRequired, TypeAlias, TypedDict, TypeVar

from engine.types import Interrupt
from engine.warnings import LangGraphDeprecatedSinceV11

__all__ = [
    "CheckpointPayload",
    "CheckpointStreamPart",
    "CheckpointTask",
    "CustomStreamPart",
    "DebugPayload",
    "DebugStreamPart",
    "GraphOutput",
    "MessagesStreamPart",
    "StreamPart",
    "TaskPayload",
    "TaskResultPayload",
    "TasksStreamPart",
    "UpdatesStreamPart",
    "ValuesStreamPart",
]

OutputT = TypeVar("OutputT")
StateT = TypeVar("StateT")

_INTERRUPT_KEY = "__interrupt__"


class TaskPayload(TypedDict):
    """A task starting (``tasks`` mode): its id, node, input and what triggered it."""

    id: str
    name: str
    input: Any
    triggers: list[str]


class TaskResultPayload(TypedDict):
    """A task's result (``tasks`` mode): its writes, or its error, and its interrupts."""

    id: str
    name: str
    error: str | None
    interrupts: list[dict[str, Any]]
    result: dict[str, Any]


class CheckpointTask(TypedDict):
    """A task of a checkpoint (``checkpoints`` mode): pending, done or failed."""

    id: str
    name: str
    error: NotRequired[str]
    result: NotRequired[Any]
    interrupts: NotRequired[list[dict[str, Any]]]
    state: Any


class CheckpointPayload(TypedDict, Generic[StateT]):
    """A saved checkpoint (``checkpoints`` mode): its config, metadata, state values, the
    nodes due next and their tasks."""

    config: dict[str, Any] | None
    metadata: dict[str, Any]
    values: StateT
    next: list[str]
    parent_config: dict[str, Any] | None
    tasks: list[CheckpointTask]


class _DebugCheckpoint(TypedDict, Generic[StateT]):
    step: int
    timestamp: str
    type: Literal["checkpoint"]
    payload: CheckpointPayload[StateT]


class _DebugTask(TypedDict):
    step: int
    timestamp: str
    type: Literal["task"]
    payload: TaskPayload


class _DebugTaskResult(TypedDict):
    step: int
    timestamp: str
    type: Literal["task_result"]
    payload: TaskResultPayload


DebugPayload: TypeAlias = _DebugCheckpoint[Any] | _DebugTask | _DebugTaskResult
"""A ``debug`` chunk: a checkpoint, a task or a task result, with its step and time."""


class ValuesStreamPart(TypedDict, Generic[OutputT]):
    """A ``values`` part of a ``version="v2"`` stream: the graph's state after a step, and the
    interrupts the step stopped at (no longer a ``__interrupt__`` key of the state)."""

    type: Literal["values"]
    ns: tuple[str, ...]
    data: OutputT
    interrupts: tuple[Interrupt, ...]


class UpdatesStreamPart(TypedDict):
    """An ``updates`` part: ``{node: what it wrote}`` (or ``{"__interrupt__": (...)}``)."""

    type: Literal["updates"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class MessagesStreamPart(TypedDict):
    """A ``messages`` part: ``(message chunk, its metadata)``."""

    type: Literal["messages"]
    ns: tuple[str, ...]
    data: tuple[Any, dict[str, Any]]


class CustomStreamPart(TypedDict):
    """A ``custom`` part: what a node gave its stream writer."""

    type: Literal["custom"]
    ns: tuple[str, ...]
    data: Any


class CheckpointStreamPart(TypedDict, Generic[StateT]):
    """A ``checkpoints`` part: a saved checkpoint (its ``values`` as the state schema)."""

    type: Literal["checkpoints"]
    ns: tuple[str, ...]
    data: CheckpointPayload[StateT]


class TasksStreamPart(TypedDict):
    """A ``tasks`` part: a task starting (``input``, ``triggers``) or its result."""

    type: Literal["tasks"]
    ns: tuple[str, ...]
    data: TaskPayload | TaskResultPayload


class DebugStreamPart(TypedDict, Generic[StateT]):
    """A ``debug`` part: a checkpoint, a task or a task result, wrapped with its step."""

    type: Literal["debug"]
    ns: tuple[str, ...]
    data: DebugPayload


StreamPart: TypeAlias = (
    ValuesStreamPart[Any]
    | UpdatesStreamPart
    | MessagesStreamPart
    | CustomStreamPart
    | CheckpointStreamPart[Any]
    | TasksStreamPart
    | DebugStreamPart[Any]
)
"""What ``stream`` / ``astream`` yield with ``version="v2"``: a dict whose ``type`` names its
stream mode, ``ns`` the graph it came from (``()`` for the root), ``data`` the chunk."""


@dataclass(frozen=True)
class GraphOutput(Generic[OutputT]):
    """What ``invoke`` / ``ainvoke`` return with ``version="v2"``: the graph's output
    (``value``, as its output schema: a pydantic model or dataclass state comes back as one)
    and the interrupts the run stopped at."""

    value: OutputT
    interrupts: tuple[Interrupt, ...] = ()

    def __getitem__(self, key: str) -> Any:
        """The v1 way to read it (``out["x"]``, ``out["__interrupt__"]``), deprecated."""
        _warn_dict_access()
        if key == _INTERRUPT_KEY:
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        _warn_dict_access()
        if key == _INTERRUPT_KEY:
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


def _warn_dict_access() -> None:
    import warnings

    warnings.warn(
        "Reading a GraphOutput as a dict (`result[key]`, `key in result`) is deprecated: "
        "read `result.value` for the output and `result.interrupts` for the interrupts",
        LangGraphDeprecatedSinceV11,
        stacklevel=3,
    )
