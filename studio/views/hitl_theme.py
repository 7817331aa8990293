"""Colours of the approval dialogs, the Todos board and the Plan view, per studio theme.

The base colours are the studio theme's variables (``resources/themes/{light,dark}.qss`` through
``studio.theme``); ``tint`` mixes a colour into the panel background for soft fills, so one rule
serves both themes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

__all__ = ["Colors", "colors", "mix"]

_LIGHT = {
    "window": "#f6f7f9",
    "panel": "#ffffff",
    "alt": "#f2f4f7",
    "text": "#1f2328",
    "muted": "#656d76",
    "border": "#d0d7de",
    "strong-border": "#b6bfc9",
    "accent": "#1f6feb",
    "accent-text": "#ffffff",
    "danger": "#cf222e",
    "warn": "#9a6700",
    "ok": "#1a7f37",
    "input": "#ffffff",
}
_VIOLET = {"light": "#8250df", "dark": "#a371f7"}


def mix(color: str, base: str, amount: float) -> str:
    """``amount`` of ``color`` over ``base`` (both ``#rrggbb``)."""
    a = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(x * amount + y * (1 - amount)):02x}" for x, y in zip(a, b, strict=True)
    )


@dataclass(frozen=True)
class Colors:
    name: str
    window: str
    panel: str
    alt: str
    text: str
    muted: str
    border: str
    strong_border: str
    accent: str
    accent_text: str
    danger: str
    warn: str
    ok: str
    input: str
    violet: str

    @property
    def dark(self) -> bool:
        return self.name == "dark"

    def tint(self, color: str, amount: float = 0.12) -> str:
        """A soft fill of ``color`` on the panel background."""
        return mix(color, self.panel, amount * (1.6 if self.dark else 1.0))


@cache
def colors(theme: str = "light") -> Colors:
    """The colours of ``theme`` ("light" or "dark"; anything else is light)."""
    name = theme if theme in ("light", "dark") else "light"
    values = dict(_LIGHT)
    try:
        from studio.theme import theme_variables

        values.update(theme_variables(name))
    except (ImportError, ValueError, OSError, KeyError):
        name = "light"
    return Colors(
        name=name,
        window=values["window"],
        panel=values["panel"],
        alt=values["alt"],
        text=values["text"],
        muted=values["muted"],
        border=values["border"],
        strong_border=values["strong-border"],
        accent=values["accent"],
        accent_text=values["accent-text"],
        danger=values["danger"],
        warn=values["warn"],
        ok=values["ok"],
        input=values["input"],
        violet=_VIOLET[name],
    )
