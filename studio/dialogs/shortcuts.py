"""Help > Keyboard Shortcuts: the debugger's keys, as in IDE debuggers."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

__all__ = ["ShortcutsDialog", "shortcuts_html"]

EXTRA = (
    ("Click a graph node", "Filter the event log to that node"),
    ("Right-click a graph node", "Toggle its breakpoint, show its events"),
    ("Wheel / drag / F on the graph", "Zoom, pan, fit"),
    ("Return in the message box", "Send the message on the current thread"),
)


def shortcuts_html(actions: list[QAction]) -> str:
    rows = [
        (a.shortcut().toString(), a.text().replace("&", ""), a.statusTip())
        for a in actions
        if not a.shortcut().isEmpty()
    ]
    cells = "".join(
        f"<tr><td><b>{escape(key)}</b></td><td>{escape(name)}</td><td style='color:gray'>{escape(tip)}</td></tr>"
        for key, name, tip in rows
    )
    cells += "".join(
        f"<tr><td><b>{escape(key)}</b></td><td colspan='2'>{escape(what)}</td></tr>"
        for key, what in EXTRA
    )
    return f"<table cellspacing='0' cellpadding='5'>{cells}</table>"


class ShortcutsDialog(QDialog):
    """``table_label`` shows the keys; ``close_button`` closes."""

    def __init__(self, actions: list[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.table_label = QLabel(shortcuts_html(actions), self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table_label)
        layout.addWidget(buttons)
