"""The Graph dock: ``GraphView`` bound to the hub (events, resets, breakpoints, focus, theme)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.events import CheckpointSaved, EventBase
from engine.graph.drawing import DrawableGraph
from studio.docks.graph.view import GraphView
from studio.models.branch_events import branch_events
from studio.models.breakpoints import BreakpointsModel
from studio.models.graph_levels import drawn_level, level_at, subgraph_in
from studio.models.graph_state import GraphStateModel, ns_path
from studio.models.hub import Hub
from studio.models.older_runs import OlderRuns
from studio.models.snapshot_reader import SnapshotReader
from studio.run.drawables import drawable_for
from studio.widgets.plain_text import plain_label

__all__ = ["GraphPanel"]


class GraphPanel(QWidget):
    """Draws the loaded graph before the run and lights it up live.

    A click on a node selects it; F9 or the context menu toggles "break before this node" in
    the debugger (hub ``breakpoints``).  A double-click filters the event log on the node, or,
    on a node that runs a subgraph (added as a node, or invoked from its function), opens that
    subgraph: its own nodes lit by its own events; the bar above leads back.
    """

    runTo = Signal(str)
    """``node`` is where the user wants the run to go and stop ("Run to here"): its one-shot
    breakpoint is set; the window runs or continues."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.breakpoints = BreakpointsModel(hub)
        self.reader = SnapshotReader(hub, self._moment_loaded)
        """Reads the selected checkpoint (its ``next`` nodes and interrupts)."""
        self.state = GraphStateModel()
        self.state.prices = hub.prices
        self.view = GraphView(self.state, self, theme=hub.theme)
        self.path: list[str] = []
        """The subgraph shown (node names from the root graph down; empty: the root)."""
        self.crumb_label = plain_label(parent=self)
        self.back_button = QToolButton(self)
        self.back_button.setText("◀ Back to the parent graph")
        self.back_button.setAutoRaise(True)
        self.back_button.clicked.connect(self.close_subgraph)
        self.checkpoint_box = QComboBox(self)
        self.checkpoint_box.setToolTip(
            "This subgraph's checkpoints: pick one to show its state in every dock"
        )
        self.checkpoint_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.checkpoint_box.activated.connect(self._on_checkpoint_picked)
        crumbs = QHBoxLayout()
        crumbs.setContentsMargins(6, 2, 6, 2)
        crumbs.addWidget(self.back_button)
        crumbs.addWidget(self.crumb_label, 1)
        crumbs.addWidget(self.checkpoint_box)
        self.crumb_bar = QWidget(self)
        self.crumb_bar.setLayout(crumbs)
        self.crumb_bar.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.crumb_bar)
        layout.addWidget(self.view)
        self.view.nodeActivated.connect(self._on_node_activated)
        self.view.breakpointToggled.connect(self._on_toggled)
        self.view.runToRequested.connect(self._on_run_to)
        hub.subscribe("graph", self._on_graph)
        hub.subscribe("reset", self.state.reset)
        hub.subscribe("events", self._on_events)
        hub.subscribe("breakpoints", self._sync_breakpoints)
        hub.subscribe("theme", self.view.set_theme)
        hub.subscribe("selection", self._on_selection)
        hub.subscribe("saved_thread", self.state.show_moment)
        hub.subscribe("prices", self.state.set_prices)
        hub.subscribe(
            "older_runs", lambda _o: self.state.set_earlier(self._earlier(hub.selected_checkpoint))
        )
        if hub.drawable is not None:
            self._on_graph(hub.drawable)
            self._redraw(hub.selected_checkpoint)

    def toggle_selected_breakpoint(self) -> bool:
        """F9: toggle the breakpoint on the selected node (False if none is selected)."""
        node = self.view.selected_node
        if not node:
            return False
        self.view.toggle_breakpoint(node)
        return True

    def _on_graph(self, drawable: DrawableGraph | None) -> None:
        self.path = []
        self.state.path = ()
        self.crumb_bar.setVisible(False)
        self.state.set_graph(drawable or DrawableGraph())
        self._sync_breakpoints()
        if self.hub.events:  # the same agent reloaded: its runs so far, on the new drawing
            self._redraw(self.hub.selected_checkpoint)
        QTimer.singleShot(0, self.view.fit)

    def _on_events(self, batch: list[EventBase]) -> None:
        if self.path and any(e.kind == "checkpoint.saved" and e.ns for e in batch):
            self._fill_checkpoints()
        if self.hub.selected_checkpoint is not None:
            return  # showing a past moment: the live run shows again on "Live"
        starts = [ev for ev in batch if ev.kind == "run.started" and not ev.ns]
        if starts and not (len(starts) == 1 and self._continues_live(starts[0])):
            self._redraw(None)  # a new run may start on another branch (a fork, a replay)
        else:
            self.state.set_earlier(self._earlier(None))
            self.state.apply_all(batch)
        self.view.show_pending()

    def _continues_live(self, start: EventBase) -> bool:
        """Whether the run ``start`` begins carries the live branch on from its tip after a run
        that ended done, with nothing left running: then the branch's events are the ones shown
        plus the new ones, and a redraw (which replays the whole thread) would draw the same."""
        if (start.__dict__.get("config") or {}).get("checkpoint_id") is not None:
            return False  # a run from a chosen checkpoint (a fork, a replay)
        if not self.state.settled:
            return False
        events = self.hub.events
        i = len(events) - 1
        while i >= 0 and events[i] is not start:
            i -= 1
        for j in range(i - 1, -1, -1):
            ev = events[j]
            if not ev.ns and ev.kind == "run.finished":
                return ev.__dict__.get("status") == "done"
            if not ev.ns and ev.kind == "run.started":
                return False  # a run that never finished
        return i >= 0

    def _parent_of(self, checkpoint_id: str) -> str | None:
        """A checkpoint's parent, for checkpoints no event describes: as the Timeline's listing
        or a read state gave it; read from an in-process saver (a local read) otherwise, never
        from a server here (a walk up a long thread would be a request per checkpoint)."""
        hub = self.hub
        if checkpoint_id in hub.parents:
            return hub.parents[checkpoint_id]
        snap = hub.snapshots.cached(checkpoint_id)
        if snap is None and getattr(hub.target, "kind", None) != "remote":
            try:
                snap = hub.snapshot(checkpoint_id)
            except Exception:  # a session without its saver, a checkpoint of another graph
                return None
        parent = getattr(snap, "parent_config", None) or {}
        return parent.get("configurable", {}).get("checkpoint_id")

    def _redraw(self, checkpoint_id: str | None) -> None:
        """Visits, last route, failures and retry badges as of ``checkpoint_id`` (None: the
        live tip), counted on that branch only."""
        self.state.set_earlier(self._earlier(checkpoint_id))
        self.state.reset()
        if self.path:  # a subgraph's checkpoints are its own: count every call of it
            self.state.apply_all(self.hub.events)
            return
        self.state.apply_all(branch_events(self.hub.events, checkpoint_id, self._parent_of))

    def _earlier(self, checkpoint_id: str | None) -> OlderRuns | None:
        """A session's older runs left unloaded (``hub.older_runs``), where they count."""
        return self.hub.older_before(checkpoint_id)

    def _on_run_to(self, node: str) -> None:
        self.breakpoints.run_to(node, tuple(self.path))
        self.runTo.emit(node)

    def _on_toggled(self, node: str, enabled: bool) -> None:
        self.breakpoints.set_node(node, enabled, tuple(self.path))

    def _sync_breakpoints(self) -> None:
        wanted = self.breakpoints.node_breakpoints(tuple(self.path))
        for node in self.state.graph.nodes:
            self.state.set_breakpoint(node, node in wanted)

    def _on_node_activated(self, node: str) -> None:
        """A double-click (or "Show events of this node"): open the node's subgraph if it runs
        one, else filter the log on it (again: undo that)."""
        if self.subgraph_of(node) is not None:
            self.open_subgraph(node)
        elif not self.path:
            self.hub.set_focus(None if self.hub.focus_node == node else node)

    def _level(self) -> Any:
        """The compiled graph shown now (the root, or the subgraph ``path`` leads to); for a
        target whose graph is not in this process (a server's), its drawing."""
        return level_at(self.hub, tuple(self.path))

    def subgraph_of(self, node: str) -> Any:
        """The compiled subgraph ``node`` runs (or its drawing, see ``_level``), or None."""
        if self.hub.graph is None:
            return drawn_level(self.hub, (*self.path, node))
        level = self._level()
        return None if level is None else subgraph_in(level, node)

    def open_subgraph(self, node: str) -> None:
        sub = self.subgraph_of(node)
        if sub is None:
            return
        self.path.append(node)
        self._show_level(sub)

    def close_subgraph(self) -> None:
        if self.path:
            self.path.pop()
            self._show_level(self._level())

    def subgraph_checkpoints(self) -> list[CheckpointSaved]:
        """``checkpoint.saved`` events of the subgraph shown (every call of it), oldest first."""
        return [
            e
            for e in self.hub.events
            if isinstance(e, CheckpointSaved)
            and e.ns
            and ns_path(e.checkpoint_ns or e.ns) == tuple(self.path)
        ]

    def _fill_checkpoints(self) -> None:
        box = self.checkpoint_box
        box.clear()
        box.addItem("Checkpoints of this subgraph…", None)
        for e in self.subgraph_checkpoints():
            writers = ", ".join(e.writer_nodes or []) or e.source
            cid = e.checkpoint_id or ""
            box.addItem(f"step {e.step} · {writers} · …{cid[-6:]}", e.checkpoint_id)
        box.setEnabled(box.count() > 1)

    def _on_checkpoint_picked(self, index: int) -> None:
        self.hub.select_checkpoint(self.checkpoint_box.itemData(index))

    def _show_level(self, graph: Any) -> None:
        if isinstance(graph, DrawableGraph):
            drawable = graph
        else:
            drawable = drawable_for(graph) if graph is not None else DrawableGraph()
        self.state.path = tuple(self.path)
        self.state.set_graph(drawable)
        self._sync_breakpoints()
        where = " › ".join([self.hub.source_label or "graph", *self.path])
        self.crumb_label.setText(f"Subgraph: {where}" if self.path else "")
        self.crumb_bar.setVisible(bool(self.path))
        if self.path:
            self._fill_checkpoints()
        self._redraw(self.hub.selected_checkpoint)
        QTimer.singleShot(0, self.view.fit)

    def _on_selection(self, checkpoint_id: str | None) -> None:
        """A checkpoint picked on the timeline: show its ``next`` nodes and pending interrupts
        (read through the reader: the window never waits for it)."""
        self._redraw(checkpoint_id)
        if checkpoint_id is None or self.path:
            self.reader.drop()  # a read under way is void
            self.state.clear_moment()
            return
        self.reader.read(checkpoint_id)

    def _moment_loaded(self, snap: Any, _base: Any) -> None:
        if snap is None or isinstance(snap, BaseException) or self.hub.selected_checkpoint is None:
            self.state.clear_moment()  # a checkpoint of another graph, a damaged file: live
            return
        interrupted = [t.name for t in snap.tasks if t.interrupts]
        self.state.show_moment(snap.next, interrupted)
