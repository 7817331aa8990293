"""A tool button that shortens its label instead of widening its window.

``AdaptiveToolButton(("▶ Resume from here", "▶ Resume", "▶"))`` asks the layout for the width
of its full label (``sizeHint``) but accepts as little as its shortest one
(``minimumSizeHint``); once laid out, it shows the longest label that fits.  The full label is
always the tooltip's first line, so nothing is lost on a narrow window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QToolButton, QWidget

from studio.widgets.plain_text import plain_tip

__all__ = ["AdaptiveToolButton"]


class AdaptiveToolButton(QToolButton):
    def __init__(self, labels: tuple[str, ...], tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if not labels:
            raise ValueError("AdaptiveToolButton needs at least one label")
        self.labels = labels
        self._hints: list[QSize] = []
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        # may shrink below its full label (a tool button is Fixed by default)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setAutoRaise(True)
        first = labels[0]
        self.setToolTip(plain_tip(f"{first}\n{tip}" if len(labels) > 1 else tip))
        self._measure()
        super().setText(first)

    def _measure(self) -> None:
        hints: list[QSize] = []
        for label in self.labels:
            super().setText(label)
            hints.append(QToolButton.sizeHint(self))
        self._hints = hints

    def sizeHint(self) -> QSize:
        return self._hints[0]

    def minimumSizeHint(self) -> QSize:
        return self._hints[-1]

    def label_for(self, width: int) -> str:
        """The longest label that fits ``width`` (the shortest when none does)."""
        for label, hint in zip(self.labels, self._hints, strict=True):
            if hint.width() <= width:
                return label
        return self.labels[-1]

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        label = self.label_for(event.size().width())
        if label != self.text():
            super().setText(label)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            current = self.text()
            self._measure()
            super().setText(current)
            self.updateGeometry()
