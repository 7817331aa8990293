"""The studio's colours as data, for views that paint (docks, dialogs, HTML they render).

The base colours are the theme's variables (``resources/themes/{light,dark}.qss`` through
``studio.look.theme``), so every view follows the one theme.  Semantic extras are defined here:
violet = fork / ai, amber = update (edited) / warning, and one colour per timeline branch.
``tint`` mixes a colour into the panel background for soft fills, so one rule serves both
themes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from studio.look.theme import THEMES, theme_variables

__all__ = ["BRANCH_COLORS", "Palette", "colors", "mix"]

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


@lru_cache(maxsize=4096)
def mix(color: str, base: str, amount: float) -> str:
    """``amount`` of ``color`` over ``base`` (both ``#rrggbb``); remembered, as delegates ask
    for the same few tints for every row they paint."""
    a = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(x * amount + y * (1 - amount)):02x}" for x, y in zip(a, b, strict=True)
    )


@dataclass(frozen=True)
class Palette:
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
    selection: str
    danger: str
    warn: str
    ok: str
    input: str
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
        """The colour of a checkpoint source (input / fork / update / loop)."""
        return {"input": self.accent, "fork": self.violet, "update": self.amber}.get(
            source, self.muted
        )

    def role(self, role: str) -> str:
        """The colour of a message role."""
        return {"human": self.accent, "ai": self.violet, "tool": self.ok, "system": self.muted}.get(
            role, self.muted
        )


@cache
def colors(theme: str = "light") -> Palette:
    """The colours of ``theme`` ("light" or "dark"; anything else is light)."""
    name = theme if theme in THEMES else "light"
    v = theme_variables(name)
    return Palette(
        name=name,
        window=v["window"],
        panel=v["panel"],
        alt=v["alt"],
        text=v["text"],
        muted=v["muted"],
        border=v["border"],
        strong_border=v["strong-border"],
        accent=v["accent"],
        accent_text=v["accent-text"],
        selection=v["selection"],
        danger=v["danger"],
        warn=v["warn"],
        ok=v["ok"],
        input=v["input"],
        violet=_VIOLET[name],
        amber=_AMBER[name],
    )
