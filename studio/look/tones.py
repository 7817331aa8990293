"""Semantic colours of the event log and the transcript, picked for the current QPalette.

The same meanings as the Graph dock (``graph_theme``): red = failed, amber = interrupted or
retrying, blue = running, green = succeeded; plus one hue per event family for the log's icons.
Light or dark is read from the palette's window colour, so a theme switch only needs
``tones_for(widget.palette())`` again.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

from studio.docks.graph.theme import palette_for

__all__ = ["Tones", "is_dark", "tones_for"]


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


@dataclass(frozen=True)
class Tones:
    dark: bool
    text: QColor
    muted: QColor
    failed: QColor
    failed_fill: QColor
    interrupted: QColor
    interrupted_fill: QColor
    running: QColor
    ok: QColor
    panel: QColor
    border: QColor
    families: dict[str, QColor]

    def family(self, name: str) -> QColor:
        return self.families.get(name, self.muted)


_FAMILY_HUES = {
    # light, dark
    "run": ("#57606a", "#9199a5"),
    "superstep": ("#6e7781", "#8b949e"),
    "node": ("#0f6b8a", "#4fb3d9"),
    "hook": ("#8a6fd1", "#a48bf0"),
    "wrapper": ("#8a6fd1", "#a48bf0"),
    "attempt": ("#b07800", "#d29922"),
    "model": ("#3b6fd4", "#6f9cf0"),
    "tool": ("#2f8a57", "#52b97c"),
    "route": ("#1f6feb", "#58a6ff"),
    "state": ("#8c959f", "#6e7681"),
    "checkpoint": ("#8c959f", "#6e7681"),
    "interrupt": ("#b07800", "#d29922"),
    "middleware": ("#8a6fd1", "#a48bf0"),
    "plan": ("#0f6b8a", "#4fb3d9"),
    "custom": ("#8c959f", "#8b949e"),
    "loop": ("#cf222e", "#f85149"),
    "debug": ("#bc4c00", "#f0883e"),
}


def tones_for(palette: QPalette) -> Tones:
    dark = is_dark(palette)
    g = palette_for("dark" if dark else "light")
    col = 1 if dark else 0
    return Tones(
        dark=dark,
        text=palette.color(QPalette.ColorRole.Text),
        muted=QColor(g.muted),
        failed=QColor(g.failed),
        failed_fill=QColor(g.failed_fill),
        interrupted=QColor(g.interrupted),
        interrupted_fill=QColor(g.interrupted_fill),
        running=QColor(g.running),
        ok=QColor(g.ok),
        panel=palette.color(QPalette.ColorRole.Base),
        border=QColor(g.border),
        families={k: QColor(v[col]) for k, v in _FAMILY_HUES.items()},
    )
