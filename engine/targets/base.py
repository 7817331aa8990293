"""The target protocol: one way for the studio and the CLI to debug a run, wherever it runs.

A *target* is what a debugging front end holds: the embedded engine (``EngineTarget``), a user's
real LangGraph app in this process (``AttachTarget``), a graph on a LangGraph server
(``RemoteTarget``, ``engine.remote``) or a recorded session file (``SessionTarget``).  Front ends
never ask which kind they hold; they read ``capabilities`` to know what to offer and grey out the
rest with the reason ``capabilities.why_not(...)`` gives (in the spirit of the Debug Adapter
Protocol's capabilities).

Every run goes through ``Target.run``: an async iterator of our events (``engine.events``) that
ends with the run's ``RunOutcome``.  Control goes through the ``Debugger`` handed to ``run``:
its breakpoints, ``continue_`` / ``step_*`` / ``stop`` and fault queue.  Each target translates
them into its runtime's terms (the gate for the engine and attach mode; ``interrupt_before`` /
``interrupt_after``, ``Command(resume=...)`` and cancel for a server).  Answering an interrupt is
one more run whose input is ``Command(resume=...)``; ``engine.targets.driver.RunDriver`` holds
that loop for every front end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.events import EventBase, InterruptRaised
    from engine.graph.drawing import DrawableGraph
    from engine.observe.bus import Subscription
    from engine.targets.records import CheckpointRecord
    from engine.types import StateSnapshot

__all__ = [
    "Capabilities",
    "Capability",
    "RunHandle",
    "RunOutcome",
    "RunRequest",
    "RunStatus",
    "Target",
    "TargetError",
    "TargetKind",
    "ThreadInfo",
    "ThreadQuery",
]

TargetKind = Literal["engine", "attach", "remote", "session"]
RunStatus = Literal["done", "interrupted", "error", "cancelled"]


class TargetError(Exception):
    """A target cannot do what was asked (one line, safe to show: no secrets)."""


class Capability(StrEnum):
    """What a target can do.  A front end offers a command only when its target has it."""

    RUN = "run"
    """Start runs (a recorded session cannot)."""
    PAUSE_IN_NODE = "pause_in_node"
    """Pause at events inside a node (hooks, wrappers, model and tool calls), not only between
    nodes."""
    STEP_INTO_CALLS = "step_into_calls"
    """Step into a node, event by event."""
    WRAPPER_SPANS = "wrapper_spans"
    """``wrap_model_call`` / ``wrap_tool_call`` layers and their attempts are reported."""
    FAULT_INJECTION = "fault_injection"
    """The debugger's fault queue (next model call times out, tool X fails) is honoured."""
    REPLAY_MODEL_CALLS = "replay_model_calls"
    """Re-run from a checkpoint serving the recorded model responses."""
    TOKENS = "tokens"
    """Model tokens arrive as ``model.token`` events."""
    EDIT_STATE = "edit_state"
    """``update_state`` on a checkpoint."""
    FORK = "fork"
    """Run on from a past checkpoint (the old branch stays)."""
    THREADS = "threads"
    """List the saved threads (``threads``)."""
    CONDITIONAL_BREAKPOINTS = "conditional_breakpoints"
    """Breakpoints on a state condition, evaluated before a node runs."""
    LIVE_BREAKPOINT_CHANGES = "live_breakpoint_changes"
    """Breakpoints changed during a run apply at once (else from the next stop)."""


@dataclass(frozen=True)
class Capabilities:
    """The capabilities a target has; each missing one carries the reason, for a tooltip."""

    missing: Mapping[Capability, str] = field(default_factory=dict)

    @classmethod
    def all_but(cls, **missing: str) -> Capabilities:
        """Every capability except those named (``edit_state="no checkpointer"``)."""
        return cls({Capability(name): why for name, why in missing.items()})

    def __contains__(self, cap: object) -> bool:
        return isinstance(cap, str) and cap not in self.missing

    def why_not(self, cap: Capability | str) -> str | None:
        """Why the target lacks ``cap`` (None when it has it)."""
        return self.missing.get(Capability(cap))

    def without(self, **missing: str) -> Capabilities:
        """These capabilities, less the ones named (a reason each)."""
        more = {Capability(name): why for name, why in missing.items()}
        return Capabilities({**self.missing, **more})


@dataclass(frozen=True)
class ThreadQuery:
    """Which saved threads to list (``Target.threads``)."""

    metadata: Mapping[str, Any] = field(default_factory=dict)
    status: str | None = None
    """``idle`` | ``busy`` | ``interrupted`` | ``error`` (None: any)."""
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True)
class ThreadInfo:
    """One saved thread, as a thread browser lists it."""

    thread_id: str
    updated_at: str | None = None
    status: str | None = None
    checkpoint_id: str | None = None
    """Its newest checkpoint."""
    next: tuple[str, ...] = ()
    """The nodes due next (waiting at a breakpoint or an interrupt when not empty)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    checkpoints: int | None = None
    """How many checkpoints it has, when the target knows without reading them all."""


@dataclass(frozen=True)
class RunRequest:
    """What to run: ``input`` (a state update, ``Command(resume=...)``, or None to continue a
    thread waiting at a breakpoint) on ``thread_id``, from ``checkpoint_id`` when given (a fork)."""

    input: Any
    thread_id: str
    checkpoint_id: str | None = None
    checkpoint_ns: str = ""
    context: Any = None
    """The run context (``context=``) for graphs with a ``context_schema``."""
    configurable: Mapping[str, Any] | None = None
    """The app's own ``config["configurable"]`` keys (a ``user_id`` its nodes read, as in
    LangGraph's memory docs); the thread and checkpoint keys stay the request's."""
    run_id: str | None = None
    model_override: Any = None
    """A chat model every model call of the run uses instead of the agent's own (re-runs with
    recorded responses); needs ``Capability.REPLAY_MODEL_CALLS``."""


@dataclass
class RunOutcome:
    """How a run ended."""

    run_id: str
    status: RunStatus
    output: Any = None
    error: str | None = None
    """One line, for a status bar (``TimeoutError: ...``)."""
    interrupts: list[InterruptRaised] = field(default_factory=list)
    """The interrupts still waiting for an answer when ``status`` is ``interrupted``."""


class RunHandle(Protocol):
    """A run in progress: iterate it for its events; ``outcome`` is set once it has ended."""

    run_id: str
    outcome: RunOutcome | None

    def __aiter__(self) -> AsyncIterator[EventBase]: ...


@runtime_checkable
class Target(Protocol):
    """What the studio and the CLI debug (see the module docstring)."""

    kind: TargetKind
    name: str

    @property
    def capabilities(self) -> Capabilities: ...

    # -- shape ---------------------------------------------------------------------------------

    def shape(self, xray: bool | int = False) -> DrawableGraph:
        """The graph to draw before any run; ``xray`` expands subgraphs (an int: that deep)."""
        ...

    def state_keys(self) -> list[str]:
        """The keys of the graph's state (``messages`` among them for a chat agent)."""
        ...

    def input_schema(self) -> dict[str, Any] | None:
        """JSON Schema of the graph's input (for an input form), None when unknown."""
        ...

    def context_schema(self) -> dict[str, Any] | None:
        """JSON Schema of the run context (``context_schema``), None without one."""
        ...

    # -- events --------------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[EventBase], object]) -> Subscription:
        """Receive every event of every run of this target, on the loop thread."""
        ...

    # -- threads and time travel (I/O happens off the UI thread) -------------------------------

    async def threads(self, query: ThreadQuery | None = None) -> list[ThreadInfo]:
        """The saved threads, newest first (``Capability.THREADS``)."""
        ...

    async def history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot]:
        """The thread's checkpoints, newest first (``before``: older than that checkpoint)."""
        ...

    async def checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        """The thread's checkpoints as a timeline lists them, oldest first, without reading
        their state values where the target can avoid it."""
        ...

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = ""
    ) -> StateSnapshot | None:
        """The thread's state at a checkpoint (default: its newest); None when it has none."""
        ...

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        """Write ``values`` as if ``as_node`` had (on ``checkpoint_id``: a fork); returns the id
        of the new checkpoint (``Capability.EDIT_STATE``)."""
        ...

    # -- running -------------------------------------------------------------------------------

    def run(self, request: RunRequest, debugger: Debugger) -> RunHandle:
        """Start a run under ``debugger`` (``Capability.RUN``)."""
        ...

    async def aclose(self) -> None:
        """Release what the target holds (connections, files)."""
        ...
