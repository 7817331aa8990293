"""Help > Keyboard Shortcuts: every key the window answers to, read from its actions.

The table is built from the window's own ``QAction``s (debugger keys first, then the menus'),
so a shortcut added anywhere shows up here; ``EXTRA`` lists what is not an action (mouse
gestures, keys that belong to one widget).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.plain_text import rich_label
from studio.widgets.screen_fit import fit_on_screen

__all__ = ["EXTRA", "ShortcutsDialog", "shortcut_rows", "shortcuts_html"]

EXTRA = (
    ("Click a graph node", "Select it (F9 then toggles its breakpoint)"),
    ("Double-click a graph node", "Filter the event log to that node (again: all nodes)"),
    ("Right-click a graph node", "Toggle its breakpoint, show its events"),
    ("F9 on the graph", "Toggle the breakpoint of the selected node"),
    ("Ctrl+wheel / drag / F on the graph", "Zoom, pan, fit"),
    ("Ctrl+C in the State dock", "Copy the selected value as JSON"),
    ("Return / Shift+Return in a search box", "Next / previous match"),
    ("Return in the message box", "Send the message on the current thread"),
    ("Esc in a dialog", "Close it (an approval: answer later)"),
)

Row = tuple[str, str, str]


def shortcut_rows(actions: Iterable[QAction]) -> list[Row]:
    """(keys, name, tip) for each action with a shortcut; one row per distinct key and name."""
    rows: list[Row] = []
    seen: set[tuple[str, str]] = set()
    for a in actions:
        if a.shortcut().isEmpty():
            continue
        key = a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        name = a.text().replace("&", "").rstrip(".…")
        if (key, name) in seen:
            continue
        seen.add((key, name))
        tip = a.statusTip() or a.toolTip().replace(a.text(), "").strip()
        if tip.replace("&", "").rstrip(".…").strip() == name:
            tip = ""  # Qt's default tooltip is the action's own text: nothing to add
        rows.append((key, name, tip))
    return rows


def shortcuts_html(sections: Sequence[tuple[str, Iterable[QAction]]]) -> str:
    cells = ""
    for title, actions in sections:
        rows = shortcut_rows(actions)
        if not rows:
            continue
        cells += f"<tr><td colspan='3'><br><b>{escape(title)}</b></td></tr>"
        cells += "".join(
            f"<tr><td><b>{escape(k)}</b></td><td>{escape(n)}</td>"
            f"<td style='color:gray'>{escape(t)}</td></tr>"
            for k, n, t in rows
        )
    cells += "<tr><td colspan='3'><br><b>Mouse and widgets</b></td></tr>"
    cells += "".join(
        f"<tr><td><b>{escape(key)}</b></td><td colspan='2'>{escape(what)}</td></tr>"
        for key, what in EXTRA
    )
    return f"<table cellspacing='0' cellpadding='4'>{cells}</table>"


class ShortcutsDialog(QDialog):
    """``table_label`` shows the keys (scrolling when the screen is short); ``close_button``
    closes."""

    def __init__(
        self, sections: Sequence[tuple[str, Iterable[QAction]]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.table_label = rich_label(shortcuts_html(sections), self)  # our table, escaped cells
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidget(self.table_label)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(buttons)
        fit_on_screen(self, self.table_label.sizeHint(), 30 + buttons.sizeHint().height())
