"""Parts of a row drawn once per look and copied into every row that shows them.

``RowImages`` keeps whole rows; a row whose own numbers differ from every other row's (a
Timeline checkpoint's step) is drawn afresh, text laid out and all, though most of it (a source
chip, the writers and next nodes, markers) looks like a part of many other rows.  ``Pieces``
keeps such a part: drawn over the row's fill into an opaque image of the part's rect, by the
same operations at the same whole-pixel offsets, it is the same pixels wherever it is copied.

The part must draw nothing outside its rect (the rect clips it) and nothing else may draw in
that rect; the row's fill must be a plain colour.  A painter that is not a whole-pixel
translation of a 1:1 device (a scaled or high-DPI image) draws the part directly.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter, QTransform

from studio.widgets.row_images import RowImages

__all__ = ["Pieces"]

Draw = Callable[[QPainter, QRect], None]
"""Draws the part in the given rect (the painter antialiased)."""


class Pieces:
    def __init__(self, limit: int = 512) -> None:
        self.images = RowImages(limit)
        self.enabled = True
        """Copy parts (False: draw them directly every time; for tests)."""

    def clear(self) -> None:
        self.images.clear()

    def draw(self, p: QPainter, rect: QRect, fill: QColor, key: Hashable, draw: Draw) -> None:
        """The part ``key`` in ``rect`` of a row filled with ``fill``, drawn by ``draw``."""
        if rect.isEmpty():
            return
        if not self.enabled or not _whole_pixels(p):
            draw(p, rect)
            return
        key = (key, fill.rgba(), rect.width(), rect.height())
        image = self.images.get(key)
        if image is None:
            image = QImage(rect.width(), rect.height(), QImage.Format.Format_RGB32)
            tp = QPainter(image)
            try:
                local = QRect(0, 0, rect.width(), rect.height())
                tp.fillRect(local, fill)
                tp.setClipRect(local)
                tp.setRenderHint(QPainter.RenderHint.Antialiasing)
                draw(tp, local)
            finally:
                tp.end()
            self.images.put(key, image)
        p.drawImage(rect.topLeft(), image)


def _whole_pixels(p: QPainter) -> bool:
    device = p.device()
    if device is None or device.devicePixelRatioF() != 1.0:
        return False
    t = p.deviceTransform()
    return (
        t.type()
        in (QTransform.TransformationType.TxNone, QTransform.TransformationType.TxTranslate)
        and t.dx() == int(t.dx())
        and t.dy() == int(t.dy())
    )
