"""The Timeline's oldest top-level checkpoints, folded under one "earlier checkpoints" row.

The tree view lays every top-level row out again after each insertion (in C++ here: about
0.3 us a row, but a live thread adds a dozen checkpoints a turn, so 3 ms a turn at turn 600
and growing).  So the newest ``KEEP`` top-level rows stay at the top level, and once
``KEEP + STEP`` are there the older ones move under one row, first in the Timeline, that
opens and closes like a branch header.  A fork from a folded checkpoint moves with it.

``EarlierCheckpoints`` is what that row holds in ``ITEM_ROLE``; ``TimelineFold`` moves the
rows.  Only the Qt rows move: ``TimelineModel`` is unchanged.  ``QStandardItemModel`` cannot
move rows, so they are taken and put back: what was open inside them is reopened by the dock
(``TimelineItemModel.folded``), which also selects the selected checkpoint again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem

__all__ = ["EarlierCheckpoints", "TimelineFold"]


class EarlierCheckpoints:
    """The fold's row: how many top-level rows it holds, and whether it is open."""

    def __init__(self) -> None:
        self.count = 0
        self.open = False

    def title(self) -> str:
        return f"{self.count:,} earlier checkpoint{'' if self.count == 1 else 's'}"


class TimelineFold:
    KEEP = 250
    """Top-level rows that always stay at the top level (the newest)."""
    STEP = 250
    """Top-level rows past ``KEEP`` before they are folded (a fold every ``STEP`` rows)."""

    def __init__(self, role: int, flags: Qt.ItemFlag) -> None:
        self._role = role
        self._flags = flags
        self.row: QStandardItem | None = None
        """The fold's row (first of the root's rows), None while nothing is folded."""
        self.earlier = EarlierCheckpoints()
        self.moving = False
        """Rows are being taken and put back: a selection that changes meanwhile is Qt's doing
        (its selected row taken away), not the user's."""

    @property
    def count(self) -> int:
        """The root's first ``count`` children (``TimelineModel``'s) are in the fold."""
        return self.row.rowCount() if self.row is not None else 0

    @property
    def head(self) -> int:
        return 1 if self.row is not None else 0

    def place(self, first: int) -> tuple[QStandardItem | None, int]:
        """Where the root's child at ``first`` goes: (the fold's row, or None for the root;
        the row there)."""
        count = self.count
        if self.row is not None and first < count:
            return self.row, first
        return None, first - count + self.head

    def forget(self) -> None:
        """The rows were all taken away (a reset)."""
        self.row = None
        self.earlier = EarlierCheckpoints()

    def fill(self, root: QStandardItem, rows: list[QStandardItem]) -> None:
        """Put a reset's top-level ``rows`` under ``root``, the oldest folded when too many."""
        self.forget()
        cut = len(rows) - self.KEEP if len(rows) > self.KEEP + self.STEP else 0
        if cut:
            self._make(root)
            assert self.row is not None
            self.row.appendRows(rows[:cut])
            self._note()
        if rows[cut:]:
            root.appendRows(rows[cut:])

    def fold_more(self, root: QStandardItem) -> bool:
        """Fold the oldest top-level rows if too many are at the top level (True: folded)."""
        head = self.head
        top = root.rowCount() - head
        if top <= self.KEEP + self.STEP:
            return False
        if self.row is None:
            self._make(root)
            head = 1
        self.moving = True
        try:
            taken = [root.takeRow(head)[0] for _ in range(top - self.KEEP)]
            assert self.row is not None
            self.row.appendRows(taken)
        finally:
            self.moving = False
        self._note()
        return True

    def _make(self, root: QStandardItem) -> None:
        row = QStandardItem()
        row.setData(self.earlier, self._role)
        row.setFlags(self._flags)
        row.setColumnCount(1)  # now: its first rows would insert a column inside their insert
        root.insertRow(0, row)
        self.row = row

    def _note(self) -> None:
        assert self.row is not None
        self.earlier.count = self.row.rowCount()
        self.row.emitDataChanged()
