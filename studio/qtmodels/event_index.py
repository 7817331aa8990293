"""``EventIndex``: the Qt shape of an ``EventTree`` (practice 4): which of its rows Qt knows,
and their indexes.  ``studio.qtmodels.event_tree.EventTreeModel`` feeds it.

Lazy population: Qt sees a parent's children only once it *fetched* them (``canFetchMore`` /
``fetchMore``: the view does it when a row is expanded, the root is fetched in pages of
``PAGE``).  Rows arriving under a parent Qt has fully fetched are inserted live; under one it
has not, they cost nothing until it is expanded.  So a huge tree stays virtualised, and a live
log stays cheap whatever its size.  The older top-level rows are folded under one row
(``studio.qtmodels.event_fold``), and a cut run's middle, left in the file, is one row first
under the run's (``studio.qtmodels.event_gap``): rows of no event, with ids from ``GROUP_ID``
up.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import QApplication

from studio.look.tones import Tones, tones_for
from studio.models.event_filter import TreeDelta
from studio.models.event_row import Row
from studio.models.event_tree import EventTree
from studio.models.pricing import PriceTable
from studio.models.usage_ledger import UsageLedger
from studio.qtmodels.event_fold import GROUP_ID, RootFold
from studio.qtmodels.event_gap import GAP_ID, GapSlot
from studio.qtmodels.event_look import EventLook

__all__ = ["EventIndex", "Index"]

Index = QModelIndex | QPersistentModelIndex
_INVALID = QModelIndex()


class EventIndex(EventLook, QAbstractItemModel):
    PAGE = 1000
    """Top-level rows exposed per ``fetchMore`` of the root."""

    def __init__(self, tree: EventTree | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tree = tree if tree is not None else EventTree()
        self.usage = UsageLedger()
        self.prices = PriceTable.builtin()
        self._shown: dict[Row, int] = {self.tree.root: 0}
        """Parents Qt has fetched -> how many of their visible children it knows."""
        self._full: dict[Row, bool] = {}
        """Parents touched since the last sync -> whether Qt had all their children then."""
        self._delta = TreeDelta()
        """Changes not synced to Qt yet."""
        self._pending_insert: tuple[Row, int] | None = None
        self.fold = RootFold()
        """The older top-level rows, folded under one row (``studio.qtmodels.event_fold``)."""
        self.gap = GapSlot()
        """A cut run's middle, one row under the run's (``studio.qtmodels.event_gap``)."""
        self._updating = False
        self._tones: Tones = tones_for(QApplication.palette())
        self._icons: dict[tuple[str, int], QIcon] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._italic = QFont()
        self._italic.setItalic(True)
        self._expose_root()

    # -- rows and indexes ----------------------------------------------------------------------

    def row_at(self, index: Index) -> Row | None:
        """The row behind ``index`` (None: no index, the fold's own row or the gap's)."""
        if not index.isValid():
            return None
        uid = index.internalId()
        return None if uid >= GROUP_ID else self.tree.rows[uid]

    def is_fold(self, index: Index) -> bool:
        """Whether ``index`` is the row the older top-level rows are folded under."""
        return index.isValid() and index.internalId() == GROUP_ID

    def is_gap(self, index: Index) -> bool:
        """Whether ``index`` is the row in place of a cut run's middle (no event)."""
        return index.isValid() and index.internalId() == GAP_ID

    def gap_index(self) -> QModelIndex:
        """The gap's row (invalid while Qt does not know it: no cut run, or its row is not
        shown)."""
        return self.createIndex(0, 0, GAP_ID) if self._gap_known() else QModelIndex()

    def _gap_known(self) -> bool:
        """Whether Qt knows the gap's row (it knows the run's row)."""
        row = self.gap.row
        return row is not None and self.tree.is_visible(row) and self._known(row)

    def _no_rows(self, index: Index) -> bool:
        """Whether ``index`` is a row of no event (the fold's, the gap's): no rows to fetch."""
        return index.isValid() and index.internalId() >= GROUP_ID

    def fold_index(self) -> QModelIndex:
        """The fold's row (invalid while nothing is folded)."""
        return self.createIndex(0, 0, GROUP_ID) if self.fold.on else QModelIndex()

    def index_of(self, row: Row, column: int = 0) -> QModelIndex:
        """The index of a visible ``row``, fetching its ancestors' children as needed."""
        if not self.tree.is_visible(row):
            return QModelIndex()
        parent_index = QModelIndex()
        for r in [*self.tree.ancestors(row), row]:
            p = r.parent
            assert p is not None
            pos = self.tree.visible_index(r)
            if self._shown.get(p, 0) <= pos:
                self._expose(p, pos + 1 if p is self.tree.root else None)
            parent_index = self.createIndex(self._qt_row(r), column if r is row else 0, r.uid)
        return parent_index

    def uids(self, parent: Index, first: int, last: int) -> list[int]:
        """The ids (``internalId``) of the rows ``first``..``last`` under ``parent`` that Qt
        knows (as ``index(row, 0, parent).internalId()`` for each, in one call)."""
        fold, kids = self.fold, self.tree.children(self.tree.root)
        if self.is_fold(parent):
            return [r.uid for r in kids[max(0, first) : min(last + 1, fold.count)]]
        if self.is_gap(parent):
            return []
        p = self._parent_row(parent)
        if p is not self.tree.root or not fold.on:
            lead = self.gap.lead(p)  # the gap's row first, under the cut run's
            out = [GAP_ID] if lead and first <= 0 <= last else []
            end = min(last + 1 - lead, self._shown.get(p, 0))
            return out + [r.uid for r in self.tree.children(p)[max(0, first - lead) : end]]
        out = [GROUP_ID] if first <= 0 <= last else []
        lo, hi = max(first, 1) - 1 + fold.count, last + fold.count  # Qt rows -> positions
        return out + [r.uid for r in kids[lo : min(hi, self._shown.get(p, 0))]]

    def _parent_row(self, index: Index) -> Row:
        return self.tree.rows[index.internalId()] if index.isValid() else self.tree.root

    def _qt_row(self, row: Row) -> int:
        """``row``'s Qt row number under its Qt parent (the fold's row for a folded one)."""
        pos = self.tree.visible_index(row)
        parent = row.parent
        if parent is self.tree.root:
            return self.fold.qt_row(pos)
        return pos + 1 if parent is self.gap.row else pos

    def _qt_parent(self, parent: Row, pos: int) -> tuple[QModelIndex, int]:
        """The Qt parent and row of ``parent``'s visible child at ``pos``."""
        if parent is not self.tree.root:
            return self._index_for(parent), pos + self.gap.lead(parent)
        fold = self.fold
        if fold.folded(pos):
            return self.fold_index(), pos
        return QModelIndex(), fold.qt_row(pos)

    # -- what Qt knows -------------------------------------------------------------------------

    def _known(self, row: Row) -> bool:
        """Whether Qt knows ``row`` (every ancestor fetched it)."""
        tree = self.tree
        r = row
        while r is not tree.root:
            p = r.parent
            if p is None or self._shown.get(p, 0) <= tree.visible_index(r):
                return False
            r = p
        return True

    def _expose(self, parent: Row, upto: int | None) -> None:
        """Let Qt see ``parent``'s children up to ``upto`` (None: all of them)."""
        total = len(self.tree.children(parent))
        shown = self._shown.get(parent, 0)
        target = total if upto is None else min(total, upto)
        if parent is not self.tree.root and not self._known(parent):
            return
        if target <= shown:
            self._shown[parent] = shown
            return
        updating, self._updating = self._updating, True
        try:
            qt_parent, qt_row = self._qt_parent(parent, shown)
            self.beginInsertRows(qt_parent, qt_row, qt_row + target - shown - 1)
            self._shown[parent] = target
            self.endInsertRows()
        finally:
            self._updating = updating

    def _expose_root(self) -> None:
        kids = self.tree.children(self.tree.root)
        self._shown[self.tree.root] = shown = min(self.PAGE, len(kids))
        self.fold.reset(shown, kids)

    def _reset_exposure(self) -> None:
        self._shown = {self.tree.root: 0}
        self._full.clear()
        self._delta = TreeDelta()
        self._expose_root()

    def _index_for(self, row: Row) -> QModelIndex:
        if row is self.tree.root:
            return QModelIndex()
        return self.createIndex(self._qt_row(row), 0, row.uid)

    # -- QAbstractItemModel --------------------------------------------------------------------

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return len(self.COLUMNS)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.column() > 0:
            return 0
        fold = self.fold
        if not parent.isValid():
            return self._shown.get(self.tree.root, 0) - fold.count + fold.head
        uid = parent.internalId()
        if uid >= GROUP_ID:
            return fold.count if uid == GROUP_ID else 0
        row = self.tree.rows[uid]
        return self._shown.get(row, 0) + (row is self.gap.row)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        # Hot: a tree view asks this for every visible row on each relayout.
        if not parent.isValid():
            return bool(self.tree.children(self.tree.root))
        if parent.column() > 0:
            return False
        uid = parent.internalId()
        if uid >= GROUP_ID:
            return uid == GROUP_ID and self.fold.count > 0
        row = self.tree.rows[uid]
        return bool(self.tree.children(row)) or row is self.gap.row

    def canFetchMore(self, parent: Index) -> bool:
        if parent.column() > 0 or self._updating or self._no_rows(parent):
            return False
        row = self._parent_row(parent)
        return self._shown.get(row, 0) < len(self.tree.children(row))

    def fetchMore(self, parent: Index) -> None:
        if parent.column() > 0 or self._updating or self._no_rows(parent):
            return
        row = self._parent_row(parent)
        if row is self.tree.root:
            self._expose(row, self._shown.get(row, 0) + self.PAGE)
        else:
            self._expose(row, None)

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        # Hot: called for every visible row on each relayout of the tree view.
        pos = row
        if parent.isValid():
            if parent.column() > 0:
                return _INVALID
            uid = parent.internalId()
            if uid == GROUP_ID:
                p = self.tree.root
                if row >= self.fold.count:
                    return _INVALID
            elif uid == GAP_ID:
                return _INVALID
            else:
                p = self.tree.rows[uid]
                if p is self.gap.row:  # the gap's row first, then the run's children
                    if row == 0:
                        ok = 0 <= column < len(self.COLUMNS)
                        return self.createIndex(0, column, GAP_ID) if ok else _INVALID
                    pos = row - 1
        else:
            p = self.tree.root
            if self.fold.on:
                if row == 0:
                    return self.createIndex(0, column, GROUP_ID)
                pos = row - 1 + self.fold.count
        if pos < 0 or pos >= self._shown.get(p, 0) or not 0 <= column < len(self.COLUMNS):
            return _INVALID
        return self.createIndex(row, column, self.tree.children(p)[pos].uid)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        uid = index.internalId()
        if uid >= GROUP_ID:
            run = self.gap.row if uid == GAP_ID else None
            return self._index_for(run) if run is not None else QModelIndex()
        row = self.tree.rows[uid]
        p = row.parent
        if p is None:
            return QModelIndex()
        if p is self.tree.root:
            fold = self.fold
            if fold.on and fold.folded(self.tree.visible_index(row)):
                return self.fold_index()
            return QModelIndex()
        return self.createIndex(self._qt_row(p), 0, p.uid)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section] if 0 <= section < len(self.COLUMNS) else None
        return None

    # No ``flags`` override: Qt's own answers the same (enabled and selectable, nothing for an
    # invalid index) without a call into Python, which a tree view makes twice per visible row
    # on every relayout and once per painted cell.
