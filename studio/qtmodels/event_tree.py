"""``EventTreeModel``: a thin QAbstractItemModel over ``EventTree`` (practice 4).

Columns: Event (the row summary, with an icon per event family and status), Node, Time (from
the run's start), Duration and Cost (tokens and dollars of the model calls in the span: a
``UsageLedger`` fed the same events, priced with ``prices``).  Structure changes reach Qt in batches: one
``beginInsertRows``/``endInsertRows`` per grown parent per ``add_events`` call, never one per
event, plus one ``dataChanged`` range per parent for rows that closed, failed below or streamed
tokens.

Which rows Qt knows, and their indexes (lazily fetched, the older top-level rows folded), is
``studio.qtmodels.event_index.EventIndex``; this module feeds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QPalette

from engine.events import EventBase
from studio.look.tones import tones_for
from studio.models.event_filter import EventFilter, FilterJob, TreeDelta
from studio.models.event_row import Row
from studio.models.pricing import PriceTable
from studio.models.run_gap import RunGap
from studio.qtmodels.event_fold import GROUP_ID
from studio.qtmodels.event_gap import GAP_ID
from studio.qtmodels.event_index import EventIndex

__all__ = ["EventTreeModel"]


class EventTreeModel(EventIndex):
    # -- feeding -------------------------------------------------------------------------------

    def add_events(self, events: Iterable[EventBase], *, sync: bool = True) -> TreeDelta:
        """Ingest ``events``; with ``sync=False`` Qt hears of the new rows only at the next
        ``sync()`` (a flood is ingested in many slices and shown a few times a second)."""
        self._updating = True  # no fetchMore from listeners of our own signals meanwhile
        try:
            events = events if isinstance(events, list) else list(events)
            delta = self.tree.add_batch(events, self)
            if self.gap.waiting:
                self._place_gap()
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
        self.gap.clear()
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

    def set_gap(self, gap: RunGap | None) -> None:
        """Show ``gap`` (a cut run's middle, left in the file) under its run's row, once the
        row is there (None: no gap)."""
        slot = self.gap
        if gap == slot.gap:
            return
        if self._gap_known():
            assert slot.row is not None
            self.beginRemoveRows(self._index_for(slot.row), 0, 0)
            slot.clear()
            self.endRemoveRows()
        slot.clear()
        slot.gap = gap
        self._place_gap()

    def _place_gap(self) -> None:
        slot = self.gap
        row = slot.run_row(self.tree)
        if row is None:
            return
        if not self.tree.is_visible(row) or not self._known(row):
            slot.row = row  # Qt hears of the gap's row with the run's
            return
        self.beginInsertRows(self._index_for(row), 0, 0)
        slot.row = row
        self.endInsertRows()
        last = len(self.COLUMNS) - 1
        self.dataChanged.emit(self.createIndex(0, 0, GAP_ID), self.createIndex(0, last, GAP_ID))

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
            lead = self.gap.lead(parent)  # the gap's row first, under the cut run's
            self.dataChanged.emit(self.index(lo + lead, 0, pi), self.index(hi + lead, last, pi))

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
