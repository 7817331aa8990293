"""Errors raised by the graph runtime (names and messages follow LangGraph)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.types import Command, Interrupt

__all__ = [
    "AgentLoadError",
    "CheckpointError",
    "EmptyChannelError",
    "EmptyInputError",
    "ErrorCode",
    "GraphBubbleUp",
    "GraphDrained",
    "GraphInterrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
    "NodeCancelledError",
    "NodeError",
    "NodeInterrupt",
    "NodeTimeoutError",
    "ParentCommand",
    "RunStopped",
    "ThreadBusyError",
    "create_error_message",
    "is_invalid_resume",
    "mark_invalid_resume",
    "one_line",
]


class AgentLoadError(Exception):
    """An agent could not be loaded; ``str(error)`` is one line saying where and why."""


class RunStopped(Exception):
    """The run was stopped on request (debugger ``stop``); the last checkpoint is intact."""


class GraphBubbleUp(Exception):
    """Base of control-flow exceptions that travel up through nodes untouched."""


class GraphInterrupt(GraphBubbleUp):
    """The run paused: ``args[0]`` holds the ``Interrupt``s (empty for static breakpoints)."""

    shown: bool = False
    """True once the task that called ``interrupt()`` emitted their ``interrupt.raised``: the
    node of an enclosing graph this one was called from re-raises them without another event
    (it ends ``interrupted``, which says it waits)."""

    def __init__(self, interrupts: Sequence[Interrupt] = ()) -> None:
        super().__init__(tuple(interrupts))

    @property
    def interrupts(self) -> tuple[Interrupt, ...]:
        return tuple(self.args[0]) if self.args else ()


NodeInterrupt = GraphInterrupt


class ParentCommand(GraphBubbleUp):
    """A ``Command(graph=Command.PARENT)`` on its way to the parent graph."""

    def __init__(self, command: Command) -> None:
        super().__init__(command)

    @property
    def command(self) -> Command:
        return self.args[0]


class GraphRecursionError(RecursionError):
    """The recursion limit was reached."""


class InvalidUpdateError(Exception):
    """A node wrote something the state cannot take."""


class EmptyInputError(Exception):
    """A run was started with no input and nothing to resume."""


class EmptyChannelError(Exception):
    """Reading a channel that holds no value."""


class ThreadBusyError(RuntimeError):
    """Another run is already using this thread."""


class CheckpointError(Exception):
    """A stored checkpoint cannot be read (unknown schema version or corrupt data)."""

    def __init__(
        self, message: str, *, thread_id: str | None = None, checkpoint_id: str | None = None
    ) -> None:
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        super().__init__(message)


class GraphDrained(GraphBubbleUp):
    """The run stopped at a superstep boundary because ``RunControl.request_drain()`` was
    called; the checkpoint is saved and the thread can be resumed."""

    def __init__(self, reason: str = "shutdown") -> None:
        self.reason = reason
        super().__init__(f"Graph drained: {reason}")


@dataclass(frozen=True, slots=True)
class NodeError:
    """What an ``error_handler`` receives (as a parameter annotated ``NodeError``)."""

    node: str
    error: BaseException


class NodeCancelledError(Exception):
    """A node raised ``asyncio.CancelledError`` itself: reported as a node failure."""

    def __init__(self, node: str, message: str | None = None) -> None:
        super().__init__(message or f"Node {node!r} raised asyncio.CancelledError")
        self.node = node


class NodeTimeoutError(Exception):
    """A node attempt ran longer than its ``TimeoutPolicy`` allows (retryable by default)."""

    def __init__(
        self,
        node: str,
        timeout: float,
        *,
        kind: str = "run",
        run_timeout: float | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        super().__init__(f"Node {node!r} timed out after {timeout}s ({kind} timeout)")
        self.node = node
        self.timeout = timeout
        self.elapsed = timeout
        self.kind = kind
        """Which limit fired, as LangGraph names it: ``"run"`` or ``"idle"``."""
        self.run_timeout = run_timeout
        self.idle_timeout = idle_timeout


_INVALID_RESUME_FLAG = "_stepwise_invalid_resume"


def mark_invalid_resume(error: BaseException) -> None:
    """Tag a validation error raised because a resume value did not fit ``response_schema``."""
    setattr(error, _INVALID_RESUME_FLAG, True)


class ErrorCode(Enum):
    """The codes of the errors LangGraph's docs explain, one page each."""

    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


def create_error_message(*, message: str, error_code: ErrorCode) -> str:
    """``message`` followed, on a line of its own, by where LangGraph's docs explain it (as
    LangGraph words its errors)."""
    return (
        f"{message}\nFor troubleshooting, visit: "
        f"https://docs.langchain.com/oss/python/langgraph/errors/{error_code.value}"
    )


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` rejected a resume value that did not match the interrupt's schema."""
    return bool(getattr(error, _INVALID_RESUME_FLAG, False))


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message``, for a status bar or a terminal."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
