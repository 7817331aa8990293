"""The Timeline dock's view state: a thread's checkpoints as a branch tree (plain Python, no Qt).

Every checkpoint has at most one parent.  The first child of a checkpoint continues its
parent's branch; every later child (a fork: ``invoke`` from a past checkpoint, or
``update_state`` on one) starts a new ``Branch``.  The tree the view shows:

- top level: the nodes of the main branch, then the headers of any other root branches;
- a checkpoint's children: the headers of the branches forked at it;
- a branch header's children: that branch's checkpoints.

Fed by ``checkpoint.saved`` events (live) and by bulk loads (``engine.targets.checkpoint_list``
for a checkpointer, ``studio.history.replay`` for a session file).  Adding a checkpoint is O(1), so 10,000
of them load in milliseconds.  Markers flag where a replay diverged, where a run was
interrupted and where it failed.

Listeners are called twice per change, ``("before", change)`` then ``("after", change)``, so a
Qt adapter can wrap the mutation in ``beginInsertRows`` / ``endInsertRows``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from engine.events import (
    EventBase,
    InterruptRaised,
    MiddlewareAction,
    ModelResponse,
    RunFinished,
)
from engine.targets.records import CheckpointRecord

__all__ = [
    "Branch",
    "CheckpointNode",
    "CheckpointRecord",
    "Marker",
    "TimelineChange",
    "TimelineModel",
    "iter_tree",
]

Phase = Literal["before", "after"]


class Marker(NamedTuple):
    kind: Literal["divergence", "interrupt", "error", "replayed"]
    text: str


class CheckpointNode:
    """One checkpoint in the tree."""

    __slots__ = ("branch", "forks", "index", "markers", "record")

    def __init__(self, record: CheckpointRecord, branch: Branch, index: int) -> None:
        self.record = record
        self.branch = branch
        self.index = index
        """Position in ``branch.nodes`` (and the row under the branch header)."""
        self.forks: list[Branch] = []
        self.markers: list[Marker] = []

    @property
    def checkpoint_id(self) -> str:
        return self.record.checkpoint_id

    @property
    def parent_id(self) -> str | None:
        return self.record.parent_id

    @property
    def step(self) -> int | None:
        return self.record.step

    @property
    def source(self) -> str:
        return self.record.source

    @property
    def writers(self) -> tuple[str, ...]:
        return self.record.writers

    @property
    def next(self) -> tuple[str, ...] | None:
        return self.record.next

    def marker(self, kind: str) -> Marker | None:
        return next((m for m in self.markers if m.kind == kind), None)

    def summary(self) -> str:
        """``step 3 · loop · tools → model`` (for tooltips, pickers and logs)."""
        step = "?" if self.step is None else str(self.step)
        who = ", ".join(self.writers)
        if not who and self.source == "fork":
            who = "copy of step " + ("?" if self.step is None else str(self.step - 1))
        nxt = "end" if self.next == () else ("?" if self.next is None else ", ".join(self.next))
        arrow = f"{who} → {nxt}" if who else f"→ {nxt}"
        return f"step {step} · {self.source} · {arrow}"

    def __repr__(self) -> str:
        return (
            f"CheckpointNode({self.checkpoint_id[-8:]}, {self.summary()}, branch={self.branch.id})"
        )


class Branch:
    """A chain of checkpoints; branch 0 ("main") starts at the thread's first checkpoint."""

    __slots__ = ("fork_point", "id", "index", "nodes")

    def __init__(self, branch_id: int, fork_point: CheckpointNode | None, index: int) -> None:
        self.id = branch_id
        self.fork_point = fork_point
        self.index = index
        """Position among ``fork_point.forks`` (or among the extra root branches)."""
        self.nodes: list[CheckpointNode] = []

    @property
    def name(self) -> str:
        return "main" if self.id == 0 else f"branch {self.id}"

    @property
    def tip(self) -> CheckpointNode:
        return self.nodes[-1]

    def title(self) -> str:
        where = ""
        if self.fork_point is not None:
            step = self.fork_point.step
            where = f" · forked at step {'?' if step is None else step}"
        n = len(self.nodes)
        return f"{self.name}{where} · {n} checkpoint{'s' if n != 1 else ''}"

    def __repr__(self) -> str:
        return f"Branch({self.id}, {len(self.nodes)} nodes)"


@dataclass(frozen=True)
class TimelineChange:
    kind: Literal["reset", "insert", "update"]
    parent: CheckpointNode | Branch | None = None
    """Tree parent of the inserted rows (None = top level)."""
    first: int = 0
    last: int = 0
    items: tuple[CheckpointNode, ...] = ()
    """Updated nodes (``update``)."""


Listener = Callable[[Phase, TimelineChange], None]


class TimelineModel:
    """The branch tree of one thread's checkpoints (see the module docstring)."""

    def __init__(self, thread_id: str | None = None) -> None:
        self.thread_id = thread_id
        """Events of other threads are ignored (None: accept all)."""
        self._listeners: list[Listener] = []
        self.by_id: dict[str, CheckpointNode] = {}
        self._latest: CheckpointNode | None = None
        """The node of the greatest id in ``by_id`` (kept as nodes are inserted)."""
        self.branches: list[Branch] = []
        self.roots: list[Branch] = []
        """``roots[0]`` is main; later roots are checkpoints whose parent is unknown."""
        self._pending_divergence: dict[str, tuple[str | None, str]] = {}
        self._replays: dict[str, list[str]] = {}
        """Runs serving recorded model replies (a re-run with replay), with the checkpoints
        they saved before diverging (or all of them, when they never diverged)."""
        self._run_saved: dict[str, list[str]] = {}
        self._diverged: set[str] = set()

    # -- listening -----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _notify(self, phase: Phase, change: TimelineChange) -> None:
        for cb in list(self._listeners):
            cb(phase, change)

    # -- reading -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.by_id)

    def __contains__(self, checkpoint_id: object) -> bool:
        return checkpoint_id in self.by_id

    def get(self, checkpoint_id: str | None) -> CheckpointNode | None:
        return self.by_id.get(checkpoint_id) if checkpoint_id else None

    @property
    def main(self) -> Branch | None:
        return self.roots[0] if self.roots else None

    def parent(self, node: CheckpointNode) -> CheckpointNode | None:
        return self.by_id.get(node.parent_id) if node.parent_id else None

    def children(self, node: CheckpointNode) -> list[CheckpointNode]:
        """Child checkpoints, the continuation first, then the first node of each fork."""
        nxt = node.branch.nodes[node.index + 1] if node.index + 1 < len(node.branch.nodes) else None
        return ([nxt] if nxt is not None else []) + [b.nodes[0] for b in node.forks]

    def lineage(self, checkpoint_id: str) -> list[CheckpointNode]:
        """The path from the thread's first checkpoint to this one (inclusive)."""
        out: list[CheckpointNode] = []
        node = self.by_id.get(checkpoint_id)
        while node is not None:
            out.append(node)
            node = self.parent(node)
        out.reverse()
        return out

    def continuation(self, checkpoint_id: str) -> list[CheckpointNode]:
        """This checkpoint and the ones after it on its branch (first children only)."""
        node = self.by_id.get(checkpoint_id)
        return node.branch.nodes[node.index :] if node is not None else []

    def common_ancestor(self, a: str, b: str) -> CheckpointNode | None:
        seen = {n.checkpoint_id for n in self.lineage(a)}
        for n in reversed(self.lineage(b)):
            if n.checkpoint_id in seen:
                return n
        return None

    def tips(self) -> list[CheckpointNode]:
        return [b.tip for b in self.branches if b.nodes]

    def ordered(self) -> list[CheckpointNode]:
        """Every checkpoint, oldest first (ids are time-ordered)."""
        return sorted(self.by_id.values(), key=lambda n: n.checkpoint_id)

    def latest(self) -> CheckpointNode | None:
        return self._latest  # kept by _insert: the live view asks after every batch

    # tree protocol for the Qt adapter ----------------------------------------------------------

    def child_count(self, item: CheckpointNode | Branch | None) -> int:
        if item is None:
            main = self.main
            return (len(main.nodes) if main else 0) + max(0, len(self.roots) - 1)
        if isinstance(item, CheckpointNode):
            return len(item.forks)
        return len(item.nodes)

    def child(self, item: CheckpointNode | Branch | None, row: int) -> CheckpointNode | Branch:
        if item is None:
            main = self.main
            assert main is not None
            n = len(main.nodes)
            return main.nodes[row] if row < n else self.roots[row - n + 1]
        if isinstance(item, CheckpointNode):
            return item.forks[row]
        return item.nodes[row]

    def tree_parent(self, item: CheckpointNode | Branch) -> CheckpointNode | Branch | None:
        if isinstance(item, CheckpointNode):
            return None if item.branch is self.main else item.branch
        return item.fork_point

    def row(self, item: CheckpointNode | Branch) -> int:
        if isinstance(item, CheckpointNode):
            return item.index
        if item.fork_point is None:  # an extra root branch, after the main nodes
            main = self.main
            return (len(main.nodes) if main else 0) + item.index - 1
        return item.index

    # -- changing ------------------------------------------------------------------------------

    def clear(self) -> None:
        self._notify("before", TimelineChange("reset"))
        self._reset_state()
        self._notify("after", TimelineChange("reset"))

    def _reset_state(self) -> None:
        self.by_id = {}
        self._latest = None
        self.branches = []
        self.roots = []
        self._pending_divergence = {}
        self._replays = {}
        self._run_saved = {}
        self._diverged = set()

    def load(self, records: Iterable[CheckpointRecord], *, keep_markers: bool = True) -> None:
        """Replace everything with ``records`` (any order; one reset notification).

        Markers of checkpoints that are still there are kept (they come from events that a
        reload from storage does not see again)."""
        markers = (
            {cid: n.markers for cid, n in self.by_id.items() if n.markers} if keep_markers else {}
        )
        self._notify("before", TimelineChange("reset"))
        self._reset_state()
        for rec in sorted(records, key=lambda r: r.checkpoint_id):
            node = self._insert(rec)
            node.markers = markers.get(rec.checkpoint_id, node.markers)
        self._notify("after", TimelineChange("reset"))

    def add(self, record: CheckpointRecord) -> CheckpointNode:
        """Add a checkpoint (or complete the one already known)."""
        known = self.by_id.get(record.checkpoint_id)
        if known is not None:
            merged = record.merged(known.record)
            if merged != known.record:
                known.record = merged
                self._changed(known)
            return known
        parent, rows = self._placement(record)
        change = TimelineChange("insert", parent, rows, rows)
        self._notify("before", change)
        node = self._insert(record)
        self._notify("after", change)
        return node

    def _placement(self, record: CheckpointRecord) -> tuple[CheckpointNode | Branch | None, int]:
        """Where the row for ``record`` will appear: (tree parent, row)."""
        parent = self.by_id.get(record.parent_id) if record.parent_id else None
        if parent is not None:
            if parent.index == len(parent.branch.nodes) - 1:  # continues the parent's branch
                b = parent.branch
                return (None if b is self.main else b), len(b.nodes)
            return parent, len(parent.forks)
        if not self.roots:
            return None, 0
        return None, self.child_count(None)

    def _insert(self, record: CheckpointRecord) -> CheckpointNode:
        parent = self.by_id.get(record.parent_id) if record.parent_id else None
        if parent is not None and parent.index == len(parent.branch.nodes) - 1:
            branch = parent.branch
        else:
            index = len(parent.forks) if parent is not None else len(self.roots)
            branch = Branch(len(self.branches), parent, index)
            self.branches.append(branch)
            if parent is not None:
                parent.forks.append(branch)
            else:
                self.roots.append(branch)
        node = CheckpointNode(record, branch, len(branch.nodes))
        branch.nodes.append(node)
        self.by_id[record.checkpoint_id] = node
        latest = self._latest
        if latest is None or record.checkpoint_id >= latest.checkpoint_id:
            self._latest = node  # (>=: a record inserted again replaces its node in by_id too)
        return node

    def _changed(self, node: CheckpointNode) -> None:
        change = TimelineChange("update", items=(node,))
        self._notify("before", change)
        self._notify("after", change)

    def mark(self, checkpoint_id: str, kind: str, text: str) -> bool:
        """Flag a checkpoint (divergence / interrupt / error); False if it is unknown."""
        node = self.by_id.get(checkpoint_id)
        if node is None:
            return False
        marker = Marker(kind, text)  # type: ignore[arg-type]
        if marker not in node.markers:
            node.markers = [m for m in node.markers if m.kind != kind] + [marker]
            self._changed(node)
        return True

    def _mark_replayed(self, run_id: str, checkpoint_ids: list[str]) -> None:
        for cid in checkpoint_ids:
            if self.mark(cid, "replayed", "model replies served from the recording"):
                self._replays[run_id].append(cid)

    # -- events --------------------------------------------------------------------------------

    def apply_events(self, batch: Iterable[EventBase]) -> None:
        """Take what the timeline needs from a batch of events (others are skipped quickly)."""
        for ev in batch:
            kind = ev.kind
            if (
                kind not in _KINDS
                or ev.ns
                or (self.thread_id is not None and ev.thread_id != self.thread_id)
            ):
                continue
            if kind == "checkpoint.saved" and ev.checkpoint_id:
                node = self.add(CheckpointRecord.from_event(ev))
                pending = self._pending_divergence.get(ev.run_id)
                if pending is not None and pending[0] == node.parent_id:
                    del self._pending_divergence[ev.run_id]
                    self.mark(node.checkpoint_id, "divergence", pending[1])
                self._run_saved.setdefault(ev.run_id, []).append(node.checkpoint_id)
                if ev.run_id in self._replays and ev.run_id not in self._diverged:
                    self._mark_replayed(ev.run_id, [node.checkpoint_id])
            elif isinstance(ev, ModelResponse) and ev.replayed:
                if ev.run_id not in self._replays:  # its earlier checkpoints were replayed too
                    self._replays[ev.run_id] = []
                    self._mark_replayed(ev.run_id, self._run_saved.get(ev.run_id, []))
            elif isinstance(ev, MiddlewareAction) and ev.action == "replay_diverged":
                detail = ev.detail or {}
                text = str(detail.get("message") or "replay diverged")
                self._pending_divergence[ev.run_id] = (ev.checkpoint_id, text)
                self._diverged.add(ev.run_id)
            elif isinstance(ev, InterruptRaised) and ev.checkpoint_id:
                value = ev.value
                text = _short(value) if value is not None else f"before/after {ev.node}"
                self.mark(ev.checkpoint_id, "interrupt", text)
            elif isinstance(ev, RunFinished):
                pending = self._pending_divergence.pop(ev.run_id, None)
                if pending is not None and pending[0]:
                    self.mark(pending[0], "divergence", pending[1])
                err = ev.error
                if ev.status == "error" and ev.checkpoint_id and err is not None:
                    self.mark(ev.checkpoint_id, "error", f"{err.type}: {err.message}")


_KINDS = frozenset(
    {"checkpoint.saved", "middleware.action", "interrupt.raised", "run.finished", "model.response"}
)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def iter_tree(model: TimelineModel) -> Iterator[tuple[int, CheckpointNode | Branch]]:
    """Depth-first walk of the display tree: ``(depth, item)`` (for tests and text dumps)."""

    def walk(
        item: CheckpointNode | Branch | None, depth: int
    ) -> Iterator[tuple[int, CheckpointNode | Branch]]:
        for row in range(model.child_count(item)):
            child = model.child(item, row)
            yield depth, child
            yield from walk(child, depth + 1)

    yield from walk(None, 0)
