"""The Events tree's columns: the event itself first and readable.

The Node, Time, Duration and Cost columns have the width of a typical value; the Event column
(what happened: the kind and its summary) takes the rest of the view.  In a narrow dock (a
1366-pixel screen splits the bottom row three ways) it still gets ``EVENT_MIN`` pixels: the
Node column gives way first (down to ``NODE_MIN``, its text elided), so that the Time and
Duration columns stay in sight, and the Cost column scrolls past the right edge.  Resizing
the dock sizes them again; dragging a column keeps it as dragged and the Event column takes
up the difference.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHeaderView, QTreeView

__all__ = ["EVENT_MIN", "EventColumns"]

EVENT_MIN = 220
"""The Event column's least width, in pixels, when the view has room for it next to the
Time and Duration columns and the narrowest Node column (else what is left, at least
``EVENT_FLOOR``)."""
EVENT_FLOOR = 120
NODE_MIN = 90
"""The Node column's least width when the dock is narrow (its names are elided)."""

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
        self._fitting = False
        header = view.header()
        header.setStretchLastSection(False)
        fm = view.fontMetrics()
        self.natural: dict[int, int] = {}
        """Each column's width for a typical value (the Node column's widest)."""
        for col, sample in _SAMPLES:
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            self.natural[col] = fm.horizontalAdvance(sample) + 24
            header.resizeSection(col, self.natural[col])
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.sectionResized.connect(self._on_section_resized)
        view.viewport().installEventFilter(self)
        self.fit(node=True)

    def fit(self, *, node: bool = False) -> None:
        """The Event column: what the other columns leave of the view, at least ``EVENT_MIN``
        (see module docstring); ``node``: size the Node column for the view's width too."""
        header = self.view.header()
        width = self.view.viewport().width()
        shown = header.sectionSize(2) + header.sectionSize(3)  # Time, Duration: kept in sight
        least = max(EVENT_FLOOR, min(EVENT_MIN, width - NODE_MIN - shown))
        self._fitting = True
        try:
            if node:
                room = width - least - shown
                header.resizeSection(1, max(NODE_MIN, min(self.natural[1], room)))
            others = sum(header.sectionSize(c) for c in range(1, header.count()))
            event = max(least, width - others)
            if header.sectionSize(0) != event:
                header.resizeSection(0, event)
        finally:
            self._fitting = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit(node=True)
        return False

    def _on_section_resized(self, index: int, _old: int, _new: int) -> None:
        if index != 0 and not self._fitting:  # a column was dragged: the Event column adjusts
            self.fit()
