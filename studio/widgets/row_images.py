"""Rows drawn once and copied: a bounded store of row images by what they show.

A delegate whose row painting fills its whole rect (so nothing under it shows through) can
draw a row once into an opaque image and copy it on every later paint; the key is everything
the row's pixels depend on (its content, selection and hover, size, fonts, pixel ratio).  Copying
an image costs a fraction of laying text out again.
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import islice

from PySide6.QtGui import QImage

__all__ = ["RowImages"]


class RowImages:
    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        """Images kept; past it the older half is dropped (a screenful is a few dozen)."""
        self._images: dict[Hashable, QImage] = {}
        self.drawn = 0
        """Rows drawn (not copied), for tests and diagnostics."""

    def __len__(self) -> int:
        return len(self._images)

    def get(self, key: Hashable) -> QImage | None:
        return self._images.get(key)

    def put(self, key: Hashable, image: QImage) -> QImage:
        if len(self._images) >= self.limit:
            for old in list(islice(self._images, self.limit // 2)):
                del self._images[old]
        self._images[key] = image
        self.drawn += 1
        return image

    def clear(self) -> None:
        self._images.clear()
