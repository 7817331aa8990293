"""Colours and fonts of the Graph dock, light and dark.

Colour semantics are the same in both themes: blue = running (and the route just taken),
red = failed (and breakpoints), amber = interrupted or retrying, violet = pending at a scrubbed
checkpoint, green = succeeded after a retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from studio.models.graph_content import TextRole

__all__ = ["DARK", "LIGHT", "Fonts", "Palette", "ThemeName", "palette_for"]

ThemeName = Literal["light", "dark"]


@dataclass(frozen=True)
class Palette:
    name: ThemeName
    background: str
    text: str
    muted: str
    border: str
    node_fill: str
    pill_fill: str
    pill_border: str
    hook_fill: str
    hook_border: str
    hook_accent: str
    model_fill: str
    model_border: str
    tools_fill: str
    tools_border: str
    subgraph_fill: str
    divider: str
    edge: str
    route: str
    label_fill: str
    label_border: str
    running: str
    running_fill: str
    failed: str
    failed_fill: str
    interrupted: str
    interrupted_fill: str
    pending: str
    ok: str
    count_fill: str
    count_text: str
    selection: str

    def color(self, name: str, alpha: int | None = None) -> QColor:
        c = QColor(getattr(self, name))
        if alpha is not None:
            c.setAlpha(alpha)
        return c


LIGHT = Palette(
    name="light",
    background="#f6f7f9",
    text="#1f2328",
    muted="#656d76",
    border="#c4cad3",
    node_fill="#ffffff",
    pill_fill="#e9ecf1",
    pill_border="#a3acb9",
    hook_fill="#f7f5fc",
    hook_border="#cbbfe8",
    hook_accent="#8a6fd1",
    model_fill="#f2f6ff",
    model_border="#7f9fdb",
    tools_fill="#f1faf4",
    tools_border="#74b38d",
    subgraph_fill="#fffaf0",
    divider="#dde2e8",
    edge="#8b95a3",
    route="#1f6feb",
    label_fill="#ffffff",
    label_border="#d3d8df",
    running="#1f6feb",
    running_fill="#dde9ff",
    failed="#cf222e",
    failed_fill="#ffebe9",
    interrupted="#b07800",
    interrupted_fill="#fff5cc",
    pending="#8250df",
    ok="#1a7f37",
    count_fill="#57606a",
    count_text="#ffffff",
    selection="#1f6feb",
)

DARK = Palette(
    name="dark",
    background="#17191e",
    text="#e6edf3",
    muted="#9199a5",
    border="#3b424d",
    node_fill="#22262d",
    pill_fill="#2b3038",
    pill_border="#59616d",
    hook_fill="#25222f",
    hook_border="#4f4570",
    hook_accent="#a48bf0",
    model_fill="#1c2535",
    model_border="#4f74b8",
    tools_fill="#1b2a22",
    tools_border="#3f8a5f",
    subgraph_fill="#2b2619",
    divider="#353b45",
    edge="#6f7884",
    route="#58a6ff",
    label_fill="#22262d",
    label_border="#3b424d",
    running="#58a6ff",
    running_fill="#132b4d",
    failed="#f85149",
    failed_fill="#3a1618",
    interrupted="#d29922",
    interrupted_fill="#352a0c",
    pending="#a371f7",
    ok="#3fb950",
    count_fill="#8b949e",
    count_text="#0d1117",
    selection="#58a6ff",
)


def palette_for(name: str) -> Palette:
    if name not in ("light", "dark"):
        raise ValueError(f"unknown theme {name!r} (use 'light' or 'dark')")
    return LIGHT if name == "light" else DARK


class Fonts:
    """Pixel-sized fonts (scene geometry must not depend on the screen's DPI)."""

    def __init__(self, family: str = "") -> None:
        base = QFont(family) if family else QFont()
        self.title = self._make(base, 13, QFont.Weight.DemiBold)
        self.subtitle = self._make(base, 11, QFont.Weight.Normal)
        self.detail = self._make(base, 11, QFont.Weight.Normal)
        self.label = self._make(base, 11, QFont.Weight.Normal)
        self.badge = self._make(base, 11, QFont.Weight.Bold)
        self._metrics = {
            role: QFontMetricsF(self.font(role))
            for role in ("title", "subtitle", "detail", "label")
        }

    @staticmethod
    def _make(base: QFont, px: int, weight: QFont.Weight) -> QFont:
        font = QFont(base)
        font.setPixelSize(px)
        font.setWeight(weight)
        return font

    def font(self, role: TextRole) -> QFont:
        return {
            "title": self.title,
            "subtitle": self.subtitle,
            "detail": self.detail,
            "label": self.label,
        }[role]

    def metrics(self, role: TextRole) -> QFontMetricsF:
        return self._metrics[role]

    def text_width(self, text: str, role: TextRole) -> float:
        """The ``TextWidth`` function handed to the layout."""
        return self._metrics[role].horizontalAdvance(text)
