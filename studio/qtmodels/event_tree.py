"""``EventTreeModel``: a thin QAbstractItemModel over ``EventTree`` (practice 4).

Columns: Event (the row summary, with an icon per event family and status), Node, Time (from
the run's start), Duration and Cost (tokens and dollars of the model calls in the span: a
``UsageLedger`` fed the same events, priced with ``prices``).  Structure changes reach Qt in batches: one
``beginInsertRows``/``endInsertRows`` per grown parent per ``add_events`` call, never one per
event, plus one ``dataChanged`` range per parent for rows that closed, failed below or streamed
tokens.

Lazy population: Qt sees a parent's children only once it *fetched* them (``canFetchMore`` /
``fetchMore``: the view does it when a row is expanded, the root is fetched in pages of
``PAGE``).  Rows arriving under a parent Qt has fully fetched are inserted live; under one it
has not, they cost nothing until it is expanded.  So a huge tree stays virtualised, and a live
log stays cheap whatever its size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QFont, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from engine.events import EventBase
from studio.look.tones import Tones, tones_for
from studio.models.event_filter import EventFilter, FilterJob, TreeDelta
from studio.models.event_row import Row
from studio.models.event_tree import EventTree
from studio.models.pricing import PriceTable
from studio.models.usage_ledger import UsageLedger
from studio.qtmodels.event_fold import GROUP_ID, RootFold
from studio.qtmodels.event_look import EventLook

__all__ = ["EventTreeModel"]

Index = QModelIndex | QPersistentModelIndex
_INVALID = QModelIndex()


class EventTreeModel(EventLook, QAbstractItemModel):
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
        self._updating = False
        self._tones: Tones = tones_for(QApplication.palette())
        self._icons: dict[tuple[str, int], QIcon] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._expose_root()

    # -- feeding -------------------------------------------------------------------------------

    def add_events(self, events: Iterable[EventBase], *, sync: bool = True) -> TreeDelta:
        """Ingest ``events``; with ``sync=False`` Qt hears of the new rows only at the next
        ``sync()`` (a flood is ingested in many slices and shown a few times a second)."""
        self._updating = True  # no fetchMore from listeners of our own signals meanwhile
        try:
            events = events if isinstance(events, list) else list(events)
            delta = self.tree.add_batch(events, self)
            for span in self.usage.add_all(events):  # the spans whose cost changed
                row = self.tree.span_row(span)
                if row is not None:
                    delta.changed.add(row)
            self._merge(delta)
            if sync:
                self._sync()
        finally:
            self._updating = False
        return delta

    def sync(self) -> None:
        """Tell Qt about everything ingested since the last sync."""
        self._updating = True
        try:
            self._sync()
        finally:
            self._updating = False

    @property
    def unsynced(self) -> bool:
        return bool(self._delta.grown or self._delta.changed)

    def _merge(self, delta: TreeDelta) -> None:
        pending = self._delta
        for parent, before in delta.grown.items():
            pending.grown.setdefault(parent, before)
        pending.changed |= delta.changed
        pending.added += delta.added

    def clear(self) -> None:
        self.beginResetModel()
        self.tree.reset()
        self.usage.reset()
        self._reset_exposure()
        self.endResetModel()

    def start_filter(self, flt: EventFilter) -> FilterJob:
        return self.tree.start_filter(flt)

    def apply_filter(self, job: FilterJob) -> None:
        self.beginResetModel()
        self.tree.apply_filter(job)
        self._reset_exposure()
        self.endResetModel()

    def set_filter(self, flt: EventFilter) -> None:
        """Filter at once (the dock runs ``start_filter`` jobs in slices instead)."""
        self.apply_filter(self.start_filter(flt))

    def set_palette(self, palette: QPalette) -> None:
        self._tones = tones_for(palette)
        self._icons.clear()
        self._all_changed()

    def set_prices(self, prices: PriceTable) -> None:
        self.prices = prices
        self._all_changed()

    def _all_changed(self) -> None:
        if self.rowCount() and self.columnCount():
            last = len(self.COLUMNS) - 1
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, last))

    # -- rows and indexes ----------------------------------------------------------------------

    def row_at(self, index: Index) -> Row | None:
        """The row behind ``index`` (None: no index, or the fold's own row)."""
        if not index.isValid():
            return None
        uid = index.internalId()
        return None if uid == GROUP_ID else self.tree.rows[uid]

    def is_fold(self, index: Index) -> bool:
        """Whether ``index`` is the row the older top-level rows are folded under."""
        return index.isValid() and index.internalId() == GROUP_ID

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
        p = self._parent_row(parent)
        if p is not self.tree.root or not fold.on:
            end = min(last + 1, self._shown.get(p, 0))
            return [r.uid for r in self.tree.children(p)[max(0, first) : end]]
        out = [GROUP_ID] if first <= 0 <= last else []
        lo, hi = max(first, 1) - 1 + fold.count, last + fold.count  # Qt rows -> positions
        return out + [r.uid for r in kids[lo : min(hi, self._shown.get(p, 0))]]

    def _parent_row(self, index: Index) -> Row:
        return self.tree.rows[index.internalId()] if index.isValid() else self.tree.root

    def _qt_row(self, row: Row) -> int:
        """``row``'s Qt row number under its Qt parent (the fold's row for a folded one)."""
        pos = self.tree.visible_index(row)
        return self.fold.qt_row(pos) if row.parent is self.tree.root else pos

    def _qt_parent(self, parent: Row, pos: int) -> tuple[QModelIndex, int]:
        """The Qt parent and row of ``parent``'s visible child at ``pos``."""
        if parent is not self.tree.root:
            return self._index_for(parent), pos
        fold = self.fold
        if fold.folded(pos):
            return self.fold_index(), pos
        return QModelIndex(), fold.qt_row(pos)

    # -- TreeListener (called by EventTree.add_batch) -------------------------------------------

    def touch(self, parent: Row) -> None:
        # Empty parents count as fully fetched: their first children must reach Qt (the
        # expand arrow appears); parents with unfetched children stay lazy.
        if parent not in self._full:
            self._full[parent] = self._shown.get(parent, 0) >= len(self.tree.children(parent))

    def before_insert(self, parent: Row, pos: int) -> None:
        shown = self._shown.get(parent)
        if shown is not None and pos < shown:
            qt_parent, qt_row = self._qt_parent(parent, pos)
            self.beginInsertRows(qt_parent, qt_row, qt_row)
            self._pending_insert = (parent, pos)

    def after_insert(self, parent: Row, pos: int) -> None:
        if self._pending_insert == (parent, pos):
            self._shown[parent] += 1
            self._pending_insert = None
            into_fold = parent is self.tree.root and self.fold.folded(pos)
            if into_fold:  # a row revealed among the folded ones joins them
                self.fold.take(self.tree.children(parent)[pos : pos + 1])
            self.endInsertRows()
            if into_fold:
                self._fold_changed()

    # -- sync after a batch --------------------------------------------------------------------

    def _sync(self) -> None:
        delta, self._delta = self._delta, TreeDelta()
        root = self.tree.root
        known: dict[Row, int] = {}  # parents shown more children now -> how many Qt knew
        for parent in delta.grown:
            if not self._full.pop(parent, False):
                continue
            total = len(self.tree.children(parent))
            shown = known[parent] = self._shown.get(parent, 0)
            limit = shown + self.PAGE if parent is root else total
            self._expose(parent, min(total, max(limit, shown)))
        self._full.clear()
        if delta.changed:
            self._emit_changed(delta.changed, known)
        if root in known:
            self._fold_more()

    def _fold_more(self) -> None:
        """Fold the older top-level rows once too many are at the top level (a move: the
        rows keep what is open and selected in them)."""
        fold = self.fold
        root = self.tree.root
        due = fold.due(self._shown.get(root, 0))
        if not due:
            return
        updating, self._updating = self._updating, True
        try:
            if not fold.on:
                self.beginInsertRows(QModelIndex(), 0, 0)
                fold.on = True
                self.endInsertRows()
            first = fold.head
            if self.beginMoveRows(
                QModelIndex(), first, first + due - 1, self.fold_index(), fold.count
            ):
                fold.take(self.tree.children(root)[fold.count : fold.count + due])
                self.endMoveRows()
        finally:
            self._updating = updating
        self._fold_changed()

    def _fold_changed(self) -> None:
        """The fold's row reads differently (its count, its failure mark)."""
        if self.fold.on:
            last = len(self.COLUMNS) - 1
            self.dataChanged.emit(self.fold_index(), self.createIndex(0, last, GROUP_ID))

    def _emit_changed(self, rows: set[Row], known: dict[Row, int] | None = None) -> None:
        """One ``dataChanged`` per parent over its ``rows`` that Qt knew before this sync:
        rows it was just told of (``known``: their parents -> how many children it knew) have
        nothing older to redraw (a live run's spans mostly open and close within one batch)."""
        spans: dict[Row, list[int]] = {}
        tree = self.tree
        for row in rows:
            parent = row.parent
            if parent is None or not tree.is_visible(row):
                continue
            shown = self._shown.get(parent)
            pos = tree.visible_index(row)
            if shown is None or pos >= shown:
                continue
            if known and pos >= known.get(parent, shown):
                continue
            lo_hi = spans.get(parent)
            if lo_hi is None:
                spans[parent] = [pos, pos]
            elif pos < lo_hi[0]:
                lo_hi[0] = pos
            elif pos > lo_hi[1]:
                lo_hi[1] = pos
        last = len(self.COLUMNS) - 1
        for parent, (lo, hi) in spans.items():
            if parent is tree.root and self.fold.on:
                self._root_changed(lo, hi)
                continue
            if parent is not tree.root and not self._known(parent):
                continue
            pi = self._index_for(parent)
            self.dataChanged.emit(self.index(lo, 0, pi), self.index(hi, last, pi))

    def _root_changed(self, lo: int, hi: int) -> None:
        """``dataChanged`` for the root's visible children ``lo``..``hi``, folded or not."""
        fold, last = self.fold, len(self.COLUMNS) - 1
        if fold.folded(lo):
            top = min(hi, fold.count - 1)
            gi = self.fold_index()
            self.dataChanged.emit(self.index(lo, 0, gi), self.index(top, last, gi))
            kids = self.tree.children(self.tree.root)
            if any(fold.note_changed(r) for r in kids[lo : top + 1]):
                self._fold_changed()
            lo = top + 1
        if lo <= hi:
            self.dataChanged.emit(self.index(fold.qt_row(lo), 0), self.index(fold.qt_row(hi), last))

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
        if uid == GROUP_ID:
            return fold.count
        return self._shown.get(self.tree.rows[uid], 0)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        # Hot: a tree view asks this for every visible row on each relayout.
        if not parent.isValid():
            return bool(self.tree.children(self.tree.root))
        if parent.column() > 0:
            return False
        uid = parent.internalId()
        if uid == GROUP_ID:
            return self.fold.count > 0
        return bool(self.tree.children(self.tree.rows[uid]))

    def canFetchMore(self, parent: Index) -> bool:
        if parent.column() > 0 or self._updating or self.is_fold(parent):
            return False
        row = self._parent_row(parent)
        return self._shown.get(row, 0) < len(self.tree.children(row))

    def fetchMore(self, parent: Index) -> None:
        if parent.column() > 0 or self._updating or self.is_fold(parent):
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
            else:
                p = self.tree.rows[uid]
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
        if uid == GROUP_ID:
            return QModelIndex()
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
