"""The Events tree's older top-level rows, folded under one "earlier runs" row.

Qt's tree view lays every top-level row out again after each batch of rows it is told of
(and after each row inserted under an open one): over a long session that is a call into
the model or two per top-level row, every turn, and a turn at turn 600 cost 4 ms more than
at turn 20 for that alone.  So the newest ``KEEP`` top-level rows stay at the top level, and
once ``KEEP + STEP`` are there the older ones move (``beginMoveRows``: what is open or
selected in them stays so) under one row, first in the tree, "N earlier runs", that opens like
any other.  A turn's relayout then costs the same at any length.

``RootFold`` is the bookkeeping: which of the root's visible children are folded, and where
each sits among Qt's rows.  It folds only what Qt has been shown of the root (its first
``shown`` visible children); ``EventTree`` itself is not changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from studio.models.event_row import Row

__all__ = ["GROUP_ID", "RootFold"]

GROUP_ID = 1 << 62
"""The ``internalId`` of the fold's own row (no event row has an id that large)."""


class RootFold:
    KEEP = 25
    """Top-level rows that always stay at the top level (the newest)."""
    STEP = 25
    """Top-level rows past ``KEEP`` before they are folded (so a fold moves rows once in
    ``STEP`` runs, not at every run)."""

    def __init__(self) -> None:
        self.on = False
        """Whether the fold's row exists (first of the root's Qt rows)."""
        self.count = 0
        """The root's first ``count`` visible children are in the fold."""
        self.runs = 0
        """How many of them are runs (the rest: rows without a run of their own)."""
        self.failed = 0
        """2 = a folded row failed, 1 = something in one did, 0 = neither (``FailedRole``)."""

    @property
    def head(self) -> int:
        """Qt rows before the root's unfolded children: the fold's row, when there is one."""
        return 1 if self.on else 0

    @property
    def label(self) -> str:
        noun = "run" if self.runs == self.count else "row"
        return f"{self.count:,} earlier {noun}{'' if self.count == 1 else 's'}"

    def reset(self, shown: int, rows: Sequence[Row]) -> None:
        """Start over on a root whose first ``shown`` visible children (``rows``) Qt knows (a
        model reset: no signals needed)."""
        self.on = shown > self.KEEP + self.STEP
        self.count = self.runs = self.failed = 0
        if self.on:
            self.take(rows[: shown - self.KEEP])

    def due(self, shown: int) -> int:
        """How many more of the root's children to fold now (0: none)."""
        top = shown - self.count
        return top - self.KEEP if top > self.KEEP + self.STEP else 0

    def folded(self, pos: int) -> bool:
        """Whether the root's visible child at ``pos`` is in the fold."""
        return pos < self.count

    def qt_row(self, pos: int) -> int:
        """The Qt row of the root's visible child at ``pos``, under the fold's row when it is
        folded, else under the root."""
        return pos if pos < self.count else pos - self.count + self.head

    def take(self, rows: Sequence[Row]) -> None:
        """``rows`` join the fold (the next ones at its end, or one revealed among them)."""
        self.count += len(rows)
        self.runs += sum(1 for r in rows if r.kind == "run.started")
        for r in rows:
            self.note_changed(r)

    def note_changed(self, row: Row) -> bool:
        """A folded ``row`` is new or changed: whether the fold's own mark changed with it."""
        mark = 2 if row.failed else 1 if row.contains_failure else 0
        if mark > self.failed:
            self.failed = mark
            return True
        return False
