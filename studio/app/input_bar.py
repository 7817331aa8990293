"""The input bar: the thread selector and a box to send a new user message on that thread."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from engine.targets import Capability
from studio.look.theme import icon
from studio.models.hub import Hub
from studio.run.capabilities import can
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["NO_CHAT_HINT", "REPLAY_HINT", "InputBar"]

_PLACEHOLDER = "Send a message to the agent on this thread..."
NO_CHAT_HINT = (
    "This graph takes no chat message (its state has no 'messages'): Run (F5) asks for its input"
)
REPLAY_HINT = (
    "A recorded session is open: nothing runs here. Re-run it from a checkpoint "
    "(Timeline), or open an agent to chat with it"
)


class InputBar(QFrame):
    """``thread_box``, ``new_thread_button``, ``message_edit`` and ``send_button`` are
    attributes; the window connects ``send_button``/Return and the thread box to the
    run controller (this widget only shows and collects)."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inputBar")
        self.hub = hub
        self.thread_box = QComboBox(self)
        self.thread_box.setMinimumContentsLength(9)
        self.thread_box.setToolTip("The conversation thread new messages go to")
        self.new_thread_button = QPushButton("New thread", self)
        self.message_edit = QLineEdit(self)
        self.message_edit.setPlaceholderText(_PLACEHOLDER)
        self.message_edit.setClearButtonEnabled(True)
        self.send_button = QPushButton(icon("send"), "Send", self)
        self.send_button.setProperty("primary", True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 5, 8, 5)
        layout.setSpacing(6)
        thread_label = plain_label("Thread", self)
        thread_label.setObjectName("muted")
        layout.addWidget(thread_label)
        layout.addWidget(self.thread_box)
        layout.addWidget(self.new_thread_button)
        layout.addSpacing(10)
        layout.addWidget(self.message_edit, 1)
        layout.addWidget(self.send_button)
        self.message_edit.returnPressed.connect(self.send_button.click)
        self._takes_chat = True
        hub.subscribe("shown_status", lambda _s: self._update_enabled())
        hub.subscribe("graph", lambda _g: self._on_graph())
        self._on_graph()

    def _on_graph(self) -> None:
        """A graph in this process whose state has no ``messages`` takes no chat message (a
        server's or a session's may not say: those are left to the run to tell)."""
        target = self.hub.target
        self._takes_chat = True
        if target is not None and getattr(target, "kind", None) in ("engine", "attach"):
            try:
                self._takes_chat = "messages" in target.state_keys()
            except Exception:  # a graph that cannot list its channels: let the run say
                self._takes_chat = True
        self._update_enabled()

    def set_threads(self, threads: list[str], current: str) -> None:
        box = self.thread_box
        if (
            box.currentText() == current
            and [box.itemText(i) for i in range(box.count())] == threads
        ):
            return  # the same list (the window asks after every run): no refill, no repaint
        self.thread_box.blockSignals(True)
        try:
            self.thread_box.clear()
            self.thread_box.addItems(threads)
            self.thread_box.setCurrentIndex(
                max(0, self.thread_box.findText(current, Qt.MatchFlag.MatchExactly))
            )
        finally:
            self.thread_box.blockSignals(False)

    def take_text(self) -> str:
        text = self.message_edit.text()
        self.message_edit.clear()
        return text

    def _update_enabled(self) -> None:
        busy = self.hub.shown_status in ("running", "paused")
        replay = self.hub.shown_status == "replay"
        runnable, cannot = can(self.hub, Capability.RUN)
        live = runnable and not replay
        self.new_thread_button.setEnabled(not busy and live)
        if live and not self._takes_chat:
            live, cannot = False, NO_CHAT_HINT
        self.send_button.setEnabled(not busy and live)
        self.message_edit.setEnabled(live)
        self.thread_box.setEnabled(not busy)
        why = (
            REPLAY_HINT
            if replay
            else "Load an agent or a scenario (File menu) to send it messages"
            if self.hub.target is None
            else cannot
        )
        self.send_button.setToolTip(plain_tip(why or "Send the message on this thread (Return)"))
        self.message_edit.setPlaceholderText(why or _PLACEHOLDER)
