"""The **Messages** dock: the conversation, live or as of a selected checkpoint.

``MessagesDock(hub)`` follows the hub: ``"events"`` feed the live transcript (messages from
``state.updated``, the reply streaming in from ``model.token``), ``"reset"`` clears it and
``"selection"`` shows a checkpoint's messages (read through ``SnapshotReader``: the window never
waits for it; or replayed from the events when no graph is loaded, as for a recorded session);
selecting None returns to live.
Incoming batches are shown at once after a quiet spell, and at most every ``MIN_INTERVAL_MS``
while tokens stream in.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase
from studio.docks.messages.transcript import TranscriptView
from studio.look.highlight import dumps
from studio.look.tones import tones_for
from studio.models.snapshot_reader import SnapshotReader
from studio.models.transcript import Entry, messages_at
from studio.qtmodels.transcript import TranscriptModel, plain_text
from studio.widgets.catch_up import catch_up_now
from studio.widgets.dock_support import bind_to_hub, copy_text, unsubscribe_all
from studio.widgets.plain_text import plain_label
from studio.widgets.steady_slot import steady

if TYPE_CHECKING:
    from studio.models.hub import Hub

__all__ = ["MessagesDock"]


class MessagesDock(QWidget):
    """The transcript widget (the main window puts it in a QDockWidget)."""

    checkpointShown = Signal(object)
    """The checkpoint id now shown, or None for the live conversation."""

    MIN_INTERVAL_MS = 30
    """Queued events are applied at most this often (one update per frame or so); a batch after
    a quiet spell at once."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessagesDock")
        self.hub = hub
        self.model = TranscriptModel(self)
        self.view = TranscriptView(self.model, self)
        self.delegate = self.view.delegate
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)

        self.where = plain_label("Live · 0 messages", self)
        self.where.setObjectName("MessagesWhere")
        self.back_button = QPushButton("Back to live", self)
        self.back_button.setVisible(False)
        self.back_button.clicked.connect(lambda: self.hub.select_checkpoint(None))
        bar = QHBoxLayout()
        bar.setContentsMargins(8, 4, 4, 4)
        bar.addWidget(steady(self.where), 1)  # a new count of the same width: no relayout
        bar.addWidget(self.back_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        self.empty_label = plain_label("", self)
        """Shown instead of an empty transcript: why there is nothing (see ``_empty_text``)."""
        self.empty_label.setObjectName("Muted")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setContentsMargins(16, 16, 16, 16)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.empty_label)
        self.pages.addWidget(self.view)
        lay.addWidget(self.pages, 1)

        self.checkpoint_id: str | None = None
        self._older_seeded = False
        """Whether the transcript of a session opened without its oldest runs starts from
        the state they left (``_apply``)."""
        self._pending: list[EventBase] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)
        self._last_flush = 0.0

        self._tip = SnapshotReader(hub, self._on_tip)
        self._at = SnapshotReader(hub, self._at_loaded)
        """Reads the checkpoint selected (its messages)."""
        """Reads the newest state of a saved thread opened (no event carries its messages)."""
        self._unsubscribe = bind_to_hub(
            self,
            hub,
            {
                "events": self._on_events,
                "reset": self._on_reset,
                "selection": self._on_selection,
                "saved_thread": self._on_saved_thread,
                "graph": lambda *_: self._show_or_explain(),
            },
            catch_up=True,
        )
        if hub.events:
            self._on_events(list(hub.events))
        if hub.selected_checkpoint is not None:
            self._on_selection(hub.selected_checkpoint)
        self._show_or_explain()

    # -- public API ----------------------------------------------------------------------------

    @property
    def entries(self) -> list[Entry]:
        """The messages shown (live, or the selected checkpoint's), streaming reply included."""
        self.flush()
        return self.model.transcript.rows

    @property
    def live_entries(self) -> list[Entry]:
        self.flush()
        return self.model.live.rows

    @property
    def pending(self) -> int:
        return len(self._pending)

    def flush(self) -> None:
        """Apply queued events now (those held while the dock was hidden too)."""
        catch_up_now(self)
        self._timer.stop()
        self._last_flush = time.perf_counter()
        if self._pending:
            batch, self._pending = self._pending, []
            self._apply(batch)
            self.view.settle()
            if self.checkpoint_id is None:
                self._set_where(None)

    def _apply(self, batch: list[EventBase]) -> None:
        """Feed the live transcript; a run from a chosen checkpoint (a fork, a replay, a run on
        from an edit) goes on from that checkpoint's messages, not from the old branch's."""
        if not self._older_seeded and self.hub.older_runs is not None:
            self._seed_older(batch)
        start = 0
        for i, ev in enumerate(batch):
            if ev.kind == "run.started" and not ev.ns:
                checkpoint_id = (ev.__dict__.get("config") or {}).get("checkpoint_id")
                if checkpoint_id:
                    self.model.apply(batch[start:i])
                    start = i
                    self._live_from(checkpoint_id)
        self.model.apply(batch[start:] if start else batch)

    def _seed_older(self, batch: list[EventBase]) -> None:
        """A session opened on its newest runs (``hub.older_runs``): the conversation starts
        with the messages its older runs left, read from the state the first loaded run
        started from, not at the first message that run added."""
        for ev in batch:
            if ev.kind == "checkpoint.saved" and not ev.__dict__.get("checkpoint_ns"):
                self._older_seeded = True
                parent = ev.__dict__.get("parent_id")
                if parent:
                    self._live_from(parent)
                return

    def _live_from(self, checkpoint_id: str) -> None:
        """Make the live transcript the messages at ``checkpoint_id``: the state kept for it,
        else read now from a target in this process (a server's is not waited for here)."""
        hub = self.hub
        snap = hub.snapshots.cached(checkpoint_id)
        if snap is None and getattr(hub.target, "kind", None) != "remote":
            try:
                snap = hub.snapshot(checkpoint_id)
            except Exception:  # a checkpoint the target cannot read: the branch as it came
                return
        values = getattr(snap, "values", None)
        if isinstance(values, dict):
            self.model.live.set_messages(values.get("messages") or [])

    def show_checkpoint(self, checkpoint_id: str | None) -> None:
        """Show the messages as of ``checkpoint_id`` (None: the live conversation)."""
        self.flush()
        self.checkpoint_id = checkpoint_id
        if checkpoint_id is None:
            self.model.show_live()
            self._set_where(None)
            self.back_button.setVisible(False)
            self.view.follow = True
            self.view.scrollToBottom()
            self._at.drop()
        else:
            self._at.read(checkpoint_id)  # shown when read (at once with no loop running)
            return
        self.checkpointShown.emit(checkpoint_id)

    def _at_loaded(self, snap: Any, _base: Any) -> None:
        checkpoint_id = self.checkpoint_id
        if checkpoint_id is None:
            return
        messages, step = self._messages_at(checkpoint_id, snap)
        self.model.show_messages(messages)
        label = f"step {step} · " if step is not None else ""
        self._set_where(f"At checkpoint …{checkpoint_id[-8:]} · {label}{len(messages)} messages")
        self.back_button.setVisible(True)
        self.view.scrollToBottom()
        self.checkpointShown.emit(checkpoint_id)

    def detach(self) -> None:
        """Stop listening to the hub (also done when the widget is destroyed)."""
        unsubscribe_all(self._unsubscribe)

    # -- hub -----------------------------------------------------------------------------------

    def _on_events(self, batch: list[EventBase]) -> None:
        self._pending.extend(batch)
        if self._timer.isActive():
            return
        since = (time.perf_counter() - self._last_flush) * 1000
        if since >= self.MIN_INTERVAL_MS:  # a quiet spell: shown in the pass that brought it
            self.flush()
        else:  # streaming: what came since the last update waits for the rest of the interval
            self._timer.start(int(self.MIN_INTERVAL_MS - since) + 1)

    def _on_reset(self) -> None:
        self._pending = []
        self._older_seeded = False
        self.delegate.clear_cache()
        self.model.clear()
        self.checkpoint_id = None
        self._set_where(None)
        self.back_button.setVisible(False)
        self.view.follow = True

    def _show_or_explain(self) -> None:
        """The transcript, or (when it has no message) a line saying why."""
        if self.model.rowCount() == 0:
            self.empty_label.setText(self._empty_text())
            self.pages.setCurrentWidget(self.empty_label)
        elif self.pages.currentWidget() is not self.view:
            self.pages.setCurrentWidget(self.view)

    def _empty_text(self) -> str:
        target = self.hub.target
        if target is None and not self.hub.events:
            return "Load an agent, or open a session, to see its conversation here."
        if target is not None:
            try:
                keys = target.state_keys()
            except Exception:  # a server that cannot say: no claim about its state
                keys = None
            if keys and "messages" not in keys:
                return (
                    "This graph's state has no messages channel: its values are in the State "
                    "dock.\n\nA chat agent's conversation (its messages key) shows here."
                )
        if self.checkpoint_id is not None:
            return "No messages at this checkpoint."
        return "No messages yet: run the agent, or send it a message from the bar below."

    def _set_where(self, text: str | None) -> None:
        """The header: "Live · N messages", or the checkpoint shown on an amber band."""
        self._show_or_explain()
        if text is None:
            n = len(self.model.live.entries)
            self.where.setText(f"Live · {n} message{'s' if n != 1 else ''}")
            self.where.setStyleSheet("")
            return
        t = tones_for(self.palette())
        self.where.setText(text)
        self.where.setStyleSheet(
            f"QLabel#MessagesWhere {{ background: {t.interrupted_fill.name()};"
            f" color: {t.text.name()}; border-left: 3px solid {t.interrupted.name()};"
            " padding: 3px 6px; }"
        )

    def _on_selection(self, checkpoint_id: str | None) -> None:
        self.show_checkpoint(checkpoint_id)

    def _on_saved_thread(self, *_where: Any) -> None:
        """A saved thread was opened: its conversation so far is the live one."""
        self._tip.read(None)

    def _on_tip(self, snapshot: Any, _parent: Any) -> None:
        if snapshot is None or isinstance(snapshot, BaseException):
            return
        values = getattr(snapshot, "values", None)
        messages = values.get("messages") if isinstance(values, dict) else None
        self.flush()
        self.model.live.set_messages(messages or [])
        if self.checkpoint_id is None:
            self._set_where(None)
            self.view.scrollToBottom()

    def _messages_at(self, checkpoint_id: str, snap: Any) -> tuple[list[Any], int | None]:
        if isinstance(snap, BaseException):  # no graph, another thread, a foreign saver
            snap = None  # replay the events
        if snap is not None:
            values = getattr(snap, "values", None)
            values = values if isinstance(values, dict) else {}  # a one-value state: no messages
            metadata = getattr(snap, "metadata", None) or {}
            return list(values.get("messages") or []), metadata.get("step")
        replayed = messages_at(self.hub.events, checkpoint_id)
        step = next(
            (
                e.step
                for e in self.hub.events
                if e.kind == "checkpoint.saved" and e.checkpoint_id == checkpoint_id
            ),
            None,
        )
        return replayed or [], step

    def _context_menu(self, pos: Any) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        entry = self.model.entry(index.row())
        menu = QMenu(self)
        menu.addAction("Copy text", lambda: copy_text(plain_text(entry)))
        menu.addAction("Copy message JSON", lambda: copy_text(dumps(entry.message)))
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self.delegate.clear_cache()
            self.view.remeasure()
        super().changeEvent(event)
