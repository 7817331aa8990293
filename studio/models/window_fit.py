"""Where the main window opens: inside the screen's available area (plain Python, no Qt).

``first_placement(available)`` is the window's first geometry on a screen: the preferred size
centred when it fits with a margin, else the whole available area, maximized (a laptop's
1366x768 gets a maximized window, a 1920x1080 desktop the preferred size).  ``fits(frame,
available)`` tells whether a restored geometry is still wholly on the screen (the screen may
have changed since it was saved: a laptop undocked from a large monitor).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PREFERRED", "Placement", "Rect", "clamp", "first_placement", "fits"]


class Rect(NamedTuple):
    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h


class Placement(NamedTuple):
    rect: Rect
    """The normal (not maximized) geometry of the window."""
    maximized: bool


PREFERRED = (1480, 920)
_MARGIN = 40
"""Room left around a window that is not maximized (window-manager frame, a panel)."""


def first_placement(available: Rect, preferred: tuple[int, int] = PREFERRED) -> Placement:
    """The preferred size centred on ``available`` when it fits with a margin; otherwise the
    available area less the margin (the normal geometry), shown maximized."""
    want_w, want_h = preferred
    if want_w + 2 * _MARGIN <= available.w and want_h + 2 * _MARGIN <= available.h:
        x = available.x + (available.w - want_w) // 2
        y = available.y + (available.h - want_h) // 2
        return Placement(Rect(x, y, want_w, want_h), maximized=False)
    return Placement(clamp(Rect(0, 0, want_w, want_h), available), maximized=True)


def clamp(rect: Rect, available: Rect) -> Rect:
    """``rect`` shrunk to leave the margin inside ``available`` and moved into it."""
    w = max(1, min(rect.w, available.w - 2 * _MARGIN if available.w > 4 * _MARGIN else available.w))
    h = max(1, min(rect.h, available.h - 2 * _MARGIN if available.h > 4 * _MARGIN else available.h))
    x = min(max(rect.x, available.x), available.right - w)
    y = min(max(rect.y, available.y), available.bottom - h)
    if (x, y) == (rect.x, rect.y) and rect.w == w and rect.h == h:
        return rect
    # a window moved or shrunk: centre it rather than pin it to an edge
    return Rect(available.x + (available.w - w) // 2, available.y + (available.h - h) // 2, w, h)


def fits(frame: Rect, available: Rect) -> bool:
    """Is ``frame`` (the window with its decorations) wholly inside ``available``?"""
    return (
        frame.x >= available.x
        and frame.y >= available.y
        and frame.right <= available.right
        and frame.bottom <= available.bottom
    )
