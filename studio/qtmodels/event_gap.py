"""The Events tree's row in place of a cut run's middle, left in the file.

A run longer than the load limit is loaded as its start and its last events
(``studio.history.long_run``): its row's children jump from its start to, say, "superstep
852".  ``GapSlot`` keeps the one row that says so, first under the run's row: "5,962 events
not loaded (supersteps 0–851 of this run stay in the file)".  It is not an event: it is not in
``EventTree`` (so no count, filter or search sees it), and the Qt model shows it as a row of
its own, like the fold's (``studio.qtmodels.event_fold``), with an id no event row has.
"""

from __future__ import annotations

from studio.models.event_row import Row
from studio.models.event_tree import EventTree
from studio.models.run_gap import RunGap
from studio.qtmodels.event_fold import GROUP_ID

__all__ = ["GAP_ID", "GapSlot"]

GAP_ID = GROUP_ID + 1
"""The ``internalId`` of the gap's row (ids from ``GROUP_ID`` up are rows of no event)."""


class GapSlot:
    def __init__(self) -> None:
        self.gap: RunGap | None = None
        """The cut run's middle (None: no run is cut)."""
        self.row: Row | None = None
        """The cut run's row, once it arrived: the gap is its first row in Qt."""

    @property
    def waiting(self) -> bool:
        """A gap whose run's row has not arrived yet."""
        return self.gap is not None and self.row is None

    def lead(self, parent: Row) -> int:
        """Qt rows before ``parent``'s children: the gap's, under the cut run's row."""
        return 1 if parent is self.row else 0

    def run_row(self, tree: EventTree) -> Row | None:
        """The cut run's row in ``tree`` (None: not there yet)."""
        gap = self.gap
        if gap is None:
            return None
        row = tree.find(gap.run_seq, gap.run_id)
        return row if row is not None and row.kind == "run.started" else None

    def clear(self) -> None:
        self.gap = self.row = None
