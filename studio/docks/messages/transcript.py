"""``TranscriptView``: the message cards in a one-column table whose row heights we own.

A list view with variable item sizes asks every row's size on each insertion (a full
relayout), which is O(conversation) per new message.  Here the heights live in the table's
vertical header: a new message sets the height of its own row once, a streamed reply only when
it grows a line, so appending stays O(1) however long the conversation is.  A width change
re-measures the visible rows at once and the rest in slices of ``SLICE_S``.

The view follows the conversation (scrolls to the newest message) while the user is at the
bottom; scrolled up, nothing moves under them.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QTableView, QWidget

from studio.docks.messages.card import MessageDelegate
from studio.qtmodels.transcript import TranscriptModel

__all__ = ["TranscriptView"]


class TranscriptView(QTableView):
    SLICE_S = 0.008
    EAGER = 6
    """Rows measured at once when many arrive together (a flood of messages)."""

    def __init__(self, model: TranscriptModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.transcript_model = model
        self.setModel(model)
        self.delegate = MessageDelegate(self)
        self.setItemDelegate(self.delegate)
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setMinimumSectionSize(8)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.verticalScrollBar().setSingleStep(24)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.follow = True
        """Whether the view is at the bottom (new messages scroll it)."""
        self._dirty: set[int] = set()
        self._fresh: list[int] = []
        self._stale: list[int] = []
        """Rows still measured at an older width (popped from the end: newest first)."""
        self._width = 0
        self._relayout = QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self._measure_stale)
        self._scroll = QTimer(self)
        self._scroll.setSingleShot(True)
        self._scroll.setInterval(0)
        self._scroll.timeout.connect(self.scrollToBottom)
        model.rowsInserted.connect(self._on_inserted)
        model.modelReset.connect(self._on_reset)
        model.dataChanged.connect(self._on_changed)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # -- heights -------------------------------------------------------------------------------

    def _measure(self, row: int) -> bool:
        """Set ``row``'s height from its card; True if it changed."""
        height = self.delegate.height(self.transcript_model.entry(row))
        if self.rowHeight(row) != height:
            self.setRowHeight(row, height)
            return True
        return False

    def _on_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        """New rows get an estimated height; ``settle()`` measures them."""
        estimate = self.verticalHeader().defaultSectionSize() * 3
        for row in range(first, last + 1):
            self.setRowHeight(row, estimate)
        self._fresh.extend(range(first, last + 1))

    def _on_reset(self) -> None:
        self._dirty.clear()
        self._fresh.clear()
        self.remeasure()
        self._follow_tail()

    def _on_changed(self, top: QModelIndex, bottom: QModelIndex, *_: Any) -> None:
        self._dirty.update(range(top.row(), bottom.row() + 1))

    def settle(self) -> None:
        """Measure what changed since the last call: the newest ``EAGER`` new rows and the
        changed ones (a streamed reply, an edit) now, other new rows in slices, newest first."""
        dirty, self._dirty = self._dirty, set()
        fresh, self._fresh = self._fresh, []
        rows = self.transcript_model.rowCount()
        fresh = [r for r in fresh if r < rows]
        if len(fresh) > self.EAGER:
            self._stale.extend(fresh[: -self.EAGER])
            fresh = fresh[-self.EAGER :]
            self._relayout.start()
        grown = bool(fresh)
        for row in [*fresh, *dirty]:
            if row < rows:
                grown = self._measure(row) or grown
        if grown:
            self._follow_tail()

    def remeasure(self) -> None:
        """Visible rows now; the others in slices, the newest first."""
        rows = self.transcript_model.rowCount()
        self._stale = []
        if not rows:
            return
        top = max(0, self.rowAt(0))
        bottom = self.rowAt(self.viewport().height())
        bottom = rows - 1 if bottom < 0 else bottom
        for row in range(top, bottom + 1):
            self._measure(row)
        self._stale = [*range(top), *range(bottom + 1, rows)]
        if self._stale:
            self._relayout.start()

    def _measure_stale(self) -> None:
        deadline = time.perf_counter() + self.SLICE_S
        stale = self._stale
        rows = self.transcript_model.rowCount()
        while stale and time.perf_counter() < deadline:
            row = stale.pop()
            if row < rows:
                self._measure(row)
        if stale:
            self._relayout.start()
        self._follow_tail()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        width = self.viewport().width()
        if width != self._width:
            self._width = width
            self.remeasure()
            self._follow_tail()

    # -- following -----------------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        self.follow = value >= self.verticalScrollBar().maximum() - 8

    def _follow_tail(self) -> None:
        if self.follow and not self._scroll.isActive():
            self._scroll.start()
