"""The Timeline dock's Qt item model (over ``TimelineModel``); its rows are painted by
``studio.qtmodels.timeline_delegate``.

One column; every row is painted by ``TimelineDelegate``: the branch's colour lane, the step,
a source chip (input / loop / update / fork), the node(s) that wrote the checkpoint and
``next``, and markers (⚠ replay diverged, ‖ interrupted, ✗ error) at the right.  Branch
headers are painted as a coloured title.  Rows have a uniform height, so the view stays fast
with 10,000 checkpoints.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QStandardItem,
    QStandardItemModel,
)

from studio.models.timeline import Branch, CheckpointNode, TimelineChange, TimelineModel
from studio.qtmodels.timeline_fold import EarlierCheckpoints, TimelineFold
from studio.widgets.plain_text import plain_tip

__all__ = ["ITEM_ROLE", "MARKS", "ROW_HEIGHT", "TimelineItemModel"]

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_HEIGHT = 24
MARKS = {"divergence": "⚠", "interrupt": "‖", "error": "✗", "replayed": "⟲"}
Index = QModelIndex | QPersistentModelIndex


class TimelineItemModel(QStandardItemModel):
    """``TimelineModel``'s tree mirrored in Qt's own item model, one ``QStandardItem`` per row
    (the checkpoint or branch in ``ITEM_ROLE``).

    The tree view lays every row out again after each insertion (a live run inserts a few rows
    a batch): from a model written in Python that asked it three times per row (its index and
    its flags, twice), about 14 us a row, 30 ms a batch at 2,000 rows and growing with the
    thread; from this one it asks Qt.  Only ``data`` is answered here (what rows show).

    A long thread's oldest top-level rows are folded under one row (``timeline_fold``)."""

    folded = Signal()
    """Rows moved into the fold (taken and put back: the dock reopens what was open)."""

    def __init__(self, model: TimelineModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timeline = model
        self._items: dict[int, QStandardItem] = {}
        """The row of each checkpoint and branch, by ``id``."""
        self.fold = TimelineFold(ITEM_ROLE, _ROW_FLAGS)
        self.setColumnCount(1)
        self._fill()
        model.subscribe(self._on_change)

    # -- notifications -----------------------------------------------------------------------

    def _on_change(self, phase: str, ch: TimelineChange) -> None:
        if phase != "after":
            return
        if ch.kind == "reset":
            self.beginResetModel()
            blocked = self.blockSignals(True)  # one reset for the views, not a row at a time
            try:
                self._fill()
            finally:
                self.blockSignals(blocked)
            self.endResetModel()
        elif ch.kind == "insert":
            parent = self._row_of(ch.parent)
            timeline = self.timeline
            rows = [self._make(timeline.child(ch.parent, r)) for r in range(ch.first, ch.last + 1)]
            first = ch.first
            if ch.parent is None:
                into, first = self.fold.place(first)
                parent = into or parent
            parent.insertRows(first, rows)
            if ch.parent is None and self.fold.fold_more(self.invisibleRootItem()):
                self.folded.emit()
        elif ch.kind == "update":
            for node in ch.items:
                found = self._items.get(id(node))
                if found is not None:
                    found.emitDataChanged()

    def _fill(self) -> None:
        root = self.invisibleRootItem()
        root.removeRows(0, root.rowCount())
        self._items.clear()
        timeline = self.timeline
        rows = [self._make(timeline.child(None, r)) for r in range(timeline.child_count(None))]
        self.fold.fill(root, rows)
        self.setColumnCount(1)

    def _make(self, item: CheckpointNode | Branch) -> QStandardItem:
        row = QStandardItem()
        row.setData(item, ITEM_ROLE)
        row.setFlags(_ROW_FLAGS)
        self._items[id(item)] = row
        timeline = self.timeline
        count = timeline.child_count(item)
        if count:
            row.appendRows([self._make(timeline.child(item, r)) for r in range(count)])
        return row

    def _row_of(self, item: CheckpointNode | Branch | None) -> QStandardItem:
        if item is None:
            return self.invisibleRootItem()
        return self._items[id(item)]

    def index_of(self, item: CheckpointNode | Branch | None) -> QModelIndex:
        if item is None:
            return QModelIndex()
        found = self._items.get(id(item))
        return found.index() if found is not None else QModelIndex()

    def item(  # type: ignore[override]
        self, index: Index
    ) -> CheckpointNode | Branch | EarlierCheckpoints | None:
        return super().data(index, ITEM_ROLE) if index.isValid() else None

    def fold_index(self) -> QModelIndex:
        """The fold's row (invalid while nothing is folded)."""
        row = self.fold.row
        return row.index() if row is not None else QModelIndex()

    # -- QAbstractItemModel ------------------------------------------------------------------

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item(index)
        if item is None:
            return None
        if role == ITEM_ROLE:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            return item.summary() if isinstance(item, CheckpointNode) else item.title()
        if role == Qt.ItemDataRole.ToolTipRole:
            if isinstance(item, EarlierCheckpoints):
                return plain_tip(
                    f"{item.title()} of this thread, folded so the Timeline stays quick to "
                    "update; click to open."
                )
            if isinstance(item, Branch):
                return plain_tip(f"{item.title()}\ntip: {item.tip.summary()}")
            lines = [item.summary(), f"checkpoint {item.checkpoint_id}"]
            lines += [f"{MARKS[m.kind]} {m.text}" for m in item.markers]
            return plain_tip("\n".join(lines))
        return None


_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
