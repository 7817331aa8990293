"""The Events tree's columns: the event itself first and widest.

The Node, Time, Duration and Cost columns have the width of a typical value; the Event column
(what happened: the kind and its summary) takes the rest of the view, but never less than
``EVENT_MIN`` pixels: in a narrow dock (a 1366-pixel screen splits the bottom row three ways)
the other columns go past the right edge and scroll, instead of squeezing the event to a few
letters.  Resizing the dock or a column keeps that rule.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHeaderView, QTreeView

__all__ = ["EVENT_MIN", "EventColumns"]

EVENT_MIN = 220
"""The Event column's least width, in pixels."""

_SAMPLES = (
    (1, "ToolRetryMiddleware.x"),
    (2, "+000.000 s"),
    (3, "00.00 s"),
    (4, "12.3k tok · $0.0123"),
)


class EventColumns(QObject):
    """Sizes the columns of ``view`` (see module docstring) and keeps them so."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self.view = view
        header = view.header()
        header.setStretchLastSection(False)
        fm = view.fontMetrics()
        for col, sample in _SAMPLES:
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, fm.horizontalAdvance(sample) + 24)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.sectionResized.connect(self._on_section_resized)
        view.viewport().installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        """The Event column: what the other columns leave of the view, at least ``EVENT_MIN``."""
        header = self.view.header()
        others = sum(header.sectionSize(c) for c in range(1, header.count()))
        width = max(EVENT_MIN, self.view.viewport().width() - others)
        if header.sectionSize(0) != width:
            header.resizeSection(0, width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def _on_section_resized(self, index: int, _old: int, _new: int) -> None:
        if index != 0:  # another column was dragged: the Event column takes up the difference
            self.fit()
