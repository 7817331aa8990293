"""The Edit State dialog: change the values at a checkpoint and write them with
``update_state(as_node=...)``.

Two tabs: **Values** (the non-message keys as one JSON document, validated against the state
schema as you type) and **Messages** (pick a message, edit its JSON - for example a tool
call's arguments -, remove one of its tool calls, or delete it).  Problems are shown inline
and the Apply buttons stay disabled until there are none.  "As node" chooses whose write the
edit counts as (default: the node that wrote the checkpoint), which decides what runs next.

Built in code; key widgets are attributes (``values_edit``, ``message_list``,
``message_edit``, ``as_node_combo``, ``apply_button``, ``apply_resume_button``,
``error_label``).  ``apply_async()`` writes the edit, publishes ``hub.checkpoints_changed()``,
selects the new checkpoint and emits ``applied(new_id)`` (and ``resumeRequested(new_id)`` for
"Apply && Resume").  Never a nested event loop: ``open()`` it and await nothing.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.messages import AIMessage
from engine.types import END, START, StateSnapshot
from studio.history.timetravel import aapply_edit, default_as_node
from studio.look.palette import colors
from studio.models.hub import Hub
from studio.models.state_edit import EditIssue, StateEdit
from studio.widgets.plain_text import escape, plain_label, rich_label

if TYPE_CHECKING:
    from studio.models.timeline import TimelineModel

__all__ = ["EditStateDialog"]


def _mono() -> QFont:
    f = QFont("DejaVu Sans Mono")
    f.setStyleHint(QFont.StyleHint.Monospace)
    return f


class EditStateDialog(QDialog):
    applied = Signal(str)
    resumeRequested = Signal(str)

    def __init__(
        self,
        hub: Hub,
        checkpoint_id: str | None,
        *,
        timeline: TimelineModel | None = None,
        snapshot: StateSnapshot | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.hub = hub
        self.graph = hub.graph
        self.checkpoint_id = checkpoint_id
        self.new_checkpoint_id: str | None = None
        self.c = colors(hub.theme)
        # the caller read it on the loop (a dock's SnapshotReader); a script: read it now
        snap = snapshot if snapshot is not None else hub.snapshot(checkpoint_id)
        if snap is None:
            raise ValueError("There is no state to edit yet")
        if checkpoint_id is None and snap.config:
            self.checkpoint_id = snap.config.get("configurable", {}).get("checkpoint_id")
        self.snapshot = snap
        self.edit = StateEdit(snap.values if isinstance(snap.values, dict) else {}, self.graph)
        self._current_message = -1
        self._message_issues: list[EditIssue] = []
        self._value_issues: list[EditIssue] = []
        self._values: dict[str, Any] | None = None
        self._busy = False
        self.task: asyncio.Task[str | None] | None = None
        """The running apply (the Apply buttons start it)."""

        meta = snap.metadata or {}
        self.setWindowTitle("Edit state")
        self.setMinimumSize(760, 560)
        title = rich_label(
            f"<b>Edit the state at step {escape(meta.get('step', '?'))}</b> "
            f"<span style='color:{self.c.muted}'>({escape(meta.get('source', ''))}, next: "
            f"{escape(', '.join(map(str, snap.next)) if snap.next else 'end')})</span>"
        )
        note = plain_label(
            "The edit is saved as a new checkpoint; the original stays in the timeline."
        )
        note.setStyleSheet(f"color: {self.c.muted}")

        # values tab
        self.values_edit = QPlainTextEdit(self.edit.values_text())
        self.values_edit.setFont(_mono())
        self.values_edit.textChanged.connect(self.validate)
        # messages tab
        self.message_list = QListWidget()
        self.message_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.message_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.message_list.setUniformItemSizes(True)
        self.message_list.currentRowChanged.connect(self._show_message)
        self.message_edit = QPlainTextEdit()
        self.message_edit.setFont(_mono())
        self.message_edit.textChanged.connect(self._on_message_text)
        self.delete_button = QPushButton("Delete message")
        self.delete_button.clicked.connect(self.toggle_delete)
        self.remove_call_button = QToolButton()
        self.remove_call_button.setText("Remove tool call ▾")
        self.remove_call_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.remove_call_menu = QMenu(self)
        self.remove_call_button.setMenu(self.remove_call_menu)
        msg_buttons = QHBoxLayout()
        msg_buttons.addWidget(self.delete_button)
        msg_buttons.addWidget(self.remove_call_button)
        msg_buttons.addStretch(1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.message_edit, 1)
        rl.addLayout(msg_buttons)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.message_list)
        split.addWidget(right)
        split.setSizes([300, 440])
        self.tabs = QTabWidget()
        self.tabs.addTab(self.values_edit, "Values")
        self.tabs.addTab(split, f"Messages ({len(self.edit.messages)})")
        if self.edit.messages_key is None:
            self.tabs.setTabEnabled(1, False)

        self.as_node_combo = QComboBox()
        nodes = _writer_nodes(hub)
        for n in nodes:
            self.as_node_combo.addItem(n, n)
        self.as_node_combo.addItem("__input__ (as new input)", "__input__")
        default = default_as_node(
            timeline.get(self.checkpoint_id) if timeline is not None else None, self.graph
        )
        if default is None and nodes:
            default = _last_writer(meta, nodes)
        if default is not None and default in nodes:
            self.as_node_combo.setCurrentIndex(nodes.index(default))

        self.error_label = plain_label("")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {self.c.danger}")
        self.apply_button = QPushButton("Apply")
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(lambda: self._launch(resume=False))
        self.apply_resume_button = QPushButton("Apply && Resume")
        self.apply_resume_button.clicked.connect(lambda: self._launch(resume=True))
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.reject)
        self.as_node_combo.setToolTip(
            "The edit counts as this node's output: the node's outgoing edges decide what runs next."
        )
        bottom = QHBoxLayout()
        bottom.addWidget(plain_label("As node:"))
        bottom.addWidget(self.as_node_combo)
        hint = plain_label("its edges decide what runs next")
        hint.setStyleSheet(f"color: {self.c.muted}")
        bottom.addWidget(hint)
        bottom.addStretch(1)
        bottom.addWidget(self.cancel_button)
        bottom.addWidget(self.apply_resume_button)
        bottom.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(note)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.error_label)
        lay.addLayout(bottom)

        self._fill_messages()
        if self.edit.messages:
            self.message_list.setCurrentRow(len(self.edit.messages) - 1)
        self.validate()

    # -- messages ------------------------------------------------------------------------------

    def _fill_messages(self) -> None:
        row = self.message_list.currentRow()
        self.message_list.blockSignals(True)
        self.message_list.clear()
        for i in range(len(self.edit.messages)):
            self.message_list.addItem(self.edit.message_label(i))
        self.message_list.blockSignals(False)
        if 0 <= row < self.message_list.count():
            self.message_list.setCurrentRow(row)

    def _show_message(self, row: int) -> None:
        self._current_message = row
        self._message_issues = []
        if row < 0:
            return
        self.message_edit.blockSignals(True)
        self.message_edit.setPlainText(self.edit.message_text(row))
        self.message_edit.setReadOnly(row in self.edit.deleted)
        self.message_edit.blockSignals(False)
        self.delete_button.setText(
            "Restore message" if row in self.edit.deleted else "Delete message"
        )
        self.remove_call_menu.clear()
        msg = self.edit.message(row)
        calls = msg.tool_calls if isinstance(msg, AIMessage) else []
        for i, call in enumerate(calls):
            self.remove_call_menu.addAction(
                f"{call.get('name')} ({call.get('id')})", lambda i=i: self.remove_tool_call(i)
            )
        self.remove_call_button.setEnabled(bool(calls) and row not in self.edit.deleted)
        self.validate()

    def _on_message_text(self) -> None:
        row = self._current_message
        if row < 0:
            return
        msg, self._message_issues = self.edit.check_message(row, self.message_edit.toPlainText())
        if msg is not None:
            self.edit.set_message(row, msg)
            self.message_list.item(row).setText(self.edit.message_label(row))
        self.validate()

    def remove_tool_call(self, call_index: int) -> None:
        row = self._current_message
        self.edit.remove_tool_call(row, call_index)
        self._fill_messages()
        self._show_message(row)

    def toggle_delete(self) -> None:
        row = self._current_message
        if row >= 0:
            self.edit.toggle_deleted(row)
            self._fill_messages()
            self._show_message(row)

    # -- validation and applying -----------------------------------------------------------------

    @property
    def issues(self) -> list[EditIssue]:
        return [*self._value_issues, *self._message_issues]

    def validate(self) -> bool:
        self._values, self._value_issues = self.edit.check_values(self.values_edit.toPlainText())
        issues = self.issues
        texts = [f"Values: {i.text()}" for i in self._value_issues]
        texts += [f"Message {self._current_message}: {i.text()}" for i in self._message_issues]
        self.error_label.setText("\n".join(texts[:6]))
        ok = not issues and not self._busy
        self.apply_button.setEnabled(ok)
        self.apply_resume_button.setEnabled(ok)
        return not issues

    def update_values(self) -> dict[str, Any]:
        """What ``update_state`` will be given (call after a successful ``validate``)."""
        assert self._values is not None
        return self.edit.build_update(self._values)

    def _launch(self, resume: bool) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop()
        self.task = loop.create_task(self.apply_async(resume=resume))

    async def apply_async(self, *, resume: bool = False) -> str | None:
        """Write the edit; returns the new checkpoint id (None if invalid or it failed)."""
        if not self.validate():
            return None
        self._busy = True
        self.validate()
        try:
            target = self.hub.target
            if target is None:
                raise RuntimeError("no agent is loaded")
            new_id = await aapply_edit(
                target,
                self.hub.thread_id,
                self.checkpoint_id,
                self.update_values(),
                self.as_node_combo.currentData(),
            )
        except Exception as exc:
            self._busy = False
            self.validate()
            self.error_label.setText(f"update_state failed: {exc}")
            return None
        self._busy = False
        self.new_checkpoint_id = new_id
        self.hub.checkpoints_changed()
        self.hub.select_checkpoint(new_id)
        self.applied.emit(new_id)
        if resume:
            self.resumeRequested.emit(new_id)
        self.accept()
        return new_id


def _writer_nodes(hub: Any) -> list[str]:
    """The nodes an edit can be written as: the graph's own, or, for a target whose graph is
    not in this process (a server's), the root nodes of its drawing."""
    graph = hub.graph
    if graph is not None:
        return [n for n in getattr(graph, "nodes", {}) if n not in (START, END)]
    target = hub.target
    if target is None:
        return []
    drawing = target.shape()
    return [
        n.id for n in drawing.nodes.values() if n.kind not in ("start", "end") and ":" not in n.id
    ]


def _last_writer(meta: dict[str, Any], nodes: list[str]) -> str | None:
    writes = meta.get("writes") or {}
    return next((n for n in writes if n in nodes), None)
