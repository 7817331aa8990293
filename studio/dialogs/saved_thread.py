"""File > Open Saved Thread: pick a thread the agent's checkpointer holds, or one in another
database (attach mode: a production app's SQLite or PostgreSQL saver), and open it.

The dialog lists the threads of the checkpointer named (the agent's own when the field is
empty); the database is read on a worker thread, so a slow or unreachable server never freezes
the window, and what goes wrong shows in one line, without the password.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
    QWidget,
)

from engine.targets import Capability, ThreadQuery
from engine.targets.thread_list import SCAN, list_threads
from studio.dialogs.dialog_kit import dialog_style, error_and_buttons, named_button, named_label
from studio.look.palette import colors

if TYPE_CHECKING:
    from studio.run.controller import RunController

__all__ = ["OpenThreadDialog"]


class OpenThreadDialog(QDialog):
    """``url_edit``, ``list_button``, ``thread_list``, ``thread_edit``, ``error_label``,
    ``open_button`` and ``cancel_button`` are attributes for tests; ``chosen()`` is the answer
    and ``saver`` the checkpointer the listing opened (None: the agent's own)."""

    def __init__(
        self, controller: RunController, parent: QWidget | None = None, theme: str = "light"
    ):
        super().__init__(parent)
        self.controller = controller
        self.saver: Any = None
        self._opened_for: str | None = None
        self.listing: asyncio.Task[None] | None = None
        self.setWindowTitle("Open a saved thread")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setStyleSheet(dialog_style(colors(theme)) + "QListWidget::item { padding: 3px 6px; }")
        attached = controller.target is not None and controller.target.kind == "attach"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(8)
        layout.addWidget(named_label("Open a saved thread", "Heading"))
        layout.addWidget(
            named_label(
                "A thread the checkpointer already holds, for example one your app saved in "
                "production: inspect its checkpoints, fork from one, or answer the interrupt "
                "it waits at.",
                "Intro",
            )
        )
        layout.addWidget(named_label("Checkpointer", "Caption"))
        self.url_edit = QLineEdit(controller.attach.checkpointer or "")
        self.url_edit.setPlaceholderText(
            "the agent's own; or sqlite:///path/app.db, postgresql://user@host/db"
            if attached
            else "the agent's own (other databases are for LangGraph apps)"
        )
        self.url_edit.setEnabled(attached)
        self.list_button = named_button("List threads", "Secondary")
        self.list_button.clicked.connect(self.list_threads)
        row = QHBoxLayout()
        row.addWidget(self.url_edit, 1)
        row.addWidget(self.list_button)
        layout.addLayout(row)
        self.thread_list = QListWidget()
        self.thread_list.setMinimumHeight(150)
        self.thread_list.currentTextChanged.connect(self._picked)
        self.thread_list.itemDoubleClicked.connect(lambda _item: self._open())
        layout.addWidget(self.thread_list)
        layout.addWidget(named_label("Thread", "Caption"))
        self.thread_edit = QLineEdit()
        self.thread_edit.setPlaceholderText("a thread id (typed, or picked above)")
        self.thread_edit.textChanged.connect(self._validate)
        layout.addWidget(self.thread_edit)
        self.error_label, self.cancel_button, self.open_button = error_and_buttons(
            self, layout, "Open", self._open
        )
        self._validate()
        self.resize(560, 440)

    # -- answers ---------------------------------------------------------------------------------

    def chosen(self) -> tuple[str, str]:
        """(checkpointer URL, empty for the agent's own; thread id)."""
        return self.url_edit.text().strip(), self.thread_edit.text().strip()

    def _picked(self, text: str) -> None:
        if text:
            self.thread_edit.setText(text)

    def _validate(self) -> None:
        self.open_button.setEnabled(bool(self.thread_edit.text().strip()))

    def _open(self) -> None:
        if self.open_button.isEnabled():
            self.accept()

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    # -- listing ---------------------------------------------------------------------------------

    def list_threads(self) -> asyncio.Task[None]:
        """List the threads of the checkpointer named (on a worker thread)."""
        self.listing = asyncio.ensure_future(self._list())
        return self.listing

    async def _list(self) -> None:
        from dataclasses import replace

        from engine.redaction import scrub

        url = self.url_edit.text().strip()
        self._show_error("")
        self.list_button.setEnabled(False)
        self.thread_list.clear()
        query = ThreadQuery(limit=SCAN)
        try:
            if url:
                if self._opened_for != url:
                    options = replace(self.controller.attach, checkpointer=url)
                    self.saver = await asyncio.to_thread(options.open_saver)
                    self._opened_for = url
                found = await list_threads(self.saver, query)
            else:
                target = self.controller.target
                if target is None or Capability.THREADS not in target.capabilities:
                    raise ValueError("the agent has no checkpointer: name one above")
                found = await target.threads(query)
            threads = [t.thread_id for t in found]
        except Exception as exc:  # a bad URL, an unreachable server: one line, no password
            message = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
            self._show_error(scrub(message.removeprefix("AttachError: ")))
            return
        finally:
            self.list_button.setEnabled(True)
        self.thread_list.addItems(threads)
        if not threads:
            self._show_error("No threads here yet")
