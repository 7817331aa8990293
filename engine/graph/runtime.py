"""What running code can reach: ``Runtime``, ``interrupt()``, ``get_config()``, stream writers.

The loop sets two context variables: the *run* (one per invocation) and the *task* (one per
node execution).  Context variables follow asyncio tasks and ``asyncio.to_thread``, so sync
nodes on worker threads see the same values.
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engine.core.context import RUN, TASK
from engine.core.execution import ExecutionInfo, RunControl, ServerInfo
from engine.core.ids import deterministic_id
from engine.errors import GraphInterrupt, mark_invalid_resume
from engine.observe.bus import RunEmitter
from engine.types import Interrupt

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.observe.gate import Gate

__all__ = [
    "DEFAULT_RUNTIME",
    "ExecutionInfo",
    "RunControl",
    "Runtime",
    "ServerInfo",
    "current_run",
    "current_task",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "model_for",
    "set_route_reason",
]

ContextT = TypeVar("ContextT")


def _no_op_writer(_chunk: Any) -> None:
    return None


def _no_op_heartbeat() -> None:
    return None


@dataclass
class Runtime(Generic[ContextT]):
    """Run-scoped values a node can ask for with a ``runtime`` parameter."""

    context: ContextT = None  # type: ignore[assignment]
    store: Any = None
    stream_writer: Callable[[Any], None] = _no_op_writer
    previous: Any = None
    execution_info: ExecutionInfo | None = None
    server_info: ServerInfo | None = None
    control: RunControl | None = None
    heartbeat: Callable[[], None] = _no_op_heartbeat

    def merge(self, other: Runtime[ContextT]) -> Runtime[ContextT]:
        """``other``'s values where it has them, else this runtime's."""
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=other.stream_writer
            if other.stream_writer is not _no_op_writer
            else self.stream_writer,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
            heartbeat=other.heartbeat
            if other.heartbeat is not _no_op_heartbeat
            else self.heartbeat,
        )

    def override(self, **overrides: Any) -> Runtime[ContextT]:
        return dataclasses.replace(self, **overrides)

    def patch_execution_info(self, **overrides: Any) -> Runtime[ContextT]:
        if self.execution_info is None:
            raise RuntimeError("Cannot patch execution_info before it has been set")
        return dataclasses.replace(self, execution_info=self.execution_info.patch(**overrides))

    @property
    def drain_requested(self) -> bool:
        return self.control.drain_requested if self.control is not None else False

    @property
    def drain_reason(self) -> str | None:
        return self.control.drain_reason if self.control is not None else None


DEFAULT_RUNTIME: Runtime[Any] = Runtime()


class _NullResume:
    """The run's plain ``Command(resume=v)``: one interrupt may take it."""

    __slots__ = ("consumed", "present", "value")

    def __init__(self, present: bool = False, value: Any = None) -> None:
        self.present = present
        self.value = value
        self.consumed = False


@dataclass
class RunContext:
    """One invocation: its emitter, stream sink, store, context and flags."""

    run_id: str
    emitter: RunEmitter
    store: Any = None
    context: Any = None
    checkpointer: BaseCheckpointSaver | None = None
    debugger: Gate | None = None
    sync_call: bool = False
    """True when the user called a sync API (``invoke``/``stream``): async-only hooks must refuse."""
    stream: Callable[[str, Any, str], None] | None = None
    """``stream(mode, chunk, ns)``; None when nobody streams."""
    stream_modes: frozenset[str] = frozenset()
    streams_nested: bool = True
    """Do nested graphs' chunks reach ``stream``?  Not for ``stream(..., subgraphs=False)``:
    as in LangGraph, a subgraph's (or a graph a node runs) model tokens and custom data are
    then not streamed, nor taken as streamed."""
    null_resume: _NullResume = field(default_factory=_NullResume)
    resume_map: dict[str, Any] | None = None
    streamed_message_ids: set[str] = field(default_factory=set)
    loop: Any = None
    """The root ``PregelLoop`` (the debugger reads the live state through it)."""
    control: RunControl | None = None
    """``invoke(..., control=RunControl())``: a drain request stops the run between steps."""
    pace: Callable[[], Awaitable[None]] | None = None
    """A stream consumer's pace (``astream``/``stream``): awaited before the root graph runs a
    task, it returns once the consumer has taken every chunk so far and asked for more, so the
    run does not go ahead of what was consumed (as LangGraph's streams, which run the next
    tasks when asked for the next chunk)."""
    model_override: Any = None
    """A chat model the agent's model calls use instead of their own for this run
    (``config["configurable"]["model_override"]``): how a replay serves recorded responses."""

    def wants(self, mode: str) -> bool:
        return mode in self.stream_modes

    def committed_state(self) -> dict[str, Any] | None:
        """The state values after the last superstep (what a debugger's condition reads)."""
        return None if self.loop is None else self.loop._values()

    def push(self, mode: str, chunk: Any, ns: str = "") -> None:
        """Send a chunk to ``astream`` consumers (call on the run's event-loop thread)."""
        if self.stream is not None and mode in self.stream_modes:
            self.stream(mode, chunk, ns)

    def push_any_thread(self, mode: str, chunk: Any, ns: str = "") -> None:
        """``push`` from any thread (sync code on worker threads hands the chunk to the loop)."""
        if self.stream is None or mode not in self.stream_modes:
            return
        # the loop running this run's current task: a nested graph a sync node runs on a
        # helper thread has a loop of its own there (its parent's loop is blocked meanwhile)
        task = _TASK.get()
        home = task.loop if task is not None and task.run is self else None
        if home is not None and getattr(home, "_aio_loop", None) is not None:
            thread, loop, inbox = home._loop_thread, home._aio_loop, None
        else:
            em = self.emitter
            thread, loop, inbox = em.loop_thread, em.loop, em.inbox
        if threading.get_ident() == thread:
            self.stream(mode, chunk, ns)
        elif inbox is not None:
            inbox.put(self.stream, mode, chunk, ns)  # in order with the run's events
        else:
            loop.call_soon_threadsafe(self.stream, mode, chunk, ns)


@dataclass
class TaskScratchpad:
    """Per-task interrupt bookkeeping: the counter and the resume values received so far."""

    task_id: str
    ns: str
    resume: list[Any] = field(default_factory=list)
    counter: int = 0
    subgraph_calls: int = 0
    """Graphs this task has run so far in this attempt (the 2nd one nests under ``ns|1``)."""

    def interrupt_id(self, index: int) -> str:
        return deterministic_id("interrupt", self.ns, self.task_id, index)


@dataclass
class TaskContext:
    name: str
    task_id: str
    step: int
    config: dict[str, Any]
    scratchpad: TaskScratchpad
    run: RunContext
    ns: str = ""
    route_reason: tuple[str, str] | None = None
    runtime: Runtime[Any] | None = None
    read_state: Callable[[], Any] | None = None
    """The graph state as of the start of this step (push tasks get only their ``Send`` arg)."""
    inline: bool = False
    """True when a sync node runs directly on the event-loop thread (see ``run_step``)."""
    loop: Any = None
    """The ``PregelLoop`` running this task (functional-API calls schedule on it)."""
    calls: int = 0
    """How many ``@task`` calls this task made so far (their ids derive from the index)."""
    in_flight: list[Any] = field(default_factory=list)
    """Futures of this task's ``@task`` calls, awaited before the task finishes."""
    extra_writes: list[tuple[str, Any]] = field(default_factory=list)
    """Writes made during the call besides the return value (``push_message``)."""


_RUN: contextvars.ContextVar[RunContext | None] = RUN
_TASK: contextvars.ContextVar[TaskContext | None] = TASK


_BLOCKING_CALLS = threading.Event()


def allow_blocking_calls() -> None:
    """Say that nodes may block on futures of the run's loop (``@task`` calls): from now on
    no sync node runs inline on the loop thread, so ``future.result()`` can wait."""
    _BLOCKING_CALLS.set()


def blocking_calls_allowed() -> bool:
    return _BLOCKING_CALLS.is_set()


def current_run() -> RunContext | None:
    return _RUN.get()


def current_task() -> TaskContext | None:
    return _TASK.get()


def set_run(ctx: RunContext | None) -> contextvars.Token[RunContext | None]:
    return _RUN.set(ctx)


def reset_run(token: contextvars.Token[RunContext | None]) -> None:
    _RUN.reset(token)


def set_task(ctx: TaskContext | None) -> contextvars.Token[TaskContext | None]:
    return _TASK.set(ctx)


def reset_task(token: contextvars.Token[TaskContext | None]) -> None:
    _TASK.reset(token)


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the run and surface ``value`` to the caller; returns the resume value.

    On resume the node runs again from the start; each ``interrupt()`` call, in order, gets
    its own resume value.  Resume with ``Command(resume=value)`` (one pending interrupt) or
    ``Command(resume={interrupt_id: value, ...})``.  With ``response_schema`` (a pydantic
    model, TypedDict or dataclass) the resume value is validated and converted; an invalid
    one raises ``pydantic.ValidationError`` (``is_invalid_resume`` tells it apart) and is not
    kept, so the interrupt can be answered again.  A JSON-Schema dict is only surfaced.
    """
    task = _TASK.get()
    if task is None:
        raise RuntimeError("interrupt() can only be called from inside a node of a running graph")
    adapter = _resume_adapter(response_schema)
    sp = task.scratchpad
    idx = sp.counter
    sp.counter += 1
    if idx < len(sp.resume):
        return _validated(adapter, sp.resume[idx])
    iid = sp.interrupt_id(idx)
    run = task.run
    if run.resume_map and iid in run.resume_map:
        v = run.resume_map[iid]
        out = _validated(adapter, v)
        sp.resume.append(v)
        _emit_resumed(task, iid, v)
        return out
    nr = run.null_resume
    if nr.present and not nr.consumed:
        out = _validated(adapter, nr.value)
        nr.consumed = True
        sp.resume.append(nr.value)
        _emit_resumed(task, iid, nr.value)
        return out
    schema = adapter.json_schema() if adapter is not None else response_schema
    raise GraphInterrupt((Interrupt(value=value, id=iid, response_schema=schema),))


def _resume_adapter(schema: Any) -> Any:
    if schema is None or isinstance(schema, dict):
        return None
    from pydantic import TypeAdapter

    return TypeAdapter(schema)


def _validated(adapter: Any, value: Any) -> Any:
    if adapter is None:
        return value
    from pydantic import ValidationError

    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        mark_invalid_resume(exc)
        raise


def _emit_resumed(task: TaskContext, iid: str, value: Any) -> None:
    from engine.events import InterruptResumed
    from engine.serde import to_jsonable

    task.run.emitter.emit_sync(
        InterruptResumed, interrupt_id=iid, value=to_jsonable(value), node=task.name
    )


def model_for(default: Any) -> Any:
    """The model a model call should use: the run's override if it has one, else ``default``."""
    run = _RUN.get()
    override = run.model_override if run is not None else None
    if override is None:
        return default
    for_call = getattr(override, "for_call", None)  # a replay: the agent's model after divergence
    return for_call(default) if callable(for_call) else override


def get_config() -> dict[str, Any]:
    task = _TASK.get()
    if task is None:
        raise RuntimeError("Called get_config outside of a running graph")
    return task.config


def get_store() -> Any:
    run = _RUN.get()
    return run.store if run else None


def get_runtime(context_schema: type[ContextT] | None = None) -> Runtime[ContextT]:
    task = _TASK.get()
    if task is None or task.runtime is None:
        raise RuntimeError("Called get_runtime outside of a running graph")
    return task.runtime


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends data to ``stream_mode="custom"`` (and as ``custom`` events)."""
    task = _TASK.get()
    if task is None or task.runtime is None:
        return lambda _chunk: None
    return task.runtime.stream_writer


def set_route_reason(reason: str, detail: str = "") -> None:
    """Inside a routing function: say why it chose its destination (shown in ``route`` events)."""
    task = _TASK.get()
    if task is not None:
        task.route_reason = (reason, detail)
