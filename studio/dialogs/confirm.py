"""A yes/no question, built in code; ``accept_button`` / ``cancel_button`` for tests."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from studio.widgets.plain_text import plain_label

__all__ = ["ConfirmDialog"]


class ConfirmDialog(QDialog):
    def __init__(
        self, title: str, message: str, accept_text: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self.setMinimumWidth(520)
        self.title_label = plain_label(title, self)
        self.title_label.setObjectName("dialogTitle")
        self.message_label = plain_label(message, self)
        self.message_label.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, parent=self)
        self.accept_button = buttons.addButton(accept_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title_label)
        layout.addWidget(self.message_label)
        layout.addWidget(buttons)
