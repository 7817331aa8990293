"""Shared pieces of the interrupt dialogs: the themed stylesheet, monospace font, highlighted
JSON, auto-height text views, argument-schema hints."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSizeF, Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QBoxLayout,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
)

from studio.look import highlight
from studio.look.palette import Palette
from studio.widgets.plain_text import plain_label

__all__ = [
    "dialog_style",
    "fit_to_content",
    "json_html",
    "mono_font",
    "named_button",
    "named_label",
    "schema_hint",
]


def dialog_style(c: Palette) -> str:
    """The dialogs' stylesheet in the colours of a theme."""
    return f"""
QDialog {{ background: {c.window}; }}
QLabel#Heading {{ font-size: 15px; font-weight: 600; color: {c.text}; }}
QLabel#Intro, QLabel#Progress, QLabel#Hint {{ color: {c.muted}; }}
QLabel#Caption {{ font-weight: 600; color: {c.text}; }}
QFrame#ActionCard {{ background: {c.panel}; border: 1px solid {c.border}; border-radius: 8px; }}
QLabel#Badge {{ background: {c.violet}; color: white; border-radius: 10px; font-weight: 600;
               min-width: 20px; max-width: 20px; min-height: 20px; max-height: 20px; }}
QLabel#ToolName {{ font-size: 14px; font-weight: 600; color: {c.text}; }}
QLabel#Description {{ color: {c.text}; }}
QLabel#Error {{ color: {c.danger}; background: {c.tint(c.danger)}; border: 1px solid
               {c.tint(c.danger, 0.35)}; border-radius: 4px; padding: 4px 6px; }}
QTextBrowser, QPlainTextEdit, QLineEdit {{ background: {c.alt}; color: {c.text};
               border: 1px solid {c.border}; border-radius: 6px; padding: 4px; }}
QPushButton#Decision {{ padding: 4px 12px; border: 1px solid {c.border}; border-radius: 6px;
               background: {c.alt}; color: {c.text}; }}
QPushButton#Decision:hover {{ border-color: {c.strong_border}; }}
QPushButton#Decision:checked[decision="approve"] {{ background: {c.ok}; color: white; border-color: {c.ok}; }}
QPushButton#Decision:checked[decision="edit"] {{ background: {c.accent}; color: white; border-color: {c.accent}; }}
QPushButton#Decision:checked[decision="reject"] {{ background: {c.danger}; color: white; border-color: {c.danger}; }}
QPushButton#Decision:checked[decision="respond"] {{ background: {c.violet}; color: white; border-color: {c.violet}; }}
QPushButton#Primary {{ background: {c.ok}; color: white; border: 1px solid {c.ok};
               border-radius: 6px; padding: 6px 16px; font-weight: 600; }}
QPushButton#Primary:disabled {{ background: {c.alt}; color: {c.muted}; border-color: {c.border}; }}
QPushButton#Secondary {{ border: 1px solid {c.border}; border-radius: 6px; padding: 6px 14px;
               background: {c.alt}; color: {c.text}; }}
QPushButton#Secondary:hover {{ border-color: {c.strong_border}; }}
QCheckBox {{ color: {c.text}; }}
"""


_MONO_FAMILY = "monospace"


def mono_font(px: int = 12) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPixelSize(px)
    return font


def json_html(value: Any, *, dark: bool = False) -> str:
    """``value`` as pretty JSON, syntax-highlighted (the studio's pygments helper), as HTML."""
    return highlight.json_html(highlight.dumps(value), dark=dark, font=_MONO_FAMILY)


def fit_to_content(view: QTextBrowser, max_height: int) -> None:
    """Keep ``view`` as tall as its (wrapped) text, up to ``max_height`` (then it scrolls)."""
    view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def fit(size: QSizeF) -> None:
        margins = view.contentsMargins()
        frame = margins.top() + margins.bottom() + 2 * int(view.document().documentMargin()) // 2
        view.setFixedHeight(min(max_height, int(size.height()) + frame + 2))

    layout = view.document().documentLayout()
    layout.documentSizeChanged.connect(fit)
    fit(layout.documentSize())


def schema_hint(schema: dict[str, Any] | None) -> str:
    """``order_id: string (required) · reason: string`` from a JSON schema's properties."""
    props = (schema or {}).get("properties") or {}
    required = set((schema or {}).get("required") or [])
    parts = []
    for name, prop in props.items():
        kind = prop.get("type")
        if kind is None and isinstance(prop.get("anyOf"), list):
            kind = " | ".join(str(p.get("type", "?")) for p in prop["anyOf"])
        if isinstance(prop.get("enum"), list):
            kind = " | ".join(json.dumps(v) for v in prop["enum"])
        text = f"{name}: {kind or 'any'}"
        parts.append(text + (" (required)" if name in required else ""))
    return " · ".join(parts)


def named_label(text: str, name: str, wrap: bool = True) -> QLabel:
    """A label styled by ``dialog_style`` through its object name (Heading, Intro, Caption...)."""
    label = plain_label(text)
    label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


def dialog_frame(dialog: QDialog, title: str, theme: str, heading: str, intro: str) -> QVBoxLayout:
    """A modal dialog's frame in the studio's look: its title, the theme's style, and a
    layout that starts with the heading and the intro line; returns the layout."""
    from studio.look.palette import colors

    dialog.setWindowTitle(title)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setStyleSheet(dialog_style(colors(theme)))
    layout = QVBoxLayout(dialog)
    layout.setContentsMargins(18, 16, 18, 14)
    layout.addWidget(named_label(heading, "Heading"))
    layout.addWidget(named_label(intro, "Intro"))
    return layout


def named_button(text: str, name: str) -> QPushButton:
    """A button styled by ``dialog_style`` through its object name (Primary, Secondary...)."""
    button = QPushButton(text)
    button.setObjectName(name)
    return button


def error_and_buttons(
    dialog: QDialog, layout: QBoxLayout, action: str, on_action: Callable[[], object]
) -> tuple[QLabel, QPushButton, QPushButton]:
    """A dialog's foot: a hidden error line, then Cancel and its default ``action`` button
    (which calls ``on_action``), right-aligned.  Returns (error label, cancel, action)."""
    error = named_label("", "Error")
    error.setVisible(False)
    layout.addWidget(error)
    buttons = QHBoxLayout()
    buttons.addStretch(1)
    cancel = named_button("Cancel", "Secondary")
    cancel.clicked.connect(dialog.reject)
    primary = named_button(action, "Primary")
    primary.setDefault(True)
    primary.clicked.connect(on_action)
    buttons.addWidget(cancel)
    buttons.addWidget(primary)
    layout.addLayout(buttons)
    return error, cancel, primary
