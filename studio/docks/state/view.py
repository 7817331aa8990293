"""The State dock: the values at the selected checkpoint (or the live tip) as a lazy tree and as
pygments-highlighted JSON; search inside the state; copy a value; open the Edit State dialog.

``StateDock(hub)`` subscribes itself: it follows ``selection`` (None = the live tip, refreshed
as checkpoints are saved), ``reset``/``graph``/``thread``/``checkpoints`` and the theme.
``render_ms`` is how long the last checkpoint took to show (read state, build the tree's top
level, lay out the view) - the 100 ms budget of the benchmark.  The state is read through
``studio.models.snapshot_reader``: on the app's loop the window never waits for it.

Signals: ``resumeRequested(checkpoint_id)`` ("Apply && Resume" in the edit dialog),
``editApplied(new_checkpoint_id)``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from engine.events import CheckpointSaved
from engine.targets import Capability
from engine.types import StateSnapshot
from studio.docks.state.json_html import json_html
from studio.look.palette import colors
from studio.models.hub import Hub
from studio.models.snapshot_reader import SnapshotReader
from studio.models.state_tree import Path, StateNode, StateTree
from studio.qtmodels.state_items import NODE_ROLE, StateItemModel
from studio.run.capabilities import can
from studio.widgets.plain_text import plain_label, plain_tip
from studio.widgets.steady_header import steady_header
from studio.widgets.steady_slot import steady

__all__ = ["StateDock", "describe_snapshot"]

_AUTO_EXPAND = 12
"""Top-level containers with at most this many children start expanded (e.g. todos)."""


def describe_snapshot(snap: StateSnapshot | None, live: bool, writers: tuple[str, ...] = ()) -> str:
    """``Step 3 · loop · written by tools · next: model`` for the dock's header."""
    if snap is None or snap.metadata is None:
        return "No checkpoint yet"
    meta = snap.metadata
    parts = [f"Step {meta.get('step', '?')}", str(meta.get("source", ""))]
    writers = writers or tuple(meta.get("writes") or {})
    if writers:
        parts.append("written by " + ", ".join(writers))
    nxt = ", ".join(snap.next) if snap.next else "end"
    parts.append(f"next: {nxt}")
    if snap.interrupts:
        parts.append(f"‖ {len(snap.interrupts)} interrupt{'s' if len(snap.interrupts) > 1 else ''}")
    head = " · ".join(p for p in parts if p)
    return ("● Live  " if live else "") + head


class StateDock(QWidget):
    resumeRequested = Signal(str)
    editApplied = Signal(str)

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.theme = hub.theme
        self.snapshot: StateSnapshot | None = None
        self.checkpoint_id: str | None = None
        """The checkpoint shown (the tip's id while live)."""
        self.render_ms = 0.0
        self.matches: list[Path] = []
        self.match_index = -1
        self._json_for: str | None = None
        self._dialogs: list[QWidget] = []
        self._writers: dict[str, tuple[str, ...]] = {}
        """Writer nodes of the checkpoints seen in events (the snapshot does not say)."""
        self.reader = SnapshotReader(hub, self._loaded)
        self._asked: tuple[str | None, float] = (None, time.perf_counter())
        """The checkpoint asked for last, and when."""

        self.title = plain_label("No checkpoint yet")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setMinimumWidth(40)  # a long header must not widen the dock
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.search = QLineEdit()
        self.search.setPlaceholderText(
            "Search keys and values…  (Enter: next, Shift+Enter: previous)"
        )
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_typed)
        self.search.returnPressed.connect(self._on_return)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.timeout.connect(lambda: self._on_search_text(self.search.text()))
        self.match_label = plain_label("")
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the selected value as JSON")
        self.copy_button.setAutoRaise(True)
        self.copy_button.clicked.connect(self.copy_selected)
        self.edit_button = QToolButton()
        self.edit_button.setText("✎ Edit…")
        self.edit_button.setToolTip("Edit the state at this checkpoint (update_state)")
        self.edit_button.setAutoRaise(True)
        self.edit_button.clicked.connect(self.open_edit_dialog)

        self.model = StateItemModel(self, self.theme)
        self.tree = QTreeView()
        steady_header(self.tree)  # not repainted at every new state read
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        # fixed widths: ResizeToContents measures every expanded row (slow at 10,000 messages)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 170)
        header.resizeSection(2, 118)
        QShortcut(QKeySequence.StandardKey.Copy, self.tree, self.copy_selected)
        self.json_view = QTextBrowser()
        self.json_view.setOpenLinks(False)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.tree, "Tree")
        self.tabs.addTab(self.json_view, "JSON")
        self.tabs.currentChanged.connect(lambda _i: self._render_json_if_visible())

        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 4, 2)
        top.addWidget(steady(self.title), 1)  # a new header of the same size: no relayout
        top.addWidget(self.edit_button)
        find = QHBoxLayout()
        find.setContentsMargins(4, 0, 4, 2)
        find.addWidget(self.search, 1)
        find.addWidget(self.match_label)
        find.addWidget(self.copy_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addLayout(find)
        lay.addWidget(self.tabs, 1)

        self._unsubs = [
            hub.subscribe("selection", lambda cid: self.show_checkpoint(cid)),
            hub.subscribe("reset", self._on_reset),
            hub.subscribe("graph", lambda _d: self.show_checkpoint(hub.selected_checkpoint)),
            hub.subscribe("thread", lambda _t: self.show_checkpoint(None)),
            hub.subscribe("checkpoints", self.refresh),
            hub.subscribe("events", self._on_events),
            hub.subscribe("shown_status", lambda _s: self._update_actions()),
        ]
        try:
            self._unsubs.append(hub.subscribe("theme", self.set_theme))
        except ValueError:
            pass
        self.set_theme(self.theme)
        self.show_checkpoint(hub.selected_checkpoint)

    # -- showing a checkpoint ------------------------------------------------------------------

    @property
    def live(self) -> bool:
        return self.hub.selected_checkpoint is None

    def refresh(self) -> None:
        self.show_checkpoint(self.hub.selected_checkpoint)

    def show_checkpoint(self, checkpoint_id: str | None) -> asyncio.Task[None] | None:
        """Show the state at ``checkpoint_id`` (None: the live tip), read on the running loop
        when there is one (the task is returned; a newer call wins), else now."""
        self._asked = (checkpoint_id, time.perf_counter())
        return self.reader.read(checkpoint_id)

    def _loaded(self, snap: Any, _base: Any) -> None:
        checkpoint_id, t0 = self._asked
        if isinstance(snap, BaseException):
            self.title.setText(f"Cannot read the state: {snap}")
            snap = None
        self.snapshot = snap
        self.checkpoint_id = checkpoint_id
        if snap is not None and snap.config:
            self.checkpoint_id = (
                snap.config.get("configurable", {}).get("checkpoint_id") or checkpoint_id
            )
        tree = StateTree(snap.values if snap is not None and isinstance(snap.values, dict) else {})
        self.model.set_tree(tree)
        for node in tree.root.children():
            if node.kind in ("object", "array") and 0 < node.child_count() <= _AUTO_EXPAND:
                self.tree.expand(self.model.index_of(node))
        if snap is not None or checkpoint_id is None:
            writers = self._writers.get(self.checkpoint_id or "", ())
            self.title.setText(describe_snapshot(snap, self.live, writers))
        self.title.setToolTip(plain_tip(self.checkpoint_id or ""))
        self._json_for = None
        self._render_json_if_visible()
        if self.search.text():
            self._on_search_text(self.search.text())
        self._update_actions()
        self.render_ms = (time.perf_counter() - t0) * 1000

    def _on_reset(self) -> None:
        self._writers = {}
        for ev in self.hub.events:
            if isinstance(ev, CheckpointSaved) and not ev.ns:
                self._writers[str(ev.checkpoint_id)] = tuple(ev.writer_nodes or ())
        self.show_checkpoint(None)

    def _on_events(self, batch: list[Any]) -> None:
        saved = [ev for ev in batch if isinstance(ev, CheckpointSaved) and not ev.ns]
        for ev in saved:
            self._writers[str(ev.checkpoint_id)] = tuple(ev.writer_nodes or ())
        if saved and self.live:  # once per batch: the run controller batches events
            self.refresh()

    def _render_json_if_visible(self) -> None:
        if self.tabs.currentWidget() is not self.json_view or self._json_for == self.checkpoint_id:
            return
        values = self.model.tree.values
        self.json_view.setHtml(json_html(dict(values), self.theme) if values else "")
        self._json_for = self.checkpoint_id

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self.model.set_theme(theme)
        c = colors(theme)
        self.title.setStyleSheet(f"font-weight: 600; color: {c.text}")
        self.match_label.setStyleSheet(f"color: {c.muted}")
        self._json_for = None
        self._render_json_if_visible()

    def _update_actions(self) -> None:
        busy = self.hub.shown_status in ("running", "paused")
        editable, why = can(self.hub, Capability.EDIT_STATE)
        self.edit_button.setEnabled(editable and self.snapshot is not None and not busy)
        self.edit_button.setToolTip(
            plain_tip("Edit the state at this checkpoint (update_state)" if editable else why)
        )

    # -- search ----------------------------------------------------------------------------------

    def _on_typed(self, text: str) -> None:
        """Search as you type; in a big state, once typing pauses (a search reads every value)."""
        values = self.model.tree.values
        size = sum(
            len(v) for v in values.values() if isinstance(v, list | tuple) or hasattr(v, "__len__")
        )
        if size < 2000:
            self._on_search_text(text)
        else:
            self._search_timer.start(250)

    def _on_return(self) -> None:
        if self._search_timer.isActive():
            self._search_timer.stop()
            self._on_search_text(self.search.text())
        elif QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.previous_match()
        else:
            self.next_match()

    def _on_search_text(self, text: str) -> None:
        self.matches = self.model.tree.find(text) if text.strip() else []
        self.match_index = -1
        self.model.highlight = set()
        self.model.layoutChanged.emit()
        if self.matches:
            self.next_match()
        else:
            self.match_label.setText("no matches" if text.strip() else "")

    def next_match(self) -> None:
        self._go(1)

    def previous_match(self) -> None:
        self._go(-1)

    def _go(self, step: int) -> None:
        if not self.matches:
            return
        self.match_index = (self.match_index + step) % len(self.matches)
        path = self.matches[self.match_index]
        idx = self.model.index_for_path(path)
        node = self.model.tree.node_at(path)
        if node is not None:
            self.model.highlight = {id(node)}
        parent = idx.parent()
        while parent.isValid():
            self.tree.expand(parent)
            parent = parent.parent()
        self.tree.setCurrentIndex(idx)
        self.tree.scrollTo(idx)
        self.match_label.setText(f"{self.match_index + 1} of {len(self.matches)}")
        self.tabs.setCurrentWidget(self.tree)

    # -- copy ------------------------------------------------------------------------------------

    def selected_node(self) -> StateNode | None:
        idx = self.tree.currentIndex()
        return idx.data(NODE_ROLE) if idx.isValid() else None

    def copy_selected(self) -> str | None:
        node = self.selected_node()
        text = node.to_json() if node is not None else None
        if text is None and self.model.tree.values:
            text = self.model.tree.root.to_json()
        if text is not None:
            QGuiApplication.clipboard().setText(text)
        return text

    def _context_menu(self, pos: Any) -> None:
        idx: QModelIndex = self.tree.indexAt(pos)
        node = idx.data(NODE_ROLE) if idx.isValid() else None
        if node is None:
            return
        menu = QMenu(self)
        clip = QGuiApplication.clipboard()
        menu.addAction("Copy value (JSON)", lambda: clip.setText(node.to_json()))
        menu.addAction("Copy path", lambda: clip.setText(node.path_text()))
        menu.addAction("Copy key", lambda: clip.setText(node.display_key()))
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    # -- editing ---------------------------------------------------------------------------------

    def open_edit_dialog(self) -> Any:
        from studio.dialogs.edit_state import EditStateDialog

        dialog = EditStateDialog(self.hub, self.checkpoint_id, snapshot=self.snapshot, parent=self)
        dialog.applied.connect(self.editApplied)
        dialog.resumeRequested.connect(self.resumeRequested)
        self._dialogs = [d for d in self._dialogs if d.isVisible()] + [dialog]
        dialog.open()
        return dialog

    def closeEvent(self, event: QCloseEvent) -> None:
        for unsub in self._unsubs:
            unsub()
        self._unsubs = []
        super().closeEvent(event)
