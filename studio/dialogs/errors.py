"""The error dialog: what failed, in one line, with optional details underneath."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPlainTextEdit,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.plain_text import plain_label

__all__ = ["ErrorDialog"]


class ErrorDialog(QDialog):
    """``title`` (bold), ``message`` (the one-line reason), ``details`` (optional, monospace).

    ``message_label``, ``details_view`` and ``ok_button`` are attributes for tests.
    """

    def __init__(
        self, title: str, message: str, details: str | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self.setMinimumWidth(520)
        icon = plain_label(parent=self)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical).pixmap(40, 40)
        )
        self.title_label = plain_label(title, self)
        self.title_label.setObjectName("dialogTitle")
        self.message_label = plain_label(message, self)
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_view = QPlainTextEdit(self)
        self.details_view.setReadOnly(True)
        self.details_view.setPlainText(details or "")
        self.details_view.setVisible(bool(details))
        self.details_view.setMinimumHeight(140 if details else 0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, parent=self)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)

        text = QVBoxLayout()
        text.addWidget(self.title_label)
        text.addWidget(self.message_label)
        top = QHBoxLayout()
        top.addWidget(icon, 0)
        top.addLayout(text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.details_view)
        layout.addWidget(buttons)

    @property
    def message(self) -> str:
        return self.message_label.text()
