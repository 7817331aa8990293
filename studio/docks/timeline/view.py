"""The Timeline dock: every checkpoint of the thread as a branch tree; select one to scrub.

``TimelineDock(hub)`` subscribes itself.  It loads the thread's checkpoints from the hub's
graph (``timeline_records()`` of a recorded session, else the checkpointer's listing) whenever
the graph, thread or checkpoints change, and appends live ``checkpoint.saved`` events.
Selecting a row calls ``hub.select_checkpoint``: every dock shows that moment.  "● Live"
clears the selection and follows the newest checkpoint.

Signals for the run controller (it owns runs):
- ``resumeRequested(checkpoint_id)``: "Resume from here" (fork and run live, under the debugger);
- ``rerunRequested(checkpoint_id)``: "Re-run from here with replay" (``studio.history.timetravel`` /
  ``OpenedSession.arerun`` build the replay model);
- ``diffRequested(base_id, target_id)``: "Diff with parent" / "Compare with marked" (connect to
  ``DiffView.set_pair``);
- ``editApplied(new_checkpoint_id)``: the Edit State dialog wrote a new checkpoint;
- ``runEventsRequested(run_id, checkpoint_id)``: "Show this run's events" (a long session's
  run left in the file: ``studio.dialogs.run_events``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QMenu,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from engine.targets import Capability
from studio.docks.timeline.dialogs import open_compare, open_edit
from studio.docks.timeline.fold import FoldRow
from studio.docks.timeline.menus import fill_compare_menu, show_timeline_menu
from studio.docks.timeline.records import aload_records, load_records, with_announced
from studio.history.timetravel import start_warmup
from studio.look.palette import colors
from studio.models.hub import Hub
from studio.models.timeline import Branch, CheckpointNode, CheckpointRecord, TimelineModel
from studio.qtmodels.timeline_delegate import TimelineDelegate
from studio.qtmodels.timeline_items import ITEM_ROLE, TimelineItemModel
from studio.run.capabilities import can
from studio.widgets.adaptive_button import AdaptiveToolButton
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.plain_text import plain_tip
from studio.widgets.steady_slot import steady

__all__ = ["TimelineDock", "load_records"]

_BUSY = ("running", "paused")
_ENDED = (
    "Nothing runs after this checkpoint: the run ended here. Pick an earlier checkpoint, "
    "or edit this one's state (✎) to go on from it"
)
"""Resume and Re-run at a checkpoint with no next node: a run from it would only write an
empty copy of it into the app's checkpointer."""
_MARKING_KINDS = ("checkpoint.saved", "middleware.action", "interrupt.raised", "run.finished")
"""Events the Timeline reads (its checkpoints and their marks); a replayed reply too."""


class TimelineDock(QWidget):
    resumeRequested = Signal(str)
    rerunRequested = Signal(str)
    diffRequested = Signal(str, str)
    editApplied = Signal(str)
    runEventsRequested = Signal(str, str)
    """(run id, checkpoint id): show the events of a run a long session left in the file."""
    warmed = Signal()
    """The background warm-up ended (emitted on its thread, delivered on the window's)."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.timeline = TimelineModel(hub.thread_id)
        self.item_model = TimelineItemModel(self.timeline, self)
        self.marked: str | None = None
        """A checkpoint marked for "Compare with marked"."""
        self._syncing = False
        self._dialogs: list[QWidget] = []
        self.warmup_enabled = True
        """Read the branch tips in the background after a load (see ``timetravel.start_warmup``)."""
        self.warmup: threading.Thread | None = None
        self._warm_next = True
        self.warmed.connect(self._on_warmed)

        self.view = QTreeView(self)
        self.view.setModel(self.item_model)
        self.delegate = TimelineDelegate(self.view, hub.theme)
        self.view.setItemDelegate(self.delegate)
        self.view.setHeaderHidden(True)
        self.view.setUniformRowHeights(True)
        self.view.setIndentation(0)  # the delegate draws lanes instead
        self.view.setRootIsDecorated(False)
        self.view.setExpandsOnDoubleClick(False)
        self.view.clicked.connect(self._on_clicked)
        self.fold_row = FoldRow(self.view, self.item_model, self._after_fold)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(lambda pos: show_timeline_menu(self, pos))
        # selection, not the current index: a view makes its first row current on its own
        self.view.selectionModel().selectionChanged.connect(self._on_selected)
        self.view.setMouseTracking(True)

        self.live_button = AdaptiveToolButton(
            ("● Live",), "Follow the newest checkpoint (clear the selection)"
        )
        self.live_button.setCheckable(True)
        self.live_button.setChecked(True)
        self.live_button.clicked.connect(self.follow_live)
        self._resume_tip = "Fork at the selected checkpoint and run live"
        self._edit_tip = "Change the state at this checkpoint (update_state)"
        self._rerun_tip = "Re-run from here serving the recorded model responses"
        self._generation = 0
        self.reload_task: asyncio.Task[None] | None = None
        self._reading: tuple[int, str] | None = None
        """(target, thread) the running reload reads."""
        self._again = False
        """A reload was asked for while that one ran: run one more when it ends."""
        self.resume_button = AdaptiveToolButton(
            ("▶ Resume from here", "▶ Resume", "▶"), self._resume_tip
        )
        self.resume_button.clicked.connect(lambda: self._emit_for_selected(self.resumeRequested))
        self.rerun_button = AdaptiveToolButton(
            ("⟲ Re-run with replay", "⟲ Re-run", "⟲"), self._rerun_tip
        )
        self.rerun_button.clicked.connect(lambda: self._emit_for_selected(self.rerunRequested))
        self.edit_button = AdaptiveToolButton(("✎ Edit state…", "✎ Edit…", "✎"), self._edit_tip)
        self.edit_button.clicked.connect(lambda: self.open_edit_dialog())
        self.compare_button = AdaptiveToolButton(("⇆ Compare", "⇆"), "Diff or compare branches")
        self.compare_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.compare_menu = QMenu(self)
        self.compare_menu.aboutToShow.connect(lambda: fill_compare_menu(self))
        self.compare_button.setMenu(self.compare_menu)
        self.summary_label = ElidedLabel()
        self.summary_label.setAlignment(Qt.AlignmentFlag.AlignRight)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.setSpacing(2)
        for w in (
            self.live_button,
            self.resume_button,
            self.rerun_button,
            self.edit_button,
            self.compare_button,
        ):
            bar.addWidget(w)
        bar.addWidget(steady(self.summary_label), 1)  # takes what the buttons leave
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)

        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(0)
        self._reload_timer.timeout.connect(self.reload)
        self._follow_timer = QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.setInterval(0)
        self._follow_timer.timeout.connect(self._follow)
        self._follow_to: QPersistentModelIndex | None = None
        self.item_model.rowsInserted.connect(self._on_rows_inserted)
        self.item_model.modelReset.connect(self._after_reset)
        self._unsubs = [
            hub.subscribe("graph", lambda _d: self.schedule_reload(warm=True)),
            hub.subscribe("thread", self._on_thread),
            hub.subscribe("reset", self.schedule_reload),
            hub.subscribe("checkpoints", self.schedule_reload),
            hub.subscribe("events", self._on_events),
            hub.subscribe("selection", self._on_selection),
            hub.subscribe("shown_status", lambda _s: self._update_actions()),
            hub.subscribe("theme", self.set_theme),
        ]
        self.set_theme(hub.theme)
        self.reload()

    # -- loading -------------------------------------------------------------------------------

    def schedule_reload(self, warm: bool = False) -> None:
        """Reload on the next loop turn; ``warm`` also caches the checkpoints in the background
        (after a graph or thread change, not at a run's start: the run writes the same saver)."""
        self._warm_next = self._warm_next or warm
        self._reload_timer.start()

    def reload(self) -> asyncio.Task[None] | None:
        """Read the thread's checkpoints: in a task on the running loop when there is one
        (returned; a slow target never blocks the window), else now.  While the same thread
        is being read, a reload asked for runs once that read ends (one listing at a time: a
        server answers them one after the other anyway)."""
        self._reload_timer.stop()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            key = (id(self.hub.target), self.hub.thread_id)
            task = self.reload_task
            if task is not None and not task.done() and self._reading == key:
                self._again = True
                return task
            self._generation += 1
            self._reading, self._again = key, False
            self.reload_task = loop.create_task(self._aload(self._generation))
            return self.reload_task
        self._generation += 1
        try:
            records = load_records(self.hub)
        except Exception as exc:  # a damaged file must not break the dock
            self._loaded(exc)
        else:
            self._loaded(records)
        return None

    async def _aload(self, generation: int) -> None:
        hub = self.hub
        pages = getattr(hub.target, "checkpoint_pages", None)
        try:
            if pages is None:
                records = await aload_records(hub)
                if generation == self._generation:
                    self._loaded(records)
            else:  # shown page by page, the newest first (a server's long thread)
                shown = False
                async for page in pages(hub.thread_id):
                    if generation != self._generation:
                        return
                    self._loaded(with_announced(hub, page), last=False)
                    shown = True
                if generation == self._generation:
                    if not shown:
                        self._loaded(with_announced(hub, []), last=False)
                    self._finish_load()
        except Exception as exc:  # a damaged file, an unreachable server
            if generation == self._generation:
                self._loaded(exc)
        if generation == self._generation and self._again:
            self._again = False
            self.schedule_reload()

    def _loaded(self, records: list[CheckpointRecord] | Exception, *, last: bool = True) -> None:
        self.timeline.thread_id = self.hub.thread_id
        if isinstance(records, Exception):
            self.summary_label.setText(f"cannot read checkpoints: {records}")
            records = []
        self.hub.note_parents((r.checkpoint_id, r.parent_id) for r in records)
        self.timeline.load(records)
        self._update_summary()
        if last:
            self._finish_load()

    def _finish_load(self) -> None:
        if self.warmup_enabled and self._warm_next:
            self.warm_up()
        self._warm_next = False

    def warm_up(self) -> threading.Thread | None:
        """Cache the thread's checkpoints in the background, so any selection reads fast."""
        saver = self.hub.checkpointer
        tips = sorted(self.timeline.tips(), key=lambda n: n.step or 0, reverse=True)
        if not tips or not hasattr(saver, "_load_value") or self.hub.status in _BUSY:
            return None
        ids = [t.checkpoint_id for t in tips]
        self.warmup = start_warmup(
            saver, self.hub.thread_id, ids, len(self.timeline), on_done=self.warmed.emit
        )
        return self.warmup

    def _on_warmed(self) -> None:
        """The thread's checkpoints are read and cached: the hub tells who cares (the garbage
        collector's policy freezes them, ``studio.app.gc_policy``)."""
        self.hub.publish("warmed")

    def _on_thread(self, thread_id: str) -> None:
        self.timeline.load([], keep_markers=False)
        self.schedule_reload(warm=True)

    def _on_events(self, batch: list[Any]) -> None:
        # a replayed reply marks its run's checkpoints, even alone in its batch (a re-run
        # from a recorded session hands the events over one by one)
        if any(
            ev.kind in _MARKING_KINDS
            or (ev.kind == "model.response" and getattr(ev, "replayed", False))
            for ev in batch
        ):
            self.timeline.apply_events(batch)
            self._update_summary()
            if self._follow_timer.isActive():  # the batch's rows are in: follow them now, in
                self._follow()  # the event-loop pass that paints every other view's update

    def _after_reset(self) -> None:
        self._expand_forks()
        self._on_selection(self.hub.selected_checkpoint)
        latest = self.timeline.latest()
        if self.hub.selected_checkpoint is None and latest is not None:
            # following the live tip: a thread loaded (a session opened) shows its newest
            # checkpoint, not the fold of its oldest ones (once laid out: ``_follow``)
            self._follow_to = QPersistentModelIndex(self.item_model.index_of(latest))
            self._follow_timer.start()

    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if self.fold_row.moving:  # old rows put into the fold: nothing new to follow
            return
        item = self.item_model.item(parent)
        if isinstance(item, CheckpointNode):  # a new branch header under its fork point
            self.view.expand(parent)
            self.view.expand(self.item_model.index(first, 0, parent))
        if self.hub.selected_checkpoint is None:
            # follow once per batch of checkpoints, not per row: scrolling lays out the tree
            self._follow_to = QPersistentModelIndex(self.item_model.index(last, 0, parent))
            self._follow_timer.start()

    def _follow(self) -> None:
        self._follow_timer.stop()
        target, self._follow_to = self._follow_to, None
        if self.hub.selected_checkpoint is None:
            self._mark_live()
            if target is not None and target.isValid():
                self.view.scrollTo(target)

    def _expand_forks(self) -> None:
        collapsed = self.delegate.collapsed
        for b in self.timeline.branches:
            if b.fork_point is not None:
                self.view.expand(self.item_model.index_of(b.fork_point))
            if b is not self.timeline.main and b.id not in collapsed:
                self.view.expand(self.item_model.index_of(b))

    def _after_fold(self) -> None:
        """Rows moved into the fold: reopen the forks in them, select the selection again."""
        self._expand_forks()
        if self.hub.selected_checkpoint is not None:
            self._on_selection(self.hub.selected_checkpoint)

    def _on_clicked(self, index: QModelIndex) -> None:
        if self.fold_row.toggle(index):
            return
        item = index.data(ITEM_ROLE)
        if isinstance(item, Branch):  # a header folds its branch
            expanded = not self.view.isExpanded(index)
            self.view.setExpanded(index, expanded)
            (self.delegate.collapsed.discard if expanded else self.delegate.collapsed.add)(item.id)

    # -- selection -----------------------------------------------------------------------------

    def selected_node(self) -> CheckpointNode | None:
        return self.timeline.get(self.hub.selected_checkpoint)

    def _on_selected(self, *_args: Any) -> None:
        if self._syncing or self.fold_row.moving:
            return
        rows = self.view.selectionModel().selectedRows()
        item = rows[0].data(ITEM_ROLE) if rows else None
        if isinstance(item, CheckpointNode):
            self.hub.select_checkpoint(item.checkpoint_id)

    def _on_selection(self, checkpoint_id: str | None) -> None:
        node = self.timeline.get(checkpoint_id)
        self._syncing = True
        try:
            if node is None:
                self.view.selectionModel().clear()
            else:
                idx = self.item_model.index_of(node)
                self.fold_row.reveal(idx)
                self.view.selectionModel().setCurrentIndex(
                    idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                )
                self.view.scrollTo(idx)
        finally:
            self._syncing = False
        self.live_button.setChecked(checkpoint_id is None)
        self._mark_live()
        self._update_actions()

    def select(self, checkpoint_id: str | None) -> None:
        self.hub.select_checkpoint(checkpoint_id)

    def follow_live(self) -> None:
        self.hub.select_checkpoint(None)
        self.live_button.setChecked(True)
        latest = self.timeline.latest()
        if latest is not None:
            self.view.scrollTo(self.item_model.index_of(latest))

    def _mark_live(self) -> None:
        latest = self.timeline.latest() if self.hub.selected_checkpoint is None else None
        self.delegate.live_id = latest.checkpoint_id if latest is not None else None
        self.view.viewport().update()

    # -- actions -------------------------------------------------------------------------------

    def _update_actions(self) -> None:
        node = self.selected_node()
        idle = self.hub.shown_status not in _BUSY
        forks, why_not_fork = can(self.hub, Capability.FORK)
        edits, why_not_edit = can(self.hub, Capability.EDIT_STATE)
        ended = node is not None and node.next == ()
        self.resume_button.setEnabled(node is not None and forks and idle and not ended)
        self.resume_button.setToolTip(
            plain_tip(_ENDED if forks and ended else self._resume_tip if forks else why_not_fork)
        )
        replays, why_not_replay = can(self.hub, Capability.REPLAY_MODEL_CALLS)
        if not replays and not can(self.hub, Capability.RUN)[0] and self.hub.target is not None:
            replays = True  # a recorded session re-runs on its agent's code (offline_rerun)
        self.rerun_button.setEnabled(node is not None and idle and replays and not ended)
        self.rerun_button.setToolTip(
            plain_tip(
                _ENDED if replays and ended else self._rerun_tip if replays else why_not_replay
            )
        )
        self.edit_button.setEnabled(edits and idle)
        self.edit_button.setToolTip(plain_tip(self._edit_tip if edits else why_not_edit))
        self.compare_button.setEnabled(len(self.timeline) > 0)

    def _update_summary(self) -> None:
        n, b = len(self.timeline), len(self.timeline.branches)
        self.summary_label.setText(
            f"{n} checkpoint{'s' if n != 1 else ''} · {b} branch{'es' if b != 1 else ''}  "
        )
        self._update_actions()

    def _emit_for_selected(self, signal: Any) -> None:
        node = self.selected_node()
        if node is not None:
            signal.emit(node.checkpoint_id)

    def set_theme(self, theme: str) -> None:
        self.delegate.set_theme(theme)
        c = colors(theme)
        self.summary_label.setStyleSheet(f"color: {c.muted}")
        self.view.viewport().update()

    def _target(self, checkpoint_id: str | None = None) -> CheckpointNode | None:
        return (
            self.timeline.get(checkpoint_id)
            if checkpoint_id
            else (self.selected_node() or self.timeline.latest())
        )

    def open_edit_dialog(self, checkpoint_id: str | None = None) -> Any:
        """The Edit State dialog for a checkpoint (default: the selection, else the tip): see
        ``studio.docks.timeline.dialogs.open_edit``."""
        node = self._target(checkpoint_id)
        return open_edit(self, node.checkpoint_id if node else None)

    def open_compare(self, left_id: str, right_id: str) -> Any:
        """The Compare Branches window for two checkpoints (usually branch tips)."""
        return open_compare(self, left_id, right_id)

    def keep(self, dialog: QWidget) -> None:
        """Keep ``dialog`` alive while it is open (with the others still open)."""
        self._dialogs = [d for d in self._dialogs if d.isVisible()] + [dialog]

    def closeEvent(self, event: QCloseEvent) -> None:
        for unsub in self._unsubs:
            unsub()
        self._unsubs = []
        super().closeEvent(event)
