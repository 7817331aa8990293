"""A label that never widens its window: long text is elided, the full text is its tooltip.

A plain ``QLabel`` asks for the width of its whole text, so a long status message or node name
grows the status bar, and with it the main window's minimum width.  This one asks for its text's
width as a *preference* only: its minimum is a few characters, and what does not fit ends in "…".
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyle, QStyleOption, QWidget

from studio.widgets.plain_text import plain_tip

__all__ = ["ElidedLabel"]

_MIN_CHARS = 4


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)  # whatever it shows is data, never HTML
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        super().setText(text)
        self.setToolTip(plain_tip(text))

    def full_text(self) -> str:
        return self._full

    def shown_text(self) -> str:
        """What is painted: the text, elided to the label's current width."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().horizontalAdvance("x" * _MIN_CHARS), hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(
            self.contentsRect(),
            int(self.alignment() | Qt.AlignmentFlag.AlignVCenter),
            self.shown_text(),
        )
