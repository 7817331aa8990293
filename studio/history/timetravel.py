"""Time travel without Qt: resume from a checkpoint, edit state, replay recorded model calls,
compare branches.  The studio's docks call these; the run controller runs them on its loop.

- ``aresume_from`` runs the graph from a past checkpoint: the engine saves a ``fork`` copy
  of it and continues on a new branch; the old branch is kept.
- ``aapply_edit`` writes edited values with ``update_state(as_node=...)`` and returns the
  new checkpoint's id (a new branch when the checkpoint was not the tip).
- ``replay_plan`` builds a ``ReplayChatModel`` that serves the model responses recorded
  *after* a checkpoint on its branch, and knows how many came before, so a divergence is
  reported as the run's model call number (``ReplayPlan.describe``).
- ``arerun`` runs a graph built on that model from the checkpoint; with no fallback model the
  run stops at the divergence.
- ``compare_branches`` lines up two branches' messages side by side and diffs their states.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from engine.events import EventBase
from engine.messages import AIMessage, BaseMessage
from engine.models.errors import ReplayDivergenceError
from engine.models.replay import Divergence, ReplayChatModel, recorded_from_events
from studio.models.state_diff import StateDiff, diff_states
from studio.models.timeline import CheckpointNode, TimelineModel

if TYPE_CHECKING:
    from engine.debug import Debugger

__all__ = [
    "BranchComparison",
    "MessageRow",
    "ReplayPlan",
    "RerunResult",
    "aapply_edit",
    "arerun",
    "aresume_from",
    "checkpoint_config",
    "compare_branches",
    "default_as_node",
    "replay_plan",
    "start_warmup",
    "tip_checkpoint_id",
]

_MODEL_KINDS = frozenset({"model.request", "model.response"})
_PSEUDO_WRITERS = frozenset({"__start__", "__input__", "__copy__", "fork", "input"})


def checkpoint_config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def tip_checkpoint_id(graph: Any, thread_id: str) -> str | None:
    """The newest checkpoint of the thread (the tip of the branch that ran last)."""
    snap = graph.get_state(checkpoint_config(thread_id))
    return (snap.config or {}).get("configurable", {}).get("checkpoint_id")


def start_warmup(
    saver: Any,
    thread_id: str,
    checkpoint_ids: Sequence[str],
    n_checkpoints: int,
    on_done: Callable[[], object] | None = None,
) -> threading.Thread:
    """Read ``checkpoint_ids`` (branch tips, longest first) on a background thread so that every
    later read of the thread hits the saver's cache.

    A message log is stored as a chain of appends; reading a checkpoint deep in a cold chain
    decodes every message before it (half a second at 10,000 messages).  Reading a tip decodes
    the chain once and caches every version on the way: all versions are views of one shared
    buffer, so caching them all costs little.  The saver's cache is enlarged to hold them.
    ``on_done`` is called on that thread when it ends (a Qt signal's ``emit``: queued to the
    window's thread).
    """
    need = 4 * n_checkpoints + 1024
    if getattr(saver, "CACHE_SIZE", need) < need:
        saver.CACHE_SIZE = need

    def work() -> None:
        for cid in checkpoint_ids:
            try:
                saver.get_tuple(checkpoint_config(thread_id, cid))
            except Exception:  # a damaged or deleted checkpoint: the views report it when read
                break
        if on_done is not None:
            try:
                on_done()
            except RuntimeError:  # the window that asked is gone
                pass

    thread = threading.Thread(target=work, name="stepwise-checkpoint-warmup", daemon=True)
    thread.start()
    return thread


# -- resume and edit -----------------------------------------------------------------------------


async def aresume_from(
    graph: Any,
    thread_id: str,
    checkpoint_id: str,
    *,
    debugger: Debugger | None = None,
    input: Any = None,
    model_override: Any = None,
) -> Any:
    """Run from ``checkpoint_id`` (a fork when it is in the past); returns the run's output.
    ``model_override``: a model every model call of the run uses (a replay's recorded one)."""
    config = checkpoint_config(thread_id, checkpoint_id)
    if model_override is not None:
        config["configurable"]["model_override"] = model_override
    return await graph.ainvoke(input, config, debugger=debugger)


def default_as_node(node: CheckpointNode | None, graph: Any = None) -> str | None:
    """The node an edit is attributed to by default: the one that wrote the checkpoint."""
    if node is None:
        return None
    nodes = getattr(graph, "nodes", None)
    for w in node.writers:
        if w not in _PSEUDO_WRITERS and (nodes is None or w in nodes):
            return w
    return None


async def aapply_edit(
    target: Any,
    thread_id: str,
    checkpoint_id: str | None,
    values: Mapping[str, Any],
    as_node: str | None,
) -> str:
    """``update_state`` at ``checkpoint_id`` on ``target`` (a ``Target``, or a graph);
    returns the id of the checkpoint it created."""
    from engine.targets import as_target

    return await as_target(target).update_state(
        thread_id, dict(values), as_node=as_node, checkpoint_id=checkpoint_id
    )


# -- replay ----------------------------------------------------------------------------------------


@dataclass
class ReplayPlan:
    """A replay model for re-running from one checkpoint."""

    model: ReplayChatModel
    checkpoint_id: str
    offset: int
    """Successful model calls recorded before the checkpoint (on its lineage)."""

    @property
    def available(self) -> int:
        """Recorded responses that can be served after the checkpoint."""
        return len(self.model.recorded) - self.offset

    @property
    def divergence(self) -> Divergence | None:
        return self.model.divergence

    @property
    def diverged_at_call(self) -> int | None:
        """1-based number of the diverging model call, counted from the start of the thread."""
        d = self.model.divergence
        return None if d is None else d.call_index + 1

    def describe(self) -> str:
        d = self.model.divergence
        if d is None:
            return f"replayed {self.model.served} of {self.available} recorded model calls, no divergence"
        return "model " + d.describe()


def replay_plan(
    events: Iterable[EventBase | Mapping[str, Any]],
    timeline: TimelineModel,
    checkpoint_id: str,
    *,
    fallback: Any = None,
    name: str | None = None,
) -> ReplayPlan:
    """The recorded calls made after ``checkpoint_id`` on its branch, as a ``ReplayChatModel``.

    A model call made in the step after checkpoint C carries ``checkpoint_id == C``: calls on
    C's lineage before it are the offset; calls on C and its continuation are served.  The
    model counts calls from the offset, so a divergence (and the ``replay_diverged`` event the
    timeline marks) names the call's number in the whole thread, e.g. "call #4".
    """
    if checkpoint_id not in timeline:
        raise KeyError(f"Unknown checkpoint {checkpoint_id}")
    after = {n.checkpoint_id for n in timeline.continuation(checkpoint_id)}
    before = {n.checkpoint_id for n in timeline.lineage(checkpoint_id)[:-1]}
    served: list[Any] = []
    earlier: list[Any] = []
    for ev in events:
        kind = ev.get("kind") if isinstance(ev, Mapping) else ev.kind
        if kind not in _MODEL_KINDS:
            continue
        cid = ev.get("checkpoint_id") if isinstance(ev, Mapping) else ev.checkpoint_id
        if cid in after:
            served.append(ev)
        elif cid in before:
            earlier.append(ev)
    previous = recorded_from_events(earlier)
    model = ReplayChatModel(
        [*previous, *recorded_from_events(served)], fallback=fallback, name=name
    )
    model._calls = len(previous)  # the next call is the thread's call number len(previous) + 1
    return ReplayPlan(model, checkpoint_id, len(previous))


@dataclass
class RerunResult:
    status: Literal["done", "interrupted", "diverged", "error"]
    plan: ReplayPlan
    output: Any = None
    error: BaseException | None = None
    tip_id: str | None = None
    """The newest checkpoint after the run (the new branch's tip)."""

    @property
    def message(self) -> str:
        if self.status == "error":
            return f"the re-run failed: {self.error}"
        return self.plan.describe()


async def arerun(
    graph: Any, plan: ReplayPlan, thread_id: str, *, debugger: Debugger | None = None
) -> RerunResult:
    """Run ``graph`` (built on ``plan.model``) from the plan's checkpoint."""
    try:
        output = await aresume_from(
            graph, thread_id, plan.checkpoint_id, debugger=debugger, model_override=plan.model
        )
    except ReplayDivergenceError as exc:
        return RerunResult("diverged", plan, error=exc, tip_id=tip_checkpoint_id(graph, thread_id))
    except Exception as exc:
        if plan.divergence is not None and plan.model.fallback is None:
            return RerunResult(
                "diverged", plan, error=exc, tip_id=tip_checkpoint_id(graph, thread_id)
            )
        return RerunResult("error", plan, error=exc, tip_id=tip_checkpoint_id(graph, thread_id))
    tip = tip_checkpoint_id(graph, thread_id)
    interrupted = isinstance(output, Mapping) and "__interrupt__" in output
    return RerunResult("interrupted" if interrupted else "done", plan, output=output, tip_id=tip)


# -- comparing branches ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageRow:
    """One line of the side-by-side view."""

    left: BaseMessage | None
    right: BaseMessage | None
    status: Literal["same", "changed", "left_only", "right_only"]


@dataclass
class BranchComparison:
    left: CheckpointNode
    right: CheckpointNode
    ancestor: CheckpointNode | None
    shared: int
    """Messages both branches have in common (the history before they split)."""
    rows: list[MessageRow] = field(default_factory=list)
    state: StateDiff = field(default_factory=StateDiff)
    """From the left checkpoint's state to the right one's."""

    @property
    def differences(self) -> int:
        return sum(1 for r in self.rows if r.status != "same")


def _canonical(m: BaseMessage) -> tuple[Any, ...]:
    calls = (
        tuple((c.get("name"), repr(c.get("args"))) for c in m.tool_calls)
        if isinstance(m, AIMessage)
        else ()
    )
    return (m.type, m.text, calls, getattr(m, "status", None))


def compare_branches(
    read_values: Callable[[str], Mapping[str, Any]],
    timeline: TimelineModel,
    left_id: str,
    right_id: str,
    *,
    messages_key: str = "messages",
) -> BranchComparison:
    """Two checkpoints (usually branch tips) side by side: messages after the shared history,
    paired by position, and the diff of their states."""
    left, right = timeline.get(left_id), timeline.get(right_id)
    if left is None or right is None:
        raise KeyError(f"Unknown checkpoint {left_id if left is None else right_id}")
    a_vals, b_vals = read_values(left_id), read_values(right_id)
    a: Sequence[BaseMessage] = list(a_vals.get(messages_key) or [])
    b: Sequence[BaseMessage] = list(b_vals.get(messages_key) or [])
    shared = 0
    while shared < min(len(a), len(b)) and (a[shared] is b[shared] or a[shared] == b[shared]):
        shared += 1
    rows: list[MessageRow] = []
    for i in range(shared, max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x is None:
            rows.append(MessageRow(None, y, "right_only"))
        elif y is None:
            rows.append(MessageRow(x, None, "left_only"))
        else:
            rows.append(MessageRow(x, y, "same" if _canonical(x) == _canonical(y) else "changed"))
    return BranchComparison(
        left=left,
        right=right,
        ancestor=timeline.common_ancestor(left_id, right_id),
        shared=shared,
        rows=rows,
        state=diff_states(a_vals, b_vals, next_before=left.next, next_after=right.next),
    )
