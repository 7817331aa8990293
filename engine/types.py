"""Public value types of the graph runtime: Send, Command, Interrupt, RetryPolicy, snapshots."""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, NamedTuple, TypeAlias, TypeVar

from engine import serde

__all__ = [
    "END",
    "START",
    "Command",
    "Durability",
    "Interrupt",
    "Overwrite",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
    "StateUpdate",
    "StreamMode",
    "StreamWriter",
    "TimeoutLike",
    "TimeoutPolicy",
    "coerce_timeout",
    "default_retry_on",
]

START = "__start__"
END = "__end__"

Durability = Literal["sync", "async", "exit"]
"""How a run saves its checkpoints: at each step before the next (``sync``), while the next
runs (``async``), or once at the end (``exit``)."""

StreamMode = Literal[
    "values", "updates", "messages", "custom", "tasks", "checkpoints", "debug", "tools"
]


class Send:
    """A packet for a node: in the next superstep ``node`` runs once with ``arg`` as its input."""

    __slots__ = ("arg", "node", "timeout")

    def __init__(self, node: str, arg: Any, *, timeout: Any = None) -> None:
        self.node = node
        self.arg = arg
        self.timeout: TimeoutPolicy | None = coerce_timeout(timeout)
        """This task's own timeout (a ``TimeoutPolicy`` or seconds), over the node's."""

    def __repr__(self) -> str:
        extra = f", timeout={self.timeout!r}" if self.timeout is not None else ""
        return f"Send(node={self.node!r}, arg={self.arg!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Send)
            and self.node == other.node
            and self.arg == other.arg
            and self.timeout == other.timeout
        )

    def __hash__(self) -> int:
        return hash((self.node, repr(self.arg)))


N = TypeVar("N", bound=str)
"""The node names a ``Command[Literal["a", "b"]]`` may route to (read by the graph builder)."""


@dataclass
class Command(Generic[N]):
    """Update state and/or route from a node, or resume an interrupted run.

    ``update``: like a dict return.  ``goto``: a node name, a ``Send``, or a list of either.
    ``resume``: the value(s) handed to pending ``interrupt()`` calls (a plain value, or a map
    ``{interrupt_id: value}``).  ``graph=Command.PARENT`` sends the command to the parent graph.
    """

    graph: str | None = None
    update: Any = None
    resume: Any = None
    goto: str | Send | Sequence[str | Send] = ()

    PARENT: ClassVar[str] = "__parent__"

    def goto_list(self) -> list[str | Send]:
        if isinstance(self.goto, str | Send):
            return [self.goto]
        return list(self.goto or ())

    def __repr__(self) -> str:
        parts = [
            f"{k}={v!r}"
            for k, v in (("graph", self.graph), ("update", self.update), ("resume", self.resume))
            if v is not None
        ]
        if self.goto:
            parts.append(f"goto={self.goto!r}")
        return f"Command({', '.join(parts)})"


@dataclass(frozen=True)
class Interrupt:
    """A pause requested by ``interrupt(value)``; resume it with ``Command(resume=...)``."""

    value: Any
    id: str = ""
    response_schema: Any = field(default=None, kw_only=True)
    """JSON Schema of the value expected on resume (from ``interrupt(response_schema=)``)."""

    def __repr__(self) -> str:
        return (
            f"Interrupt(value={self.value!r}, id={self.id!r}, "
            f"response_schema={self.response_schema!r})"
        )


@dataclass(slots=True)
class Overwrite:
    """Write ``value`` to a reducer channel as-is, bypassing the reducer."""

    value: Any

    @property
    def type(self) -> str:
        """The marker LangGraph's ``Overwrite`` carries (its JSON form's key)."""
        return "__overwrite__"

    def __repr__(self) -> str:  # as LangGraph's prints it
        return f"Overwrite(value={self.value!r}, type='__overwrite__')"


class StateUpdate(NamedTuple):
    """One update of ``bulk_update_state``: values written as if by node ``as_node``."""

    values: dict[str, Any] | None
    as_node: str | None = None
    task_id: str | None = None


def default_retry_on(exc: BaseException) -> bool:
    """Retry most errors, but not programming errors (like LangGraph's default)."""
    if isinstance(
        exc,
        ValueError
        | TypeError
        | ArithmeticError
        | ImportError
        | LookupError
        | NameError
        | SyntaxError
        | RuntimeError
        | ReferenceError
        | StopIteration
        | StopAsyncIteration
        | OSError,
    ):
        return isinstance(exc, ConnectionError | TimeoutError)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status >= 500
    return True


@dataclass
class RetryPolicy:
    """Retry a node inside its task. ``max_attempts`` counts the first call."""

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: (
        type[BaseException] | Sequence[type[BaseException]] | Callable[[BaseException], bool]
    ) = field(default=default_retry_on)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if self.initial_interval < 0 or self.max_interval < 0:
            raise ValueError("intervals must be >= 0")

    def should_retry(self, exc: BaseException) -> bool:
        rule = self.retry_on
        if isinstance(rule, type) and issubclass(rule, BaseException):
            return isinstance(exc, rule)
        if isinstance(rule, Sequence):
            return isinstance(exc, tuple(rule))
        return bool(rule(exc))

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        base = min(self.max_interval, self.initial_interval * self.backoff_factor ** (attempt - 1))
        return base + (random.uniform(0, 1) if self.jitter else 0.0)


@dataclass(frozen=True)
class TimeoutPolicy:
    """Limits on one node attempt: ``run_timeout`` (wall clock, seconds) and
    ``idle_timeout`` (seconds without progress: stream writes or ``runtime.heartbeat()``)."""

    run_timeout: float | None = None
    idle_timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("run_timeout", "idle_timeout"):
            v = getattr(self, name)
            if isinstance(v, dt.timedelta):
                object.__setattr__(self, name, v.total_seconds())
                v = getattr(self, name)
            if v is not None and v <= 0:
                raise ValueError(f"{name} must be > 0")


TimeoutLike: TypeAlias = "float | dt.timedelta | TimeoutPolicy | None"
"""What ``timeout=`` accepts (nodes, tasks, entrypoints): seconds, a ``timedelta`` or a policy."""


def coerce_timeout(value: TimeoutLike) -> TimeoutPolicy | None:
    """A number or ``timedelta`` is a wall-clock ``run_timeout``."""
    if value is None or isinstance(value, TimeoutPolicy):
        return value
    if isinstance(value, dt.timedelta):
        return TimeoutPolicy(run_timeout=value.total_seconds())
    return TimeoutPolicy(run_timeout=float(value))


class PregelTask(NamedTuple):
    id: str
    name: str
    path: tuple[Any, ...]
    error: Exception | None = None
    interrupts: tuple[Interrupt, ...] = ()
    state: Any = None
    result: Any = None


class StateSnapshot(NamedTuple):
    """The state of a thread at one checkpoint (``get_state`` / ``get_state_history``)."""

    values: dict[str, Any] | Any
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: dict[str, Any] | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Interrupt, ...] = ()


# JSON codecs so these values can live in state, pending writes and sessions
serde.register_codec(
    Send,
    "send",
    lambda s: {
        "node": s.node,
        "arg": serde.encode(s.arg),
        **({"timeout": dataclasses.asdict(s.timeout)} if s.timeout is not None else {}),
    },
    lambda v: Send(
        v["node"],
        serde.decode(v["arg"]),
        timeout=TimeoutPolicy(**v["timeout"]) if v.get("timeout") else None,
    ),
)
serde.register_codec(
    Interrupt,
    "interrupt",
    lambda i: {
        "value": serde.encode(i.value),
        "id": i.id,
        **({"schema": i.response_schema} if isinstance(i.response_schema, dict) else {}),
    },
    lambda v: Interrupt(serde.decode(v["value"]), v["id"], response_schema=v.get("schema")),
)
serde.register_codec(
    Overwrite,
    "overwrite",
    lambda o: {"value": serde.encode(o.value)},
    lambda v: Overwrite(serde.decode(v["value"])),
)
serde.register_codec(
    Command,
    "command",
    lambda c: {
        "graph": c.graph,
        "update": serde.encode(c.update),
        "resume": serde.encode(c.resume),
        "goto": serde.encode(c.goto_list()),
    },
    lambda v: Command(
        graph=v["graph"],
        update=serde.decode(v["update"]),
        resume=serde.decode(v["resume"]),
        goto=serde.decode(v["goto"]),
    ),
)


StreamWriter: TypeAlias = Callable[[Any], None]
"""What ``get_stream_writer()`` returns: a callable that sends one chunk to the ``custom``
stream mode."""

_STREAM_TYPES = (
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
)

_DEFINED_ABOVE = {
    "interrupt": "engine.graph.runtime",
    "CachePolicy": "engine.cache",
    **dict.fromkeys(_STREAM_TYPES, "engine.stream_types"),
}
"""Names LangGraph's ``langgraph.types`` offers whose home is elsewhere (the runtime, the
cache, the v2 output types of ``engine.stream_types``, which use ``Interrupt``): a program
ported by imports finds them here, looked up on first use."""


def __getattr__(name: str) -> Any:
    home = _DEFINED_ABOVE.get(name)
    if home is None:
        raise AttributeError(f"module 'engine.types' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
