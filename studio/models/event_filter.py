"""Filtering the event tree: criteria, the sliced filter job, and in-order reveals.

``EventFilter`` criteria are ANDed; a row is kept when it matches, or when one of its
descendants is kept (so matches are shown in context).  ``FilterJob`` computes the kept rows in
slices of a time budget; ``reveal`` inserts a row and its hidden ancestors into the visible
lists, keeping every list in tree order (a bisect on ``Row.index`` when a row lands between
visible siblings, as with parallel tool calls).
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from studio.models.event_row import FAILED, TOKEN, Row, family

if TYPE_CHECKING:
    from studio.models.event_tree import EventTree

__all__ = ["EventFilter", "FilterJob", "TreeDelta", "TreeListener", "matches", "reveal"]


class TreeListener(Protocol):
    def touch(self, parent: Row) -> None: ...
    def before_insert(self, parent: Row, pos: int) -> None: ...
    def after_insert(self, parent: Row, pos: int) -> None: ...


@dataclass
class TreeDelta:
    """What one ``add_batch`` changed."""

    grown: dict[Row, int] = field(default_factory=dict)
    """Parents whose visible children grew -> their visible child count before the batch."""
    changed: set[Row] = field(default_factory=set)
    """Existing rows whose display changed (closed, failed below, tokens streamed in)."""
    added: int = 0
    """Events ingested."""


@dataclass(frozen=True)
class EventFilter:
    """Criteria are ANDed; ``kinds`` holds families (``"attempt"``) and/or exact kinds."""

    kinds: frozenset[str] | None = None
    node: str | None = None
    middleware: str | None = None
    text: str = ""
    failures_only: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.kinds is not None
            or self.node
            or self.middleware
            or self.text.strip()
            or self.failures_only
        )

    @property
    def needle(self) -> str:
        return self.text.strip().lower()


def matches(row: Row, flt: EventFilter) -> bool:
    """Whether ``row`` itself meets every criterion of ``flt`` (descendants aside)."""
    if flt.failures_only and not row.flags & FAILED:
        return False
    kinds = flt.kinds
    if kinds is not None and not (
        row.kind in kinds
        or family(row.kind) in kinds
        or (row.end is not None and row.end.kind in kinds)
        or (row.tokens and TOKEN in kinds)
    ):
        return False
    if flt.node and row.node != flt.node:
        return False
    if flt.middleware and not _under_middleware(row, flt.middleware):
        return False
    needle = flt.needle
    return not needle or needle in row.haystack()


def _under_middleware(row: Row, name: str) -> bool:
    r: Row | None = row
    while r is not None and r.parent is not None:  # the root has no parent
        if r.own_middleware() == name:
            return True
        r = r.parent
    return False


class FilterJob:
    """Computes the rows an ``EventFilter`` keeps, in slices of at most ``budget`` seconds."""

    def __init__(self, tree: EventTree, flt: EventFilter) -> None:
        self.tree = tree
        self.filter = flt
        self.vis: dict[Row, list[Row]] = {tree.root: []}
        self.vindex: dict[Row, int] = {}
        self.recheck: list[Row] = []
        """Rows updated after the job passed them (the tree appends here)."""
        self._i = 0

    @property
    def progress(self) -> float:
        n = len(self.tree.rows)
        return 1.0 if n == 0 else min(1.0, self._i / n)

    def run(self, budget_s: float | None = None) -> bool:
        """Advance; True when every row (including ones that arrived meanwhile) was checked."""
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        rows = self.tree.rows
        flt, vindex = self.filter, self.vindex
        while self._i < len(rows):
            stop = min(len(rows), self._i + 512)
            for i in range(self._i, stop):
                row = rows[i]
                if row not in vindex and matches(row, flt):
                    reveal(self.vis, vindex, row, self.tree.root, None, None)
            self._i = stop
            if deadline is not None and time.perf_counter() > deadline:
                return False
        for row in self.recheck:
            if row not in vindex and matches(row, flt):
                reveal(self.vis, vindex, row, self.tree.root, None, None)
        self.recheck.clear()
        return True


def reveal(
    vis: dict[Row, list[Row]],
    vindex: dict[Row, int],
    row: Row,
    root: Row,
    delta: TreeDelta | None,
    listener: TreeListener | None,
) -> None:
    """Make ``row`` and its hidden ancestors visible, keeping each visible list in tree order."""
    chain: list[Row] = []
    r: Row | None = row
    while r is not None and r is not root and r not in vindex:
        chain.append(r)
        r = r.parent
    for a in reversed(chain):
        p = a.parent
        assert p is not None
        lst = vis.get(p)
        if lst is None:
            lst = vis[p] = []
        if delta is not None and p not in delta.grown:
            if listener is not None:
                listener.touch(p)
            delta.grown[p] = len(lst)
        if not lst or lst[-1].index < a.index:
            vindex[a] = len(lst)
            lst.append(a)
            continue
        pos = bisect.bisect_left(lst, a.index, key=_row_index)
        if listener is not None:
            listener.before_insert(p, pos)
        lst.insert(pos, a)
        for i in range(pos, len(lst)):
            vindex[lst[i]] = i
        if listener is not None:
            listener.after_insert(p, pos)


def _row_index(row: Row) -> int:
    return row.index
