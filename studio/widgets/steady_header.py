"""A tree view's header that repaints from a picture of itself while nothing of it changed.

``QTreeView`` lays its header out again after every relayout of its rows
(``QTreeView::doItemsLayout`` ends with ``header->doItemsLayout()``), and that repaints the
whole header: each batch of new rows in a live log, each new checkpoint's state read into a
tree, repainted the same sections with the app's stylesheet (about half a millisecond a
header, once or twice per agent turn).  ``SteadyHeader`` paints as the stock header when its
look is new, draws it into a picture right after (outside any paint event: a widget rendered
inside a paint, a ``grab()``'s, cannot be rendered again), and copies that picture while the
look is the same: its size, scroll offset, sections (place, size, title), sort indicator,
palette, font, and enabled/active state.  The titles are read as text (``DisplayRole``): a
model giving its header fonts or icons that change on their own is not for this header.  What the pointer does
(hover, a press, a drag) is painted as Qt paints it, from scratch, so the header looks exactly
as the stock one; a style, palette or font change drops the picture.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPainter, QPaintEvent, QPixmap, QRegion
from PySide6.QtWidgets import QHeaderView, QTreeView, QWidget

__all__ = ["SteadyHeader", "steady_header"]

_DROPS = frozenset(
    {
        QEvent.Type.StyleChange,
        QEvent.Type.PaletteChange,
        QEvent.Type.FontChange,
        QEvent.Type.EnabledChange,
        QEvent.Type.LayoutDirectionChange,
    }
)


class SteadyHeader(QHeaderView):
    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._picture: QPixmap | None = None
        self._look: tuple[Any, ...] | None = None
        self._rendering = False
        self._capture = QTimer(self)
        self._capture.setSingleShot(True)
        self._capture.setInterval(0)
        self._capture.timeout.connect(self._take_picture)
        self.pictures = 0
        """How many times the header was drawn into its picture (for tests and diagnostics)."""
        # a palette set on the header alone may not reach its viewport (under a stylesheet)
        self.installEventFilter(self)
        self.viewport().installEventFilter(self)

    def drop_picture(self) -> None:
        self._picture = None
        self._look = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _DROPS:
            self.drop_picture()
        return False

    def _current_look(self) -> tuple[Any, ...] | None:
        """What the header's pixels depend on, or None when it is drawn as Qt draws it (the
        pointer on it, sections highlighted by the selection, no model)."""
        model = self.model()
        if model is None or self.highlightSections() or self.underMouse():
            return None
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton:
            return None
        viewport = self.viewport()
        orientation = self.orientation()
        sections = tuple(
            (
                self.sectionViewportPosition(i),
                self.sectionSize(i),
                model.headerData(i, orientation, Qt.ItemDataRole.DisplayRole),
            )
            for i in range(self.count())
        )
        return (
            viewport.width(),
            viewport.height(),
            viewport.devicePixelRatioF(),
            self.offset(),
            sections,
            self.isSortIndicatorShown()
            and (self.sortIndicatorSection(), self.sortIndicatorOrder()),
            self.sectionsClickable(),
            self.isEnabled(),
            self.isActiveWindow(),
            self.palette().cacheKey(),
            self.font().key(),
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._rendering:
            look = self._current_look()
            if look is not None and look == self._look and self._picture is not None:
                painter = QPainter(self.viewport())
                painter.drawPixmap(0, 0, self._picture)
                painter.end()
                return
            if look is None:
                self.drop_picture()
            elif not self._capture.isActive():
                self._capture.start()  # drawn into the picture outside any paint event
        super().paintEvent(event)

    def _take_picture(self) -> None:
        look = self._current_look()
        if look is None or not self.isVisible():
            return
        viewport = self.viewport()
        ratio = look[2]
        picture = QPixmap(round(viewport.width() * ratio), round(viewport.height() * ratio))
        picture.setDevicePixelRatio(ratio)
        picture.fill(Qt.GlobalColor.transparent)
        self._rendering = True
        try:
            viewport.render(
                picture, QPoint(0, 0), QRegion(), QWidget.RenderFlag.DrawWindowBackground
            )
        finally:
            self._rendering = False
        self._picture, self._look = picture, look
        self.pictures += 1


def steady_header(view: QTreeView) -> SteadyHeader:
    """Give ``view`` a ``SteadyHeader`` in place of its own, set as the tree view sets its own
    (movable sections but the first, the last one stretched, titles left and centred)."""
    old = view.header()
    header = SteadyHeader(Qt.Orientation.Horizontal, view)
    header.setSectionsMovable(old.sectionsMovable())
    header.setStretchLastSection(old.stretchLastSection())
    header.setDefaultAlignment(old.defaultAlignment())
    header.setSectionsClickable(old.sectionsClickable())
    header.setHighlightSections(old.highlightSections())
    view.setHeader(header)  # deletes the old one
    return header
