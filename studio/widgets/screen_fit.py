"""Size a dialog for its content, but never larger than the screen it opens on."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QStyle, QWidget

__all__ = ["SCREEN_MARGIN", "fit_on_screen", "screen_room"]

SCREEN_MARGIN = 60
"""Room kept free around a dialog (window frame, a desktop panel)."""


def screen_room(widget: QWidget) -> QSize:
    """The available size of the screen ``widget`` (or its parent) is on, less the margin."""
    screen = widget.screen()
    parent = widget.parentWidget()
    if parent is not None:
        screen = parent.screen() or screen
    screen = screen or QApplication.primaryScreen()
    area = screen.availableGeometry()
    return QSize(max(200, area.width() - SCREEN_MARGIN), max(200, area.height() - SCREEN_MARGIN))


def fit_on_screen(dialog: QWidget, content: QSize, chrome_height: int) -> QSize:
    """Resize ``dialog`` to show ``content`` (a scrolled widget's size hint) plus
    ``chrome_height`` (buttons, margins), capped by the screen; caps its maximum height too so
    it never grows past the screen.  Returns the size given."""
    room = screen_room(dialog)
    scrollbar = dialog.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
    width = min(room.width(), content.width() + scrollbar + 40)
    height = min(room.height(), content.height() + chrome_height)
    dialog.setMaximumHeight(room.height())
    dialog.resize(width, height)
    return QSize(width, height)
