"""The run configuration: the app's own ``config["configurable"]`` keys, as a JSON object.

Apps written before ``context_schema`` (and LangGraph's memory docs) read their settings from
the run's config: ``config["configurable"]["user_id"]``.  This dialog (Debug > Run
Configuration...) edits those keys; every run started after it gets them
(``RunController.configurable``), on the engine, in attach mode and on a LangGraph server.
The thread and checkpoint keys stay Stepwise's.  ``stepwise open --configurable-json`` sets
them from the command line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import QDialog, QPlainTextEdit, QWidget

from engine.targets.graph_run import configurable_problem
from studio.dialogs.dialog_kit import (
    dialog_frame,
    error_and_buttons,
    mono_font,
)

__all__ = ["ConfigurableDialog", "parse_configurable"]


def parse_configurable(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """(keys, None) from the editor's text (empty: no keys), or (None, the problem)."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"Not valid JSON: {exc}"
    problem = configurable_problem(value)
    if problem is not None:
        return None, f"The configuration is {problem}" if problem[0] == "a" else problem
    assert isinstance(value, Mapping)
    return dict(value), None


class ConfigurableDialog(QDialog):
    """The editor (see module docstring): ``value`` once saved ({} for none)."""

    def __init__(
        self, current: Mapping[str, Any] | None, parent: QWidget | None = None, theme: str = "light"
    ) -> None:
        super().__init__(parent)
        layout = dialog_frame(
            self,
            "Run Configuration",
            theme,
            'The app\'s own config["configurable"] keys',
            'A JSON object, as {"user_id": "u1"}: what the agent reads from '
            'config["configurable"]. Every run started from now on gets it; the thread '
            "and checkpoint keys stay Stepwise's.",
        )
        self.value: dict[str, Any] | None = None
        self.editor = QPlainTextEdit(self)
        self.editor.setFont(mono_font())
        self.editor.setPlainText(json.dumps(dict(current), indent=2) if current else "")
        self.editor.setPlaceholderText('{"user_id": "u1"}')
        layout.addWidget(self.editor, 1)
        self.error_label, _cancel, self.save_button = error_and_buttons(
            self, layout, "Save", self.try_accept
        )
        self.resize(480, 320)

    def try_accept(self) -> bool:
        value, problem = parse_configurable(self.editor.toPlainText())
        if problem is not None:
            self.error_label.setText(problem)
            self.error_label.setVisible(True)
            return False
        self.value = value
        self.accept()
        return True
