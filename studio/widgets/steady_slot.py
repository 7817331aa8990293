"""A place in a layout for a widget whose content changes often (a count, a time, a status):
the layouts above hear of it only when its size hints really change.

Qt tells the layouts above a label of every new text (``QLabel.setText`` calls
``updateGeometry``), and each layout that re-runs tells its parent in turn: a count under a dock
going from "2,456 events" to "2,496 events" re-lays out the dock, then the whole main window
(every dock, the status bar, the toolbars), several times per agent turn during a live run,
though nothing moves.

``SteadySlot`` holds one widget, sized to fill it exactly, and stands in the layout in its
place with its size hints, policy and limits.  A change of the widget reaches the slot alone;
the slot asks the layouts above for a new geometry only when the widget's size hints, policy,
limits or visibility differ from what they were told last.  So the widget sits where the
layout would have put it, and a text of the same size costs only its own repaint.  In a
direction whose size policy is ``Ignored`` (a header that takes what its row leaves it, elided)
layouts read neither size hint, so a text of another length there costs only its repaint too.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

__all__ = ["SteadySlot", "steady"]

_Shape = tuple[QSize, QSize, QSizePolicy, QSize, QSize]


class SteadySlot(QWidget):
    def __init__(self, child: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.child = child
        child.setParent(self)
        child.move(0, 0)
        self._shape = self._read_shape()
        self._apply_shape(self._shape)
        self.setVisible(not child.isHidden())
        child.installEventFilter(self)

    def _read_shape(self) -> _Shape:
        c = self.child
        policy = c.sizePolicy()
        hint, min_hint = c.sizeHint(), c.minimumSizeHint()
        # a direction whose policy is Ignored: layouts read neither hint in it (a label that
        # takes what the row leaves it, its text elided), so a new text there moves nothing
        if policy.horizontalPolicy() == QSizePolicy.Policy.Ignored:
            hint, min_hint = QSize(0, hint.height()), QSize(0, min_hint.height())
        if policy.verticalPolicy() == QSizePolicy.Policy.Ignored:
            hint, min_hint = QSize(hint.width(), 0), QSize(min_hint.width(), 0)
        return (hint, min_hint, policy, c.minimumSize(), c.maximumSize())

    def _apply_shape(self, shape: _Shape) -> None:
        _hint, _min_hint, policy, minimum, maximum = shape
        self.setSizePolicy(policy)
        self.setMinimumSize(minimum)
        self.setMaximumSize(maximum)

    def sizeHint(self) -> QSize:
        return self._shape[0]

    def minimumSizeHint(self) -> QSize:
        return self._shape[1]

    def hasHeightForWidth(self) -> bool:
        return self.child.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        return self.child.heightForWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.child.resize(event.size())
        super().resizeEvent(event)

    def event(self, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.LayoutRequest:  # the child asked for a new geometry
            self._refresh()
            return True
        if kind == QEvent.Type.Show:  # polished now, or changed while out of sight
            self._refresh()
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.child and kind in (QEvent.Type.ShowToParent, QEvent.Type.HideToParent):
            hidden = self.child.isHidden()
            if hidden != self.isHidden():
                self.setVisible(not hidden)
        return False

    def _refresh(self) -> None:
        shape = self._read_shape()
        if shape != self._shape:
            self._shape = shape
            self._apply_shape(shape)
            self.updateGeometry()


def steady(widget: QWidget) -> SteadySlot:
    """``widget`` in a ``SteadySlot``: add the slot to the layout in its place."""
    return SteadySlot(widget)
