"""Resume dialogs for pauses that are not HITL approvals.

- ``ResumeValueDialog`` renders a ``ValueRequest`` (a node called ``interrupt(value)``): the
  value as highlighted JSON, and an editor for the resume value, checked as you type (JSON, or
  plain text with "Send as plain text").  "Resume" is enabled only while the input is valid.
- ``PauseDialog`` renders a ``PauseRequest`` (a static ``interrupt_before/after`` pause):
  "Continue", and "Edit state and continue" when an edit-state dialog is available.

Both are window-modal, opened with ``open()`` and awaited through the request's future;
"Answer later" (Esc, closing) cancels and leaves the run paused.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.dialogs.dialog_kit import (
    dialog_style,
    fit_to_content,
    json_html,
    mono_font,
    named_button,
    named_label,
)
from studio.dialogs.resume_model import PauseRequest, ValueRequest
from studio.look.palette import colors

__all__ = ["PauseDialog", "ResumeValueDialog"]


def _modal(dialog: QDialog, parent: QWidget | None, theme: str) -> None:
    dialog.setWindowModality(
        Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.ApplicationModal
    )
    dialog.setStyleSheet(dialog_style(colors(theme)))


class ResumeValueDialog(QDialog):
    """Shows what ``interrupt(value)`` asked and takes the resume value."""

    def __init__(
        self, request: ValueRequest, parent: QWidget | None = None, theme: str = "light"
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.setWindowTitle("Resume the interrupt")
        _modal(self, parent, theme)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(8)
        where = f"Node “{request.node}” called interrupt()" if request.node else "interrupt()"
        layout.addWidget(named_label("The run is waiting for your input", "Heading"))
        layout.addWidget(
            named_label(
                f"{where}. The value you send becomes its return value and the node runs "
                "again from its start.",
                "Intro",
            )
        )
        layout.addWidget(named_label("It asked", "Caption"))
        self.value_view = QTextBrowser()
        self.value_view.setFont(mono_font())
        self.value_view.setHtml(json_html(request.value, dark=colors(theme).dark))
        fit_to_content(self.value_view, 220)
        layout.addWidget(self.value_view)
        layout.addWidget(named_label("Resume value", "Caption"))
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setPlaceholderText('JSON, e.g. "yes", 42, {"approved": true}')
        self.editor.setFixedHeight(110)
        self.editor.textChanged.connect(self._validate)
        layout.addWidget(self.editor)
        self.as_text_box = QCheckBox("Send as plain text (no JSON)")
        self.as_text_box.toggled.connect(self._validate)
        layout.addWidget(self.as_text_box)
        self.error_label = named_label("", "Error")
        self.error_label.setVisible(False)
        layout.addWidget(self.error_label)

        footer = QHBoxLayout()
        footer.addStretch(1)
        self.cancel_button = named_button("Answer later", "Secondary")
        self.cancel_button.clicked.connect(self.reject)
        self.resume_button = named_button("Resume", "Primary")
        self.resume_button.setDefault(True)
        self.resume_button.clicked.connect(self._submit)
        footer.addWidget(self.cancel_button)
        footer.addWidget(self.resume_button)
        layout.addLayout(footer)
        request.answered.connect(lambda _value: self.accept())
        request.cancelled.connect(lambda: QDialog.reject(self))
        self._validate()
        self.resize(560, 460)

    def _validate(self) -> None:
        text = self.editor.toPlainText()
        _value, error = ValueRequest.parse(text, as_text=self.as_text_box.isChecked())
        self.resume_button.setEnabled(error is None)
        # no error shown before the user typed anything
        self.error_label.setText(error or "")
        self.error_label.setVisible(error is not None and bool(text.strip()))

    def _submit(self) -> None:
        if self.resume_button.isEnabled() and self.request.state == "open":
            self.request.submit(self.editor.toPlainText(), as_text=self.as_text_box.isChecked())

    def reject(self) -> None:
        if self.request.state == "open":
            self.request.cancel()
        else:
            super().reject()


class PauseDialog(QDialog):
    """A static breakpoint: continue, or edit the state first (when available)."""

    def __init__(
        self, request: PauseRequest, parent: QWidget | None = None, theme: str = "light"
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.setWindowTitle("Paused")
        _modal(self, parent, theme)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(8)
        layout.addWidget(named_label(request.title, "Heading"))
        kind = {"before": "interrupt_before", "after": "interrupt_after"}.get(
            request.when or "", "a static interrupt"
        )
        nodes = ", ".join(request.nodes) or "the next step"
        text = f"The graph stopped at {kind}. Continue runs {nodes} with the state as it is"
        text += (
            "; or edit the state first."
            if request.can_edit
            else ". (To change the state first, use the State dock's editor.)"
        )
        layout.addWidget(named_label(text, "Intro"))
        footer = QHBoxLayout()
        footer.addStretch(1)
        self.cancel_button = named_button("Answer later", "Secondary")
        self.cancel_button.clicked.connect(self.reject)
        self.edit_button = named_button("Edit state and continue…", "Secondary")
        self.edit_button.setVisible(request.can_edit)
        self.edit_button.clicked.connect(self._edit)
        self.continue_button = named_button("Continue", "Primary")
        self.continue_button.setDefault(True)
        self.continue_button.clicked.connect(self._continue)
        footer.addWidget(self.cancel_button)
        footer.addWidget(self.edit_button)
        footer.addWidget(self.continue_button)
        layout.addLayout(footer)
        request.answered.connect(lambda _answer: self.accept())
        request.cancelled.connect(lambda: QDialog.reject(self))
        self.resize(480, 160)

    def _continue(self) -> None:
        if self.request.state == "open":
            self.request.continue_()

    def _edit(self) -> None:
        if self.request.state == "open":
            self.request.edit_and_continue()

    def reject(self) -> None:
        if self.request.state == "open":
            self.request.cancel()
        else:
            super().reject()
