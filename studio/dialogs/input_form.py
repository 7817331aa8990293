"""The run input form: what a graph that takes no chat message needs to start, built from the
JSON Schema of its input (typed fields, defaults, checked before the run), with a JSON tab for
what a form cannot express; and, for a graph with a ``context_schema``, its run context.

``ask_run_input(window)`` opens it (Run on such a graph with no input of its own does), and
on "Run" keeps the input and the context on the run controller (later runs and Restart reuse
them; ``studio.run.given_inputs``) and starts the run.  ``change=True`` (*Debug > Run with
Input...*) opens it filled with them, to change them.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QWidget,
)

from studio.dialogs.asyncdialog import show_dialog
from studio.dialogs.dialog_kit import (
    dialog_frame,
    error_and_buttons,
    mono_font,
)
from studio.models.input_form import MISSING, FormField, InputForm
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["FormPage", "InputFormDialog", "ask_run_input"]


class FormPage(QWidget):
    """The editors of one form (the input's, or the context's), by field name."""

    def __init__(self, form: InputForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.editors: dict[str, QWidget] = {}
        layout = QFormLayout(self)
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        about = str(form.schema.get("description") or "").strip()
        if about:  # the schema's own note (or why its types are unknown), as written
            note = plain_label(about)
            note.setObjectName("form_description")
            note.setWordWrap(True)
            layout.addRow(note)
        for f in form.fields:
            editor = self._editor(f)
            editor.setObjectName(f"field_{f.name}")
            if f.description:
                editor.setToolTip(plain_tip(f.description))
            self.editors[f.name] = editor
            label = f"{f.title}{' *' if f.required and f.default is MISSING else ''}"
            layout.addRow(plain_label(label), editor)  # the app's schema: shown as written

    @staticmethod
    def _editor(f: FormField) -> QWidget:
        if f.kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(f.default) if f.default is not MISSING else False)
            return box
        if f.kind == "choice":
            combo = QComboBox()
            if not f.required or f.default is not MISSING:
                combo.addItem("", "")
            for choice in f.choices:
                combo.addItem(str(choice), json.dumps(choice))
            if f.default is not MISSING:
                combo.setCurrentIndex(max(0, combo.findData(json.dumps(f.default))))
            return combo
        if f.kind == "json":
            edit = QPlainTextEdit()
            edit.setFont(mono_font())
            edit.setFixedHeight(64)
            edit.setPlainText(f.initial_text())
            edit.setPlaceholderText("JSON")
            return edit
        line = QLineEdit()
        line.setText(f.initial_text())
        if f.kind in ("integer", "number"):
            line.setPlaceholderText("a whole number" if f.kind == "integer" else "a number")
        return line

    def raw(self) -> dict[str, Any]:
        """What each editor holds (text, or a bool for a check box)."""
        out: dict[str, Any] = {}
        for name, editor in self.editors.items():
            if isinstance(editor, QCheckBox):
                out[name] = editor.isChecked()
            elif isinstance(editor, QComboBox):
                out[name] = editor.currentData()
            elif isinstance(editor, QPlainTextEdit):
                out[name] = editor.toPlainText()
            elif isinstance(editor, QLineEdit):
                out[name] = editor.text()
        return out

    def fill(self, value: Any) -> None:
        """Show ``value`` (from the JSON tab) in the editors it fits."""
        if not isinstance(value, dict):
            return
        for f in self.form.fields:
            editor = self.editors[f.name]
            v = value.get(f.name, MISSING)
            text = "" if v is MISSING or v is None else v
            if isinstance(editor, QCheckBox):
                editor.setChecked(bool(v) if v is not MISSING else False)
            elif isinstance(editor, QComboBox):
                editor.setCurrentIndex(max(0, editor.findData(json.dumps(v))))
            elif isinstance(editor, QPlainTextEdit):
                editor.setPlainText("" if v is MISSING else json.dumps(v, ensure_ascii=False))
            elif isinstance(editor, QLineEdit):
                editor.setText(str(text))


class InputFormDialog(QDialog):
    """The form (see module docstring): ``value`` and ``context`` once accepted."""

    def __init__(
        self,
        input_form: InputForm | None,
        context_form: InputForm | None,
        parent: QWidget | None = None,
        *,
        theme: str = "light",
        title: str = "Run with input",
        initial: Any = None,
        initial_context: Any = None,
    ) -> None:
        super().__init__(parent)
        layout = dialog_frame(
            self,
            title,
            theme,
            "What the run starts with",
            "Fields marked * are required; the JSON tab takes anything the form cannot express.",
        )
        self.input_form = input_form
        self.context_form = context_form
        self.value: Any = None
        self.context: Any = None
        self.tabs = QTabWidget(self)
        layout.addWidget(self.tabs, 1)
        self.form_page: FormPage | None = None
        self.json_edit: QPlainTextEdit | None = None
        if input_form is not None:
            if not input_form.whole:
                self.form_page = FormPage(input_form)
                self.tabs.addTab(self.form_page, "Input")
                if initial is not None:
                    self.form_page.fill(initial)
            self.json_edit = QPlainTextEdit()
            self.json_edit.setFont(mono_font())
            start = initial if initial is not None else input_form.defaults()
            given = initial is not None  # an input given before shows, even an empty one
            self.json_edit.setPlainText(input_form.as_json(start) if given or start != {} else "")
            about = str(input_form.schema.get("description") or "")
            if input_form.takes_text:
                about = about or "The text the run starts with (typed as it is, no quotes)"
            self.json_edit.setPlaceholderText(about)
            self.tabs.addTab(self.json_edit, "Text" if input_form.takes_text else "JSON")
        self.context_page: FormPage | None = None
        self.context_json: QPlainTextEdit | None = None
        if context_form is not None:
            if context_form.whole:
                self.context_json = QPlainTextEdit()
                self.context_json.setFont(mono_font())
                about = str(context_form.schema.get("description") or "")
                self.context_json.setPlaceholderText(about or "JSON (empty: no context)")
                if initial_context is not None:
                    self.context_json.setPlainText(context_form.as_json(initial_context))
                self.tabs.addTab(self.context_json, "Context")
            else:
                self.context_page = FormPage(context_form)
                self.tabs.addTab(self.context_page, "Context")
                if initial_context is not None:
                    self.context_page.fill(initial_context)
        self.tabs.currentChanged.connect(self._tab_changed)
        self._last_tab = self.tabs.currentWidget()
        self.error_label, _cancel, self.run_button = error_and_buttons(
            self, layout, "Run", self.try_accept
        )
        self.resize(520, 420)

    def _tab_changed(self, _index: int) -> None:
        """Going from the form to the JSON tab carries what was typed over (and back)."""
        now = self.tabs.currentWidget()
        form, json_edit = self.form_page, self.json_edit
        if form is not None and json_edit is not None and self.input_form is not None:
            if now is json_edit and self._last_tab is form:
                value, problems = self.input_form.parse(form.raw())
                if not problems:
                    json_edit.setPlainText(self.input_form.as_json(value))
            elif now is form and self._last_tab is json_edit:
                value, problems = self.input_form.parse_json(json_edit.toPlainText())
                if value is not MISSING:
                    form.fill(value)
        self._last_tab = now

    def read(self) -> tuple[Any, Any, list[str]]:
        """(input, context, problems) as the dialog holds them now."""
        problems: list[str] = []
        value: Any = None
        if self.input_form is not None:
            on_json = self.form_page is None or self.tabs.currentWidget() is self.json_edit
            if on_json and self.json_edit is not None:
                value, found = self.input_form.parse_json(self.json_edit.toPlainText())
            else:
                assert self.form_page is not None
                value, found = self.input_form.parse(self.form_page.raw())
            problems += found
        context: Any = None
        if self.context_form is not None:
            if self.context_page is not None:
                context, found = self.context_form.parse(self.context_page.raw())
            else:
                assert self.context_json is not None
                text = self.context_json.toPlainText()
                if text.strip():  # empty: no context (the JSON tab is offered, not required)
                    context, found = self.context_form.parse_json(text)
                else:
                    found = []
            problems += [f"context: {p}" for p in found]
        return value, context, problems

    def try_accept(self) -> bool:
        value, context, problems = self.read()
        if problems:
            self.error_label.setText("\n".join(problems))
            self.error_label.setVisible(True)
            return False
        self.value, self.context = value, context
        self.accept()
        return True


def ask_run_input(window: Any, *, change: bool = False) -> asyncio.Future[int] | None:
    """Open the form for the loaded graph (see module docstring); None when it needs none.
    ``change``: everything the graph can be given, filled with what it was given before
    (*Debug > Run with Input...*), not only what a run lacks."""
    ctl = window.controller
    target = ctl.target
    if target is None:
        return None
    needs = ctl.form_fields() if change else ctl.missing_run_input()
    if not needs:
        return None
    input_form = InputForm.from_schema(target.input_schema()) if "input" in needs else None
    context_form = InputForm.from_schema(target.context_schema()) if "context" in needs else None
    initial, initial_context = ctl.form_prefill()
    dialog = InputFormDialog(
        input_form,
        context_form,
        window,
        theme=getattr(window.hub, "theme", "light"),
        initial=initial,
        initial_context=initial_context,
    )
    window.input_form_dialog = dialog

    def answered(code: asyncio.Future[int]) -> None:
        if code.cancelled() or code.result() != QDialog.DialogCode.Accepted:
            window.status.show_message("Nothing started: the run needs its input")
            return
        ctl.keep_form_answer(needs, dialog.value, dialog.context)
        try:
            ctl.run_or_continue()
        except Exception as exc:  # one line, as every other start
            window.status.show_message(f"{type(exc).__name__}: {exc}")

    future = show_dialog(dialog)
    future.add_done_callback(answered)
    return future
