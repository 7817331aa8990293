"""The **Events** dock: a live, virtualised tree of spans with filters and a details pane.

``EventLogDock(hub)`` subscribes to the hub's ``"events"`` and ``"reset"``.  Incoming batches are
ingested as they come, in time slices (``SLICE_S``; what does not fit waits for the next
event-loop turn), so a flood of events never stalls the window; ``flush()`` ingests everything
at once (tests, ``select_seq``).

Follow mode (the *Follow* toggle, on by default; ``FollowPath``): while the view is scrolled to
the bottom, the path to the newest event stays open.  Scrolled up, nothing moves under the user.

Filters run as sliced ``FilterJob``s too; ``filter_node(name)`` is what the Graph dock calls on
a node click.

Selection is shared through the hub (``"event"``): the row picked here is selected in every
view (the waterfall, the graph, the request view), and an event picked elsewhere is selected
here.  The Cost column prices the calls with ``hub.prices`` (``"prices"`` when they change).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase
from studio.docks.events.columns import EventColumns
from studio.docks.events.delegate import EventCellDelegate
from studio.docks.events.details import EventDetails
from studio.docks.events.filter_bar import FilterBar
from studio.docks.events.follow import FollowPath
from studio.docks.events.footer import footer_text
from studio.docks.events.menu import model_call, show_event_menu
from studio.docks.events.travel import travel
from studio.models.event_filter import EventFilter, FilterJob
from studio.models.event_row import Row
from studio.qtmodels.event_tree import EventTreeModel
from studio.widgets.catch_up import catch_up_now
from studio.widgets.dock_support import bind_to_hub, unsubscribe_all
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.steady_header import steady_header
from studio.widgets.steady_slot import steady

if TYPE_CHECKING:
    from studio.models.hub import Hub

__all__ = ["EventLogDock"]


class EventLogDock(QWidget):
    """The event log widget (the main window puts it in a QDockWidget)."""

    rowSelected = Signal(object)
    """The selected ``Row`` (or None); its ``event`` / ``end`` are the engine events."""
    playgroundRequested = Signal(object)
    """"What if…" on a model call: its ``model.request`` event."""

    SLICE_S = 0.008
    """Ingest budget per event-loop turn."""
    CHUNK = 400
    """Events handed to the tree per call (Qt hears of them at the next sync)."""
    SYNC_S = 0.03
    """While a backlog is ingested slice by slice, Qt sees new rows at most this often (the tree
    is always current; a tree view re-lays out its visible rows on every insert batch).  A
    batch from the hub that is ingested whole is shown at once (the hub's batches already
    come at most every 20 ms under a flood)."""
    SYNC_SHARE = 3
    """...and at most every ``SYNC_SHARE`` times what the last showing took: a long log, whose
    showing costs more, keeps most of the time for ingesting a flood."""
    FILTER_SLICE_S = 0.012
    EXPAND_ALL_BELOW = 3000
    """After filtering, expand everything when at most this many rows are visible."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("EventLogDock")
        self.hub = hub
        self.model = EventTreeModel(parent=self)
        self.filter_bar = FilterBar(self)
        self.view = QTreeView(self)
        self.details = EventDetails(self)
        self.status = ElidedLabel(parent=self)  # a long status never widens the dock
        self._setup_view()

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.details)
        splitter.setStretchFactor(0, 3)  # a short (laptop) dock still shows 5+ payload lines
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([330, 220])
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.filter_bar)
        lay.addWidget(splitter, 1)
        self.whatif_button = QPushButton("What if…", self)
        self.whatif_button.setObjectName("whatifButton")
        self.whatif_button.setToolTip(
            "Open the selected model call in the playground: edit its request, send it again, "
            "continue from there with another answer"
        )
        self.whatif_button.setEnabled(False)
        self.whatif_button.clicked.connect(self._request_playground)
        self.offers_playground = True
        """Model calls open in the playground ("What if…", the row menu); off where nothing
        answers ``playgroundRequested`` (``offer_playground``)."""
        foot = QHBoxLayout()
        # the inset is the row's: under the app's stylesheet, a label of an Ignored width
        # moved to another parent (its slot, the dock) gets back the margins it first had
        foot.setContentsMargins(6, 2, 4, 2)
        foot.setSpacing(foot.spacing() + 6)
        foot.addWidget(steady(self.status), 1)  # a new count of the same width: no relayout
        foot.addWidget(self.whatif_button)
        lay.addLayout(foot)

        self._pending: deque[list[EventBase]] = deque()
        self._pending_count = 0
        self._head = 0
        """Events of ``_pending[0]`` already ingested."""
        self._drain_timer = QTimer(self)
        self._drain_timer.setSingleShot(True)
        self._drain_timer.setInterval(0)
        self._drain_timer.timeout.connect(self._drain)
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.timeout.connect(self._show_ingested)
        self._job: FilterJob | None = None
        self._job_timer = QTimer(self)
        self._job_timer.setSingleShot(True)
        self._job_timer.setInterval(0)
        self._job_timer.timeout.connect(self._run_job)
        self.follow = True
        self._choices = (0, 0)
        self._last_sync = 0.0
        self._sync_cost = 0.0
        """How long the last showing of new rows took (seconds)."""
        self._details_stale = False
        self._at_bottom = True
        """Whether the user left the view at its end (new rows do not change this)."""
        self.view.verticalScrollBar().valueChanged.connect(self._on_scrolled)

        self.filter_bar.changed.connect(self._start_filter)
        # the bar's node choice and the graph's double-click filter are one setting
        self.filter_bar.changed.connect(lambda flt: hub.set_focus(flt.node))
        self.filter_bar.followToggled.connect(self.set_follow)
        self._source = hub.source_label
        self._unsubscribe = bind_to_hub(
            self,
            hub,
            {
                "events": self._on_events,
                "reset": self._on_reset,
                "graph": self._on_graph,
                "selection": self._on_selection,
                "event": self._on_event_picked,
                "prices": self._on_prices,
                "older_runs": self._on_older_runs,
            },
            catch_up=True,
        )
        self.model.set_prices(hub.prices)
        if hub.events:
            self._on_events(list(hub.events))
        self._update_status()

    def _setup_view(self) -> None:
        v = self.view
        steady_header(v)  # not repainted at every relayout of the rows
        v.setModel(self.model)
        self.delegate = EventCellDelegate(v)
        self.delegate.bind(self.model)
        v.setItemDelegate(self.delegate)
        v.setUniformRowHeights(True)
        v.setAlternatingRowColors(True)
        v.setAllColumnsShowFocus(True)
        v.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        v.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        v.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        v.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        v.customContextMenuRequested.connect(lambda pos: show_event_menu(self, pos))
        v.setAnimated(False)
        v.setIndentation(16)
        self.columns = EventColumns(v)  # the event first, never squeezed to a few letters
        self.follower = FollowPath(v, self.model)
        v.selectionModel().currentRowChanged.connect(self._on_current)

    # -- public API ----------------------------------------------------------------------------

    @property
    def tree(self) -> Any:
        return self.model.tree

    @property
    def pending(self) -> int:
        """Events received but not ingested yet."""
        return self._pending_count

    @property
    def busy(self) -> bool:
        """Events queued, rows not shown yet, or a filter running."""
        return bool(self._pending_count) or self.model.unsynced or self._job is not None

    def flush(self) -> None:
        """Ingest every queued event now (those held while the dock was hidden too)."""
        catch_up_now(self)
        while self._pending_count:
            self._drain(budget_s=None)

    def set_follow(self, on: bool) -> None:
        self.follow = on
        if self.filter_bar.follow_button.isChecked() != on:
            self.filter_bar.follow_button.setChecked(on)
        if on:
            self.follower.follow()

    def filter_node(self, name: str | None) -> None:
        """Show only events of graph node ``name`` (None: every node)."""
        self.filter_bar.set_node(name)

    def set_filter_text(self, text: str) -> None:
        self.filter_bar.text_edit.setText(text)
        self.filter_bar._emit_now()

    def set_kinds(self, kinds: set[str] | None) -> None:
        """Show only these kind families (``"attempt"``, ``"tool"``...; None: all)."""
        self.filter_bar.set_kinds(kinds)

    def clear_filter(self) -> None:
        self.filter_bar.clear()

    def select_seq(self, seq: int, run_id: str | None = None) -> bool:
        """Select and reveal the row of event ``seq``; clears the filter if it hides it."""
        self.flush()
        row = self.tree.find(seq, run_id)
        if row is None:
            return False
        if not self.tree.is_visible(row):
            self.clear_filter()
            self._finish_job()
        self._select(row)
        return True

    def selected_row(self) -> Row | None:
        return self.model.row_at(self.view.currentIndex())

    # -- hub -----------------------------------------------------------------------------------

    def _on_events(self, batch: list[EventBase]) -> None:
        if not batch:
            return
        self._show_gap()
        self._pending.append(batch)
        self._pending_count += len(batch)
        if not self._drain_timer.isActive():
            # at once (within the slice budget): the rows reach Qt in the same event-loop pass
            # as every other view's update, and are painted with them
            self._drain()

    def _on_reset(self) -> None:
        self._pending.clear()
        self._pending_count = 0
        self._head = 0
        self._job = None
        self.follower.forget()
        self.model.clear()
        self.details.show_row(None)
        self.filter_bar.reset_choices()
        self._choices = (0, 0)
        current = self.filter_bar.current()
        if current.active:  # the bar still shows it: the new run's events obey it too
            self._start_filter(current)
        self._update_status()

    def _on_older_runs(self, _older: object) -> None:
        self._show_gap()
        self._update_status()

    def _show_gap(self) -> None:
        """Mark where a cut run's middle stays in the file (``hub.older_runs``: set as a
        session opens, before its events come)."""
        older = self.hub.older_runs
        self.model.set_gap(older.gap if older is not None else None)
        self._span_gap()

    def _span_gap(self) -> None:
        """The gap's row reads across the columns (it has nothing to show in the others)."""
        gap = self.model.gap_index()
        if gap.isValid() and not self.view.isFirstColumnSpanned(0, gap.parent()):
            self.view.setFirstColumnSpanned(0, gap.parent(), True)

    def _on_selection(self, checkpoint_id: str | None) -> None:
        """Time travel: show where the checkpoint was saved (``travel``)."""
        travel(self, checkpoint_id)

    def _on_graph(self, _drawable: object) -> None:
        """Another agent (not a restart of this one): its nodes differ, start unfiltered."""
        if self.hub.source_label != self._source:
            self._source = self.hub.source_label
            self.hub.set_focus(None)
            self.filter_bar.clear()

    # -- ingesting -----------------------------------------------------------------------------

    def _drain(self, budget_s: float | None = SLICE_S) -> None:
        """Ingest queued events for up to ``budget_s``; show them to Qt (one batch of inserts,
        then follow) when the queue is empty or ``SYNC_S`` passed since the last time."""
        start = time.perf_counter()
        while self._pending:
            batch = self._pending[0]
            chunk = batch[self._head : self._head + self.CHUNK]
            self._head += len(chunk)
            if self._head >= len(batch):
                self._pending.popleft()
                self._head = 0
            self._pending_count -= len(chunk)
            delta = self.model.add_events(chunk, sync=False)
            if self.details.row is not None and self.details.row in delta.changed:
                self._details_stale = True
            if budget_s is not None and time.perf_counter() - start > budget_s:
                break
        if self._pending:
            self._drain_timer.start()
        # a backlog is shown every SYNC_S at most; a batch ingested whole is shown now, unless
        # showing a long log costs so much that it must wait its share
        floor = self.SYNC_S if self._pending else 0.0
        gap = max(floor, self.SYNC_SHARE * self._sync_cost)
        wait = gap - (time.perf_counter() - self._last_sync)
        if budget_s is None or wait <= 0:
            self._show_ingested()
        elif not self._sync_timer.isActive():
            self._sync_timer.start(int(wait * 1000) + 1)

    def _show_ingested(self) -> None:
        self._sync_timer.stop()
        start = time.perf_counter()
        self.model.sync()
        self._span_gap()
        self._refresh_choices()
        if self.follow and self._at_bottom:
            self.follower.follow()
        if self._details_stale:
            self._details_stale = False
            self.details.refresh()
        self._update_status()
        self._last_sync = time.perf_counter()
        self._sync_cost = self._last_sync - start

    def _refresh_choices(self) -> None:
        tree = self.tree
        sizes = (len(tree.nodes), len(tree.middlewares))
        if sizes != self._choices:
            self._choices = sizes
            self.filter_bar.set_choices(tree.nodes, tree.middlewares)

    # -- follow --------------------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        self._at_bottom = value >= self.view.verticalScrollBar().maximum() - 4

    # -- filtering -----------------------------------------------------------------------------

    def _start_filter(self, flt: EventFilter) -> None:
        self._job = self.model.start_filter(flt)
        self._run_job()

    def _run_job(self) -> None:
        job = self._job
        if job is None:
            return
        if job.run(self.FILTER_SLICE_S):
            self._apply_job(job)
        else:
            self._update_status()
            self._job_timer.start()

    def _finish_job(self) -> None:
        if self._job is not None:
            self._apply_job(self._job)

    def _apply_job(self, job: FilterJob) -> None:
        self._job = None
        keep = self.selected_row()
        self.follower.forget()
        self.model.apply_filter(job)
        self._span_gap()
        if (
            job.filter.active
            and self.tree.visible_count(self.EXPAND_ALL_BELOW) <= self.EXPAND_ALL_BELOW
        ):
            self.view.expandAll()
        if keep is not None and self.tree.is_visible(keep):
            self._select(keep)
            return self._update_status()
        self.details.show_row(None)
        if self.follow:
            self.follower.follow()
        self._update_status()

    # -- selection and details -------------------------------------------------------------------

    def _select(self, row: Row) -> None:
        self.select_index(self.model.index_of(row))

    def select_index(self, idx: QModelIndex) -> None:
        """Select and reveal the row at ``idx`` (nothing when it is not valid)."""
        if not idx.isValid():
            return
        self.follower.expand_above(idx)
        self.view.setCurrentIndex(idx)
        self.view.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.model.row_at(current)
        gap = self.model.gap.gap if self.model.is_gap(current) else None
        if row is None and self.model.is_fold(current):
            self.details.show_note(
                f"{self.model.fold.label}, folded so the log stays quick to update as the "
                "session grows. Open the row to see them."
            )
        elif gap is not None:  # no event behind it: the other views are not told of it
            self.details.show_note(gap.note)
        else:
            self.details.show_row(row, self.tree.offset_s(row) if row is not None else 0.0)
        self.whatif_button.setEnabled(model_call(row) is not None)
        self.rowSelected.emit(row)
        if row is not None:
            self.hub.select_event(row.event)

    def _on_event_picked(self, event: EventBase | None) -> None:
        """Another view selected ``event``: show its row (the log stops following)."""
        if event is None:
            return
        current = self.selected_row()
        if current is not None and event in current.events:
            return
        self.set_follow(False)
        self.select_seq(event.seq, event.run_id)

    def _on_prices(self, prices: Any) -> None:
        self.model.set_prices(prices)
        self.view.viewport().update()

    def offer_playground(self, on: bool) -> None:
        """Offer "What if…" on model calls (the button and the row menu), or not."""
        self.offers_playground = on
        self.whatif_button.setVisible(on)

    def _request_playground(self) -> None:
        event = model_call(self.selected_row())
        if event is not None:
            self.playgroundRequested.emit(event)

    # -- status and theme ----------------------------------------------------------------------

    def _update_status(self) -> None:
        older = self.hub.older_runs
        self.status.setText(footer_text(self.tree, older, self._pending_count, self._job))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.model.set_palette(self.palette())
            self.details.refresh()
        super().changeEvent(event)

    def detach(self) -> None:
        """Stop listening to the hub (also done when the widget is destroyed)."""
        unsubscribe_all(self._unsubscribe)
