"""Settings: the model provider (scripted, or an OpenAI-compatible server), the theme and the
model prices the studio computes costs with (``price_editor``).

The API key is never asked for or saved: the OpenAI client reads ``OPENAI_API_KEY`` from the
environment; the dialog only says whether it is set.  "Test connection" sends one tiny chat
request to the configured server, as a task on the loop (the window stays responsive).
"""

from __future__ import annotations

import asyncio
import os

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.app.settings_store import StudioSettings
from studio.dialogs.price_editor import PriceEditor
from studio.models.pricing import PriceTable
from studio.widgets.plain_text import plain_label

__all__ = ["SettingsDialog", "check_connection"]

TEST_TIMEOUT = 15.0


async def check_connection(base_url: str, model: str, timeout: float = TEST_TIMEOUT) -> str:
    """One tiny chat request; returns a one-line success message or raises with the reason."""
    from engine.messages import HumanMessage
    from engine.models import OpenAIChatModel

    if not model.strip():
        raise ValueError("Give a model name first")
    chat = OpenAIChatModel(model.strip(), base_url=base_url.strip() or None, timeout=timeout)
    reply = await asyncio.wait_for(
        chat.ainvoke([HumanMessage(content="Reply with the word OK.")]), timeout + 1
    )
    text = (reply.text or "").strip().replace("\n", " ")
    return (
        f"Connected: {model.strip()} replied {text[:40]!r}"
        if text
        else f"Connected: {model.strip()} replied"
    )


class SettingsDialog(QDialog):
    """Key widgets are attributes: ``provider_box``, ``base_url_edit``, ``model_edit``,
    ``test_button``, ``test_label``, ``theme_box``, ``prices`` (the price editor),
    ``ok_button``, ``cancel_button``; ``test_task`` is the running connection test, if any."""

    def __init__(self, settings: StudioSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(520)
        self.test_task: asyncio.Task[None] | None = None

        self.provider_box = QComboBox(self)
        self.provider_box.addItem(
            "The agent file's own model (scenarios: scripted, offline)", "scripted"
        )
        self.provider_box.addItem("OpenAI-compatible server", "openai")
        self.base_url_edit = QLineEdit(settings.base_url, self)
        self.base_url_edit.setPlaceholderText(
            "https://api.openai.com/v1 or http://localhost:11434/v1"
        )
        self.model_edit = QLineEdit(settings.model, self)
        self.model_edit.setPlaceholderText("gpt-4o-mini")
        key_set = bool(os.environ.get("OPENAI_API_KEY"))
        self.key_label = plain_label(
            "OPENAI_API_KEY is set in the environment"
            if key_set
            else "OPENAI_API_KEY is not set (fine for local servers)",
            self,
        )
        self.key_label.setObjectName("muted")
        self.test_button = QPushButton("Test connection", self)
        self.test_label = plain_label(parent=self)
        self.test_label.setWordWrap(True)

        model_box = QGroupBox("Model", self)
        form = QFormLayout(model_box)
        form.addRow("Provider", self.provider_box)
        form.addRow("Base URL", self.base_url_edit)
        form.addRow("Model name", self.model_edit)
        form.addRow("API key", self.key_label)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_label, 1)
        form.addRow("", test_row)

        self.theme_box = QComboBox(self)
        self.theme_box.addItem("Light", "light")
        self.theme_box.addItem("Dark", "dark")
        look = QGroupBox("Appearance", self)
        look_form = QFormLayout(look)
        look_form.addRow("Theme", self.theme_box)

        builtin = PriceTable.builtin()
        self.prices = PriceEditor(builtin.with_overrides(settings.prices), builtin, self)
        self.prices.setMinimumHeight(160)
        price_box = QGroupBox("Model prices", self)
        price_layout = QVBoxLayout(price_box)
        price_layout.addWidget(self.prices)

        note = plain_label(
            "Agent files with build_agent(model=...), like the built-in scenarios, run on this "
            "model; any file can read STEPWISE_MODEL / STEPWISE_BASE_URL. It applies the next "
            "time an agent is loaded or restarted.",
            self,
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, parent=self
        )
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept_if_valid)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(model_box)
        layout.addWidget(look)
        layout.addWidget(price_box, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)

        self.provider_box.setCurrentIndex(max(0, self.provider_box.findData(settings.provider)))
        self.theme_box.setCurrentIndex(max(0, self.theme_box.findData(settings.theme)))
        self.provider_box.currentIndexChanged.connect(self._update_enabled)
        self.test_button.clicked.connect(self._start_test)
        self._update_enabled()

    def values(self, base: StudioSettings) -> StudioSettings:
        """``base`` with this dialog's choices (recent files etc. kept)."""
        return StudioSettings(
            theme=str(self.theme_box.currentData()),
            provider=str(self.provider_box.currentData()),
            base_url=self.base_url_edit.text().strip(),
            model=self.model_edit.text().strip(),
            recent=list(base.recent),
            layout=base.layout,
            prices=self.prices.overrides() if self.prices.error() is None else dict(base.prices),
        )

    def _accept_if_valid(self) -> None:
        """OK keeps the dialog open while the price list has a mistake (it is shown)."""
        if self.prices.error() is None:
            self.accept()

    def _update_enabled(self) -> None:
        remote = self.provider_box.currentData() == "openai"
        for w in (self.base_url_edit, self.model_edit, self.test_button):
            w.setEnabled(remote)

    def _start_test(self) -> None:
        if self.test_task is not None and not self.test_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop()
        self.test_task = loop.create_task(self.test_connection())

    async def test_connection(self) -> None:
        self.test_button.setEnabled(False)
        self.test_label.setObjectName("muted")
        self.test_label.setText("Connecting...")
        try:
            message = await check_connection(self.base_url_edit.text(), self.model_edit.text())
            self.test_label.setObjectName("")
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            message = f"Failed: {type(exc).__name__}: {first}"
            self.test_label.setObjectName("errorText")
        finally:
            self.test_button.setEnabled(self.provider_box.currentData() == "openai")
        self.test_label.setText(message)
        self.test_label.style().unpolish(self.test_label)
        self.test_label.style().polish(self.test_label)
