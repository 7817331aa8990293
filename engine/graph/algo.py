"""The Pregel algorithm's pure parts: planning tasks and the barrier (a finished task's writes and
routes: ``engine.graph.task_writes``)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from engine.checkpoint.base import ERROR, INTERRUPT, NO_WRITES, RESUME, Checkpoint, version_number
from engine.core.ids import deterministic_id
from engine.graph.builder import Branch
from engine.graph.channels import MISSING, BaseChannel
from engine.graph.channels_defer import LastValueAfterFinish
from engine.graph.state import StateSpec
from engine.types import START, RetryPolicy, Send

_log = logging.getLogger("engine.graph")

if TYPE_CHECKING:
    from engine.graph.runtime import TaskScratchpad

__all__ = [
    "TASKS",
    "PregelNode",
    "Task",
    "apply_writes",
    "plan_tasks",
    "should_interrupt",
    "trigger_channel",
    "without_untracked",
]

TASKS = "__pregel_tasks"
_PUSH_TRIGGER = ("__pregel_push",)
RETURN = "__return__"
"""A functional-API task's return value write (``engine.func.constants.RETURN``; the graph
layer sits below ``engine.func``, so it names the channel itself)."""
SPECIAL_WRITES = frozenset({ERROR, INTERRUPT, RESUME, NO_WRITES})


def is_internal_channel(key: str) -> bool:
    return key in (START, TASKS) or key.startswith(("branch:to:", "join:"))


def trigger_channel(node: str) -> str:
    return f"branch:to:{node}"


class ChannelWrites(list[tuple[str, Any]]):
    """A node's result that is already a list of ``(channel, value)`` writes (low-level
    ``Pregel`` nodes built with ``NodeBuilder``)."""


@dataclass
class RouteInfo:
    """One routing decision a task made (reported as a ``route`` event)."""

    to: list[str]
    sends: list[Send]
    reason: str
    detail: str = ""


@dataclass
class PregelNode:
    """A compiled node: what triggers it, what it reads, how it runs, where it writes."""

    name: str
    fn: Any
    triggers: list[str]
    input_keys: list[str]
    spec: StateSpec
    retry_policy: list[RetryPolicy] = field(default_factory=list)
    static_targets: list[str] = field(default_factory=list)
    join_channels: list[str] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    hidden: bool = False
    is_subgraph: bool = False
    call_kwargs: frozenset[str] = frozenset()
    is_async: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    writer: Callable[[Any], list[tuple[str, Any]]] | None = None
    """Turns the node's return value into its writes (functional-API nodes), instead of
    reading it as a state update."""
    update_key: str | None = None
    """The write whose value is this node's ``updates`` chunk (functional-API nodes)."""
    inline_ok: bool = True
    """False when the node may block on futures of the run's loop (it must not run inline)."""
    cache_policy: Any = None
    """A ``CachePolicy``: results are cached in the graph's cache (``compile(cache=)``)."""
    error_handler: Any = None
    """Called with the state (and a ``NodeError``) when the node fails for good; its return
    value becomes the node's writes."""
    timeout: Any = None
    """A ``TimeoutPolicy`` for each attempt (async nodes)."""
    subgraphs: list[Any] = field(default_factory=list)
    """The graph this node runs or calls (at most one; see ``engine.graph.subgraph_detect``)."""
    write_values: Callable[[Any], ChannelWrites] | None = None
    """Low-level nodes: the writes ``update_state(values, as_node=...)`` makes for this node."""
    callback_input: Callable[[Any], Any] | None = None
    """How callback handlers see a task's input (a functional-API task: its arguments by
    parameter name; an entrypoint: its input value), when that is not the input itself; for
    a pull task, also what the ``tasks`` stream shows."""

    def copy(self, update: dict[str, Any] | None = None) -> PregelNode:
        """A copy of this node with the given fields replaced."""
        return dataclasses.replace(self, **(update or {}))


@dataclass
class Task:
    id: str
    name: str
    path: tuple[str, Any]
    input: Any
    triggers: list[str]
    node: PregelNode
    writes: list[tuple[str, Any]] = field(default_factory=list)
    cached: bool = False
    error: BaseException | None = None
    interrupts: list[Any] = field(default_factory=list)
    routes: list[RouteInfo] = field(default_factory=list)
    scratchpad: TaskScratchpad | None = None
    attempt: int = 1
    timeout: Any = None
    """A ``Send``'s own timeout policy (over the node's)."""

    @property
    def sort_key(self) -> tuple[int, Any]:
        return (0, self.path[1]) if self.path[0] == "pull" else (1, self.path[1])

    @property
    def kind(self) -> Literal["pull", "push"]:
        return "pull" if self.path[0] == "pull" else "push"

    @property
    def public_path(self) -> tuple[Any, ...]:
        """The path as LangGraph shows it (``PregelTask.path``, ``langgraph_path``):
        ``("__pregel_pull", node)``, or ``("__pregel_push", index, is_call)`` for a ``Send``
        (False) or a functional-API call (True)."""
        if self.path[0] == "pull":
            return ("__pregel_pull", self.path[1])
        return ("__pregel_push", self.path[1], self.is_call)

    @property
    def is_call(self) -> bool:
        """A functional-API call, made while its step runs (not planned with the step)."""
        return self.path[0] != "pull" and TASKS not in self.triggers

    @property
    def public_triggers(self) -> tuple[str, ...]:
        """The triggers as LangGraph shows them (``langgraph_triggers``, the ``tasks`` stream):
        a ``Send`` or a functional-API call says ``("__pregel_push",)``."""
        return tuple(self.triggers) if self.path[0] == "pull" else _PUSH_TRIGGER


def task_path_str(path: Any) -> str:
    """A task's path as LangGraph hands it to a saver's ``put_writes`` (which orders a
    checkpoint's pending writes by it): a tuple as ``~`` and its parts joined by ``, ``, an
    int (a bool too) zero-padded to 10 digits, anything else as its text."""
    if isinstance(path, tuple | list):
        return "~" + ", ".join(task_path_str(part) for part in path)
    if isinstance(path, int):
        return f"{path:010d}"
    return str(path)


def read_values(channels: dict[str, BaseChannel], keys: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in keys:
        ch = channels.get(k)
        if ch is not None and ch.is_available():
            out[k] = ch.value if ch.value is not MISSING else ch.get()
    return out


def plan_tasks(
    checkpoint: Checkpoint,
    channels: dict[str, BaseChannel],
    nodes: dict[str, PregelNode],
    step: int,
    ns: str,
) -> list[Task]:
    """The tasks of the next superstep: one per ``Send`` (push), one per triggered node (pull)."""
    tasks: list[Task] = []
    cid = checkpoint["id"]
    sends = channels[TASKS].value if TASKS in channels and channels[TASKS].is_available() else []
    for idx, send in enumerate(sends):
        node = nodes.get(send.node)
        if node is None:  # LangGraph drops it with a warning (an update_state's Send, say)
            _log.warning("Ignoring unknown node name %s in pending sends", send.node)
            continue
        tid = deterministic_id(cid, ns, step, send.node, "push", idx)
        task = Task(tid, send.node, ("push", idx), send.arg, [TASKS], node)
        task.timeout = getattr(send, "timeout", None)
        tasks.append(task)
    versions = checkpoint["channel_versions"]
    seen_all = checkpoint["versions_seen"]
    for name, node in nodes.items():
        seen = seen_all.get(name, {})
        triggered = [
            c
            for c in node.triggers
            if channels[c].is_available()
            and version_number(versions.get(c)) > version_number(seen.get(c))
        ]
        if not triggered:
            continue
        tid = deterministic_id(cid, ns, step, name, "pull", *triggered)
        if name == START:
            value = channels[START].value
        else:
            value = node.spec.to_state(read_values(channels, node.input_keys))
        tasks.append(Task(tid, name, ("pull", name), value, triggered, node))
    return tasks


def next_names(
    checkpoint: Checkpoint, channels: dict[str, BaseChannel], nodes: dict[str, PregelNode]
) -> list[str]:
    """The names of the tasks ``plan_tasks`` plans next, in its order (without a ``Send`` to an
    unknown node, which it drops), without making them: no ids, no inputs (a checkpoint
    event's ``next``)."""
    names: list[str] = []
    sends = channels[TASKS].value if TASKS in channels and channels[TASKS].is_available() else []
    for send in sends:
        if nodes.get(send.node) is not None:
            names.append(send.node)
    versions = checkpoint["channel_versions"]
    seen_all = checkpoint["versions_seen"]
    for name, node in nodes.items():
        seen = seen_all.get(name, {})
        if any(
            channels[c].is_available()
            and version_number(versions.get(c)) > version_number(seen.get(c))
            for c in node.triggers
        ):
            names.append(name)
    return names


def should_interrupt(
    checkpoint: Checkpoint, interrupt_nodes: Sequence[str], tasks: Sequence[Task]
) -> bool:
    """Static breakpoint: some task matches and some channel changed since the last interrupt."""
    if not interrupt_nodes:
        return False
    seen = checkpoint["versions_seen"].get(INTERRUPT, {})
    changed = any(
        version_number(ver) > version_number(seen.get(ch))
        for ch, ver in checkpoint["channel_versions"].items()
    )
    if not changed:
        return False
    star = "*" in interrupt_nodes
    return any((star and not t.node.hidden) or t.name in interrupt_nodes for t in tasks)


def mark_interrupt_seen(checkpoint: Checkpoint) -> None:
    checkpoint["versions_seen"][INTERRUPT] = dict(checkpoint["channel_versions"])


def apply_writes(
    checkpoint: Checkpoint,
    channels: dict[str, BaseChannel],
    tasks: Sequence[Task],
    get_next_version: Callable[[str | None], str],
) -> dict[str, list[Any]]:
    """The barrier: apply every task's writes in path order (never completion order).

    Returns ``{channel: [values written]}`` for the channels that changed (internal ones
    included), which the loop turns into a ``state.updated`` event.
    """
    ordered = sorted(tasks, key=lambda t: t.sort_key)
    versions = checkpoint["channel_versions"]
    for t in ordered:
        if not t.triggers:
            continue
        seen = checkpoint["versions_seen"].setdefault(t.name, {})
        for c in t.triggers:
            if c in versions:
                seen[c] = versions[c]
    current_max = max(versions.values(), key=version_number, default=None)
    next_v = get_next_version(current_max)
    for c in {c for t in ordered for c in t.triggers}:
        ch = channels.get(c)
        if ch is not None and ch.consume():
            versions[c] = next_v
    grouped: dict[str, list[Any]] = {}
    for t in ordered:
        for c, v in t.writes:
            if c in SPECIAL_WRITES:
                continue
            grouped.setdefault(c, []).append(v)
    changed: dict[str, list[Any]] = {}
    for c, vals in grouped.items():
        ch = channels.get(c)
        if ch is None:
            continue
        if ch.update(vals):
            versions[c] = next_v
            changed[c] = vals
    if not any(t.triggers for t in ordered):
        return changed  # no step was taken (e.g. a resume's null writes): keep pending triggers
    for c, ch in channels.items():
        if c in grouped or not ch.is_available():
            continue
        if ch.update([]):
            versions[c] = next_v
            changed[c] = []
    return changed


def finish_waiting(
    checkpoint: Checkpoint, channels: dict[str, BaseChannel], version: str
) -> list[str]:
    """Nothing else is due: the channels that wait for that (deferred nodes' triggers) show
    their value, at ``version``, so their nodes are due.  The names of those that changed."""
    finished = [
        c for c, ch in channels.items() if isinstance(ch, LastValueAfterFinish) and ch.finish()
    ]
    for c in finished:
        checkpoint["channel_versions"][c] = version
    return finished


# -- writers -------------------------------------------------------------------------------


def without_untracked(packet: Any, channels: Mapping[str, BaseChannel]) -> Any:
    """A Send whose state names untracked channels, as saved: without those keys (the task
    itself still gets them, from the write in memory)."""
    if not isinstance(packet, Send) or not isinstance(packet.arg, dict):
        return packet
    arg: dict[str, Any] = packet.arg
    untracked = {k for k in arg if not getattr(channels.get(k), "tracked", True)}
    if not untracked:
        return packet
    kept = {k: v for k, v in arg.items() if k not in untracked}
    return Send(packet.node, kept, timeout=packet.timeout)
