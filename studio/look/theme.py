"""Light and dark themes: a Fusion palette plus ``resources/themes/base.qss`` with variables.

``light.qss`` / ``dark.qss`` define variables (``@name: value;``); ``base.qss`` uses them.
Everything is read through ``importlib.resources``, so it works from a wheel too.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication

__all__ = ["THEMES", "apply_theme", "icon", "stylesheet", "theme_variables"]

THEMES = ("light", "dark")
_VAR = re.compile(r"^\s*@([A-Za-z][\w-]*)\s*:\s*([^;]+);", re.MULTILINE)


def _read(folder: str, name: str) -> str:
    return resources.files("resources").joinpath(folder, name).read_text(encoding="utf-8")


@cache
def theme_variables(name: str) -> dict[str, str]:
    if name not in THEMES:
        raise ValueError(f"Unknown theme {name!r}; expected one of {THEMES}")
    return {m.group(1): m.group(2).strip() for m in _VAR.finditer(_read("themes", f"{name}.qss"))}


@cache
def stylesheet(name: str) -> str:
    """``base.qss`` with the theme's variables filled in (longest names first)."""
    text = _read("themes", "base.qss")
    variables = theme_variables(name)
    for key in sorted(variables, key=len, reverse=True):
        text = text.replace(f"@{key}", variables[key])
    missing = re.findall(r"@[A-Za-z][\w-]*", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    if missing:
        raise ValueError(f"Theme {name!r} does not define {sorted(set(missing))}")
    return text


def _palette(name: str) -> QPalette:
    v = theme_variables(name)
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: v["window"],
        QPalette.ColorRole.WindowText: v["text"],
        QPalette.ColorRole.Base: v["panel"],
        QPalette.ColorRole.AlternateBase: v["alt"],
        QPalette.ColorRole.Text: v["text"],
        QPalette.ColorRole.Button: v["panel"],
        QPalette.ColorRole.ButtonText: v["text"],
        QPalette.ColorRole.Highlight: v["selection"],
        QPalette.ColorRole.HighlightedText: v["text"],
        QPalette.ColorRole.ToolTipBase: v["panel"],
        QPalette.ColorRole.ToolTipText: v["text"],
        QPalette.ColorRole.PlaceholderText: v["muted"],
        QPalette.ColorRole.Link: v["accent"],
        QPalette.ColorRole.Mid: v["border"],
    }
    for role, color in roles.items():
        pal.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(v["disabled"]))
    return pal


def apply_theme(app: QApplication, name: str) -> None:
    """Fusion style, the theme's palette and stylesheet on the whole application."""
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(_palette(name))
    app.setStyleSheet(stylesheet(name))


@cache
def icon(name: str) -> QIcon:
    """An icon from ``resources/icons/<name>.svg`` (an empty icon if there is none)."""
    path = resources.files("resources").joinpath("icons", f"{name}.svg")
    if not path.is_file():
        return QIcon()
    with resources.as_file(path) as real:
        return QIcon(str(real))
