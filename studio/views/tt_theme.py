"""Colours of the time-travel docks (Timeline, State, Diff, Edit State, Compare), per theme.

Base colours come from the studio theme (``studio.theme.theme_variables``) when it is there,
else from the built-in copies below, so the docks also work in tests and screenshots alone.
Semantics: blue = input / human, violet = fork / ai, amber = update (edited) / warning,
green = tool / added, red = removed / error; each branch gets its own colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

__all__ = ["BRANCH_COLORS", "TTColors", "colors", "mix"]

_BASE = {
    "light": {
        "window": "#f6f7f9",
        "panel": "#ffffff",
        "alt": "#f2f4f7",
        "text": "#1f2328",
        "muted": "#656d76",
        "border": "#d0d7de",
        "accent": "#1f6feb",
        "selection": "#dbe9ff",
        "danger": "#cf222e",
        "warn": "#9a6700",
        "ok": "#1a7f37",
    },
    "dark": {
        "window": "#1b1e23",
        "panel": "#16191d",
        "alt": "#1f2329",
        "text": "#e6edf3",
        "muted": "#9199a5",
        "border": "#30363d",
        "accent": "#4493f8",
        "selection": "#1c3556",
        "danger": "#f85149",
        "warn": "#d29922",
        "ok": "#3fb950",
    },
}
_VIOLET = {"light": "#8250df", "dark": "#a371f7"}
_AMBER = {"light": "#bf8700", "dark": "#d29922"}

BRANCH_COLORS = {
    "light": [
        "#1f6feb",
        "#8250df",
        "#bf3989",
        "#1a7f37",
        "#bc4c00",
        "#0969da",
        "#6639ba",
        "#9a6700",
    ],
    "dark": [
        "#4493f8",
        "#a371f7",
        "#db61a2",
        "#3fb950",
        "#f0883e",
        "#58a6ff",
        "#bc8cff",
        "#d29922",
    ],
}


def mix(color: str, base: str, amount: float) -> str:
    """``amount`` of ``color`` over ``base`` (both ``#rrggbb``)."""
    a = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(x * amount + y * (1 - amount)):02x}" for x, y in zip(a, b, strict=True)
    )


@dataclass(frozen=True)
class TTColors:
    name: str
    window: str
    panel: str
    alt: str
    text: str
    muted: str
    border: str
    accent: str
    selection: str
    danger: str
    warn: str
    ok: str
    violet: str
    amber: str

    @property
    def dark(self) -> bool:
        return self.name == "dark"

    def tint(self, color: str, amount: float = 0.12) -> str:
        """A soft fill of ``color`` on the panel background."""
        return mix(color, self.panel, amount * (1.6 if self.dark else 1.0))

    def branch(self, branch_id: int) -> str:
        palette = BRANCH_COLORS[self.name]
        return palette[branch_id % len(palette)]

    def source(self, source: str) -> str:
        return {"input": self.accent, "fork": self.violet, "update": self.amber}.get(
            source, self.muted
        )

    def role(self, role: str) -> str:
        return {"human": self.accent, "ai": self.violet, "tool": self.ok, "system": self.muted}.get(
            role, self.muted
        )


@cache
def colors(theme: str = "light") -> TTColors:
    name = theme if theme in _BASE else "light"
    values = dict(_BASE[name])
    try:
        from studio.theme import theme_variables

        found = theme_variables(name)
        values.update({k: v for k, v in found.items() if k in values})
    except Exception:  # the studio theme is optional here
        pass
    return TTColors(name=name, violet=_VIOLET[name], amber=_AMBER[name], **values)
