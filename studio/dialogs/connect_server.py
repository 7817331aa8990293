"""File > Connect to Server...: a LangGraph server's assistants and threads.

Give the server's URL (and the headers it needs, as ``NAME=ENV_VAR``: values are read from the
environment, never typed here or saved), pick an assistant, then a thread from the browser
(searched by metadata and status, a page at a time) or none for a new one.  Every server call
is a coroutine on the loop (the SDK decodes answers on a worker thread): the window never waits
on the network, and what goes wrong shows in one line.  The dialog's ``target`` (a
``RemoteTarget``) and ``chosen_thread`` are the answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.targets import TargetError, ThreadQuery
from studio.dialogs.dialog_kit import dialog_style, error_and_buttons, named_button, named_label
from studio.look.palette import colors

__all__ = ["PAGE", "STATUSES", "ConnectServerDialog"]

PAGE = 50
"""Threads listed per page."""
STATUSES = ("any status", "idle", "busy", "interrupted", "error")


class ConnectServerDialog(QDialog):
    """Widgets are attributes for tests (``url_edit``, ``headers_edit``, ``connect_button``,
    ``assistant_combo``, ``metadata_edit``, ``status_combo``, ``search_button``,
    ``thread_list``, ``more_button``, ``note_label``, ``error_label``, ``open_button``); ``pending`` is the
    server call going on, if any."""

    def __init__(
        self, parent: QWidget | None = None, theme: str = "light", url: str = "", headers: str = ""
    ) -> None:
        super().__init__(parent)
        self.client: Any = None
        self.target: Any = None
        """The ``RemoteTarget`` of the assistant picked (the answer)."""
        self.chosen_thread: str | None = None
        """The thread picked (None: a new one)."""
        self.assistants: list[Any] = []
        self.pending: asyncio.Task[None] | None = None
        self._offset = 0
        self._busy = False
        self.setWindowTitle("Connect to a LangGraph server")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setStyleSheet(dialog_style(colors(theme)) + "QListWidget::item { padding: 3px 6px; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(8)
        layout.addWidget(named_label("Connect to a LangGraph server", "Heading"))
        layout.addWidget(
            named_label(
                "langgraph dev, a self-hosted deployment or LangGraph Platform. The API key is "
                "read from LANGGRAPH_API_KEY (or LANGSMITH_API_KEY); other headers from the "
                "environment variables you name.",
                "Intro",
            )
        )
        layout.addWidget(named_label("Server", "Caption"))
        self.url_edit = QLineEdit(url or "http://127.0.0.1:2024")
        self.connect_button = named_button("Connect", "Secondary")
        self.connect_button.clicked.connect(self.connect_server)
        row = QHBoxLayout()
        row.addWidget(self.url_edit, 1)
        row.addWidget(self.connect_button)
        layout.addLayout(row)
        self.headers_edit = QLineEdit(headers)
        self.headers_edit.setPlaceholderText(
            "headers: NAME=ENV_VAR, ... (values from the environment)"
        )
        layout.addWidget(self.headers_edit)
        layout.addWidget(named_label("Assistant", "Caption"))
        self.assistant_combo = QComboBox()
        self.assistant_combo.setEnabled(False)
        self.assistant_combo.activated.connect(lambda _i: self.pick_assistant())
        layout.addWidget(self.assistant_combo)
        layout.addWidget(named_label("Threads", "Caption"))
        search = QHBoxLayout()
        self.metadata_edit = QLineEdit()
        self.metadata_edit.setPlaceholderText('metadata, as JSON: {"user": "ada"}')
        self.status_combo = QComboBox()
        self.status_combo.addItems(STATUSES)
        self.search_button = named_button("Search", "Secondary")
        self.search_button.clicked.connect(lambda: self.search())
        search.addWidget(self.metadata_edit, 1)
        search.addWidget(self.status_combo)
        search.addWidget(self.search_button)
        layout.addLayout(search)
        self.thread_list = QListWidget()
        self.thread_list.setMinimumHeight(160)
        self.thread_list.itemDoubleClicked.connect(lambda _item: self._open())
        self.thread_list.currentItemChanged.connect(lambda *_: self._enable())
        layout.addWidget(self.thread_list)
        self.more_button = named_button("More threads", "Secondary")
        self.more_button.clicked.connect(lambda: self.search(more=True))
        self.note_label = named_label("", "Caption")
        more = QHBoxLayout()
        more.addWidget(self.note_label, 1)
        more.addWidget(self.more_button)
        layout.addLayout(more)
        self.error_label, self.cancel_button, self.open_button = error_and_buttons(
            self, layout, "Open", self._open
        )
        self._enable()
        self.resize(620, 520)

    # -- state ---------------------------------------------------------------------------------

    def _enable(self) -> None:
        busy = self._busy
        connected = self.target is not None
        self.connect_button.setEnabled(not busy)
        for w in (self.search_button, self.metadata_edit, self.status_combo, self.thread_list):
            w.setEnabled(connected and not busy)
        self.more_button.setEnabled(connected and not busy and self.thread_list.count() >= PAGE)
        self.open_button.setEnabled(connected and not busy)
        self.open_button.setText("Open thread" if self.thread_list.currentItem() else "Open")

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def _start(self, coro: Any) -> asyncio.Task[None]:
        async def guarded() -> None:
            from engine.redaction import scrub

            self._show_error("")
            try:
                await coro
            except TargetError as exc:
                self._show_error(scrub(str(exc)))
            except Exception as exc:  # never a traceback in the window: one line
                self._show_error(scrub(f"{type(exc).__name__}: {exc}".splitlines()[0]))
            finally:
                self._busy = False
                self._enable()

        self._busy = True
        self.pending = asyncio.ensure_future(guarded())
        self._enable()
        return self.pending

    # -- steps ---------------------------------------------------------------------------------

    def connect_server(self) -> asyncio.Task[None]:
        """List the server's assistants, and open the first (or the only) one."""
        return self._start(self._connect())

    async def _connect(self) -> None:
        from engine.remote.client import RemoteClient
        from engine.remote.credentials import Credentials

        specs = [s.strip() for s in self.headers_edit.text().replace(",", " ").split() if s.strip()]
        await self._drop()
        self.client = RemoteClient(self.url_edit.text().strip(), Credentials.from_specs(specs))
        self.assistants = await self.client.assistants()
        self.assistant_combo.clear()
        self.assistant_combo.addItems([a.label for a in self.assistants])
        self.assistant_combo.setEnabled(bool(self.assistants))
        if not self.assistants:
            raise TargetError("the server has no assistants")
        await self._open_assistant(0)

    def pick_assistant(self, index: int | None = None) -> asyncio.Task[None]:
        i = self.assistant_combo.currentIndex() if index is None else index
        self.assistant_combo.setCurrentIndex(i)
        return self._start(self._open_assistant(i))

    async def _open_assistant(self, index: int) -> None:
        from engine.remote.target import RemoteTarget

        info = self.assistants[index]
        self.target = None
        self.thread_list.clear()
        self.target = await RemoteTarget.connect(self.client, info.assistant_id)
        await self._search(False)

    def search(self, more: bool = False) -> asyncio.Task[None]:
        """List the threads matching the metadata and status (``more``: the next page)."""
        return self._start(self._search(more))

    async def _search(self, more: bool) -> None:
        if self.target is None:
            return
        text = self.metadata_edit.text().strip()
        try:
            metadata = json.loads(text) if text else {}
        except json.JSONDecodeError as exc:
            raise TargetError(f"the metadata is not JSON: {exc.msg}") from None
        if not isinstance(metadata, dict):
            raise TargetError('the metadata must be a JSON object, like {"user": "ada"}')
        status = self.status_combo.currentText()
        self._offset = self._offset + PAGE if more else 0
        query = ThreadQuery(
            metadata=metadata,
            status=None if status == STATUSES[0] else status,
            limit=PAGE,
            offset=self._offset,
        )
        found = await self.target.threads(query)
        if not more:
            self.thread_list.clear()
        for info in found:
            item = QListWidgetItem(
                f"{info.thread_id}   {info.status or ''}   {info.updated_at or ''}"
            )
            item.setData(Qt.ItemDataRole.UserRole, info.thread_id)
            self.thread_list.addItem(item)
        n = self.thread_list.count()
        self.note_label.setText(
            f"{n} thread{'s' if n != 1 else ''} listed"
            if n
            else "No threads match: Open starts a new one"
        )

    # -- answer --------------------------------------------------------------------------------

    def _open(self) -> None:
        if self.target is None:
            return
        item = self.thread_list.currentItem()
        self.chosen_thread = str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None
        self.accept()

    async def _drop(self) -> None:
        client, self.client, self.target = self.client, None, None
        if client is not None:
            await client.aclose()

    def reject(self) -> None:
        self.pending = asyncio.ensure_future(self._drop())
        super().reject()
