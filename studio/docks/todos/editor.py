"""The Todos dock's editor: the user's working copy (``TodoDraft``) of a paused run's todos.

One row per todo (status, text, move up/down, remove) and a line to add one.  The rows edit the
draft; the dock applies it with ``update_state``.  Rows are rebuilt only when the list's shape
changes (add, move, remove), so typing never loses focus.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.models.todos import STATUS_TITLES, STATUSES, TodoDraft
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["TodoEditor", "TodoRow"]


class TodoRow(QWidget):
    """One todo of the draft: status, text, up, down, remove."""

    def __init__(self, editor: TodoEditor, index: int) -> None:
        super().__init__()
        self.index = index
        item = editor.draft.items[index]
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(6)
        self.status_box = QComboBox()
        for status in STATUSES:
            self.status_box.addItem(STATUS_TITLES[status], status)
        self.status_box.setCurrentIndex(STATUSES.index(item["status"]))  # type: ignore[arg-type]
        self.status_box.currentIndexChanged.connect(
            lambda i: editor.draft.set_status(self.index, STATUSES[i])
        )
        self.content_edit = QLineEdit(item["content"])
        self.content_edit.textEdited.connect(self._reword(editor))
        self.up_button = self._tool("↑", "Move up", index > 0)
        self.up_button.clicked.connect(lambda: editor.move_row(self.index, self.index - 1))
        self.down_button = self._tool("↓", "Move down", index < len(editor.draft.items) - 1)
        self.down_button.clicked.connect(lambda: editor.move_row(self.index, self.index + 1))
        self.remove_button = self._tool("✕", "Remove", True)
        self.remove_button.clicked.connect(lambda: editor.remove(self.index))
        box.addWidget(self.status_box)
        box.addWidget(self.content_edit, 1)
        for button in (self.up_button, self.down_button, self.remove_button):
            box.addWidget(button)

    def _reword(self, editor: TodoEditor) -> Callable[[str], None]:
        def slot(text: str) -> None:
            if text.strip():
                editor.draft.reword(self.index, text)

        return slot

    @staticmethod
    def _tool(text: str, tip: str, enabled: bool) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(plain_tip(tip))
        button.setEnabled(enabled)
        button.setAutoRaise(True)
        return button


class TodoEditor(QWidget):
    """Edits a ``TodoDraft``; ``applyRequested`` / ``discardRequested`` go to the dock."""

    applyRequested = Signal()
    discardRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.draft = TodoDraft()
        self.rows: list[TodoRow] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(8)
        intro = plain_label(
            "Edit the todo list of the paused run. Applying writes it with update_state; "
            "the model sees the new list on its next turn."
        )
        intro.setObjectName("Muted")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self._rows_host = QWidget()
        self._rows_box = QVBoxLayout(self._rows_host)
        self._rows_box.setContentsMargins(0, 0, 0, 0)
        self._rows_box.setSpacing(4)
        self._rows_box.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._rows_host)
        layout.addWidget(scroll, 1)

        add_row = QHBoxLayout()
        self.new_edit = QLineEdit()
        self.new_edit.setPlaceholderText("New todo…")
        self.new_edit.returnPressed.connect(self.add_from_line)
        self.add_button = QPushButton("Add")
        self.add_button.clicked.connect(self.add_from_line)
        add_row.addWidget(self.new_edit, 1)
        add_row.addWidget(self.add_button)
        layout.addLayout(add_row)

        footer = QHBoxLayout()
        self.error_label = plain_label()
        self.error_label.setObjectName("Error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        self.discard_button = QPushButton("Discard")
        self.discard_button.clicked.connect(self.discardRequested)
        self.apply_button = QPushButton("Apply to the run")
        self.apply_button.setObjectName("Primary")
        self.apply_button.clicked.connect(self.applyRequested)
        footer.addWidget(self.error_label, 1)
        footer.addWidget(self.discard_button)
        footer.addWidget(self.apply_button)
        layout.addLayout(footer)

    def start(self, todos: list[dict[str, str]] | None) -> None:
        """Edit a copy of ``todos``."""
        self.draft = TodoDraft(todos)
        self.draft.changed_listeners.append(self._on_changed)
        self.show_error(None)
        self._rebuild()

    def show_error(self, text: str | None) -> None:
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))

    def add_from_line(self) -> None:
        text = self.new_edit.text().strip()
        if not text:
            return
        self.draft.add(text)
        self.new_edit.clear()
        self._rebuild()

    def move_row(self, i: int, to: int) -> None:
        self.draft.move(i, to)
        self._rebuild()
        self.rows[to].content_edit.setFocus()

    def remove(self, i: int) -> None:
        self.draft.remove(i)
        self._rebuild()

    def _on_changed(self) -> None:
        self.apply_button.setEnabled(self.draft.dirty)

    def _rebuild(self) -> None:
        for row in self.rows:
            self._rows_box.removeWidget(row)
            row.deleteLater()
        self.rows = [TodoRow(self, i) for i in range(len(self.draft.items))]
        for i, row in enumerate(self.rows):
            self._rows_box.insertWidget(i, row)
        self._on_changed()
