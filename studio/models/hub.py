"""The studio's centre: what is loaded, what runs, what is selected. Plain Python, no Qt.

Every dock binds to one ``Hub`` and observes topics; the run controller (``studio.run.controller``)
feeds it.  Keeping this Qt-free lets view models and their wiring be tested without windows.

Topics (callback signatures):
- ``"graph"``     ``cb(drawable: DrawableGraph | None)``   a graph was loaded (or unloaded)
- ``"reset"``     ``cb()``                                  a new run or session starts: clear views
- ``"events"``    ``cb(batch: list[EventBase])``            new events, in seq order, batched
- ``"status"``    ``cb(status: str)``                       idle|running|paused|done|interrupted|error|cancelled|replay
- ``"shown_status"`` ``cb(status: str)``                    the status the views show (``shown_status``)
- ``"selection"`` ``cb(checkpoint_id: str | None)``         timeline selection (None = live tip)
- ``"thread"``    ``cb(thread_id: str)``                    the current thread changed
- ``"checkpoints"`` ``cb()``                                checkpoints changed outside a run (update_state, fork)
- ``"breakpoints"`` ``cb()``                                the debugger's breakpoint list changed
- ``"focus"``     ``cb(node: str | None)``                  the user picked a node (graph click): filter to it
- ``"theme"``     ``cb(name: str)``                         the colour theme changed ("light" | "dark")
- ``"saved_thread"`` ``cb(next: tuple, interrupted: list)``  a saved thread was opened: where it stands
- ``"event"``     ``cb(event: EventBase | None)``           the event selected (a row of the log, a
  bar of the waterfall): every view that shows events selects it too
- ``"prices"``    ``cb(table: PriceTable)``                 the model prices changed (Settings)
- ``"warmed"``    ``cb()``                                  the Timeline's background read of the
  thread's checkpoints ended: they (and the saver's cache of them) live until the next reset,
  a moment to freeze the garbage collector (``studio.app.gc_policy``)
- ``"older_runs"`` ``cb(older: OlderRuns | None)``          what a session's runs left unloaded
  add to the thread's figures was read (``hub.older_runs``; the figures redraw)

``debugger`` is the run controller's ``engine.debug.Debugger`` (it outlives runs: breakpoints
stay); ``session_path`` is the ``.stepwise`` file the current runs are recorded into (or the
session opened for replay).

``status`` is the run's state as it is; ``shown_status`` is what the window shows of it (the
status bar, the toolbar and the input bar, the docks' buttons): the same, except that a run's
"running" shows one frame (``show_running_after``) after the run starts, and not at all when
the run has ended (or paused) by then.  A turn that ends within a frame (a scripted agent's,
a cached reply) thus shows its final state once, where it disabled and re-enabled the toolbar
and the input bar and restyled the status row twice (two repaints of each, a third of the
window's small widgets' cost per turn); a longer run shows "running" within one frame, as its
first events do, and Stop is enabled from then on (the run is stopped by its task's state,
not by what is shown).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from engine.debug.breakpoints import graph_path
from engine.events import CheckpointSaved, EventBase, NodeStarted, ToolStarted
from studio.models.branch_events import live_tip
from studio.models.pricing import PriceTable
from studio.models.snapshot_cache import SnapshotCache

if TYPE_CHECKING:
    from engine.debug import Debugger
    from engine.graph.drawing import DrawableGraph
    from engine.targets import Target
    from engine.types import StateSnapshot
    from studio.models.older_runs import OlderRuns

__all__ = ["TOPICS", "Hub"]

TOPICS = (
    "graph",
    "reset",
    "events",
    "status",
    "shown_status",
    "selection",
    "thread",
    "checkpoints",
    "breakpoints",
    "focus",
    "theme",
    "saved_thread",
    "event",
    "prices",
    "warmed",
    "older_runs",
)


class Hub:
    """Shared studio state plus a tiny publish/subscribe bus (see module docstring)."""

    def __init__(self) -> None:
        self._subs: dict[str, list[Callable[..., Any]]] = {t: [] for t in TOPICS}
        self.target: Target | None = None
        """What is debugged (``engine.targets``): None when only a recorded session is open."""
        self.graph: Any = None
        """The graph object behind the target when it lives in this process (ours or the
        attached app's; a recorded session's stand-in), for what only a local graph can tell."""
        self.drawable: DrawableGraph | None = None
        self.checkpointer: Any = None
        self.debugger: Debugger | None = None
        self.thread_id: str = "main"
        self.status: str = "idle"
        self.shown_status: str = "idle"
        """What the window shows of ``status`` (see the module docstring)."""
        self.show_running_after = 0.03
        """Seconds a run's "running" waits before it is shown (the event batcher's frame)."""
        self._showing: asyncio.Handle | None = None
        self._showing_on: asyncio.AbstractEventLoop | None = None
        """The loop ``_showing`` is due on (a loop stopped before it came never calls it)."""
        self.events: list[EventBase] = []
        self.selected_checkpoint: str | None = None
        self.source_label: str = ""
        """What is loaded, for the title bar: a scenario name, a file path, a session file."""
        self.session_path: str | None = None
        self.focus_node: str | None = None
        self.theme: str = "light"
        self.checkpoint_ns: dict[str, str] = {}
        """Checkpoints of subgraphs (id -> ``checkpoint_ns``): reading one needs its namespace."""
        self.saved: dict[str, CheckpointSaved] = {}
        """The ``checkpoint.saved`` event of each checkpoint the events shown hold, by id."""
        self.selected_event: EventBase | None = None
        """The event selected in the log or the waterfall (a span's opening event)."""
        self.prices: PriceTable = PriceTable.builtin()
        """Model prices (the built-in list with the user's edits from Settings)."""
        self.revision = 0
        """Changes with every batch of events, reset, thread, target and state edit: a read of
        the live tip made at another revision may see another state."""
        self.parents: dict[str, str | None] = {}
        """Checkpoint -> its parent, as far as known (from events and the Timeline's listing)."""
        self.has_child: set[str] = set()
        """Checkpoints a later checkpoint names as its parent (from events and listings): their
        state is final (``studio.models.snapshot_cache``)."""
        self.snapshots = SnapshotCache(self)
        """The docks' shared reads of checkpoints (see ``studio.models.snapshot_reader``)."""
        self.nested_nodes: dict[tuple[tuple[str, ...], str], None] = {}
        """(graph path, node) of every node the runs shown started inside a graph below the
        root, in first-seen order: the graphs no drawing shows (a supervisor's sub-agents)."""
        self.older_runs: OlderRuns | None = None
        """A session opened for replay whose oldest runs were left unloaded: how many, and
        their part of the thread's cost and visits (``studio.history.replay.open_session``;
        the Timeline still holds every checkpoint)."""
        self.nested_tools: dict[str, None] = {}
        """The tools the runs shown called inside a graph below the root, in first-seen order."""
        self.approval_drafts: dict[str, list[dict[str, Any] | None]] = {}
        """Decisions taken in an approval dialog closed with "Answer later", by interrupt id:
        reopening the same interrupt shows them again."""

    # -- pub/sub --------------------------------------------------------------------------------

    def subscribe(self, topic: str, callback: Callable[..., Any]) -> Callable[[], None]:
        """Register ``callback`` for ``topic``; returns a function that unsubscribes."""
        if topic not in self._subs:
            raise ValueError(f"Unknown hub topic {topic!r}; expected one of {TOPICS}")
        self._subs[topic].append(callback)

        def unsubscribe() -> None:
            if callback in self._subs[topic]:
                self._subs[topic].remove(callback)

        return unsubscribe

    def publish(self, topic: str, *args: Any) -> None:
        for cb in list(self._subs[topic]):
            try:
                cb(*args)
            except Exception as exc:  # one broken view must not take the others down
                print(f"stepwise studio: a '{topic}' listener failed: {exc!r}", file=sys.stderr)

    # -- state changes (publish as they happen) -----------------------------------------------

    def set_target(self, target: Target, drawable: DrawableGraph | None, label: str = "") -> None:
        """Debug ``target`` from now on (its graph object, when local, is ``graph``)."""
        self.set_graph(getattr(target, "graph", None), drawable, label, target)

    def set_graph(
        self,
        graph: Any,
        drawable: DrawableGraph | None,
        label: str = "",
        target: Target | None = None,
    ) -> None:
        if target is None and graph is not None:
            from engine.targets import target_for

            target = target_for(graph)
        self.target = target
        self.revision += 1
        self.parents = {}
        self.has_child = set()
        self.snapshots.clear()
        self.graph = graph
        self.drawable = drawable
        # the saver reads go through (the Timeline warms its cache): the graph's, or a recorded
        # session's own when there is no graph to run
        source = graph if graph is not None else target
        self.checkpointer = getattr(source, "checkpointer", None) if source is not None else None
        self.source_label = label
        self.publish("graph", drawable)

    def reset(self) -> None:
        self.revision += 1
        self.events = []
        self.older_runs = None
        self.nested_nodes = {}
        self.nested_tools = {}
        self.checkpoint_ns = {}
        self.saved = {}
        self.selected_checkpoint = None
        self.selected_event = None
        self.publish("reset")

    def add_events(self, batch: list[EventBase]) -> None:
        if not batch:
            return
        picked = self.selected_checkpoint
        waiting = picked is not None and picked not in self.saved
        self.events.extend(batch)
        self.revision += 1
        for ev in batch:
            if not isinstance(ev, CheckpointSaved):
                if ev.ns:
                    if isinstance(ev, NodeStarted):
                        self.nested_nodes[(graph_path(ev.ns), ev.node)] = None
                    elif isinstance(ev, ToolStarted):
                        self.nested_tools[ev.tool] = None
                continue
            if ev.checkpoint_id:
                self.parents[ev.checkpoint_id] = ev.parent_id
                self.saved[ev.checkpoint_id] = ev
            if ev.parent_id:
                self.has_child.add(ev.parent_id)
            if ev.checkpoint_ns and ev.checkpoint_id:
                self.checkpoint_ns[ev.checkpoint_id] = ev.checkpoint_ns
        self.publish("events", batch)
        if waiting and picked in self.saved and self.selected_checkpoint == picked:
            # picked before its event was fed (a long session opening): now that it is, the
            # views show that moment again, counted from the events up to it
            self.publish("selection", picked)

    def set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self.publish("status", status)
        if status == "running" and self.shown_status != "running":
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous caller): show it at once
                self._show_status(status)
                return
            if self._showing is None or self._showing_on is not loop:  # not due on this loop
                if self._showing is not None:
                    self._showing.cancel()
                self._showing = loop.call_later(self.show_running_after, self._show_running)
                self._showing_on = loop
            return
        self._show_status(status)

    def _show_running(self) -> None:
        self._showing = None
        if self.status == "running":
            self._show_status("running")

    def _show_status(self, status: str) -> None:
        if self._showing is not None:
            self._showing.cancel()
            self._showing = None
        if status != self.shown_status:
            self.shown_status = status
            self.publish("shown_status", status)

    def select_checkpoint(self, checkpoint_id: str | None) -> None:
        if checkpoint_id != self.selected_checkpoint:
            self.selected_checkpoint = checkpoint_id
            self.publish("selection", checkpoint_id)

    def older_before(self, checkpoint_id: str | None) -> OlderRuns | None:
        """A session's runs left unloaded where they count on the branch shown up to
        ``checkpoint_id`` (None: the live tip); None where they do not (or there are none).
        The one place the figures' views ask (``OlderRuns.before``)."""
        older = self.older_runs
        if older is None:
            return None
        tip = live_tip(self.events) if checkpoint_id is None and not older.linear else None
        return older.before(self.saved, checkpoint_id, tip=tip, parents=self.parents)

    def set_older_runs(self, older: OlderRuns | None) -> None:
        """What a session's runs left unloaded add to the thread's figures, read (in the
        background) after it opened; the figures' views redraw."""
        self.older_runs = older
        self.publish("older_runs", older)

    def set_thread(self, thread_id: str) -> None:
        if thread_id != self.thread_id:
            self.thread_id = thread_id
            self.revision += 1
            self.selected_checkpoint = None
            self.publish("thread", thread_id)

    def checkpoints_changed(self) -> None:
        self.revision += 1
        self.publish("checkpoints")

    def note_parents(self, pairs: Iterable[tuple[str, str | None]]) -> None:
        """``(checkpoint, parent)`` pairs a listing gave (the checkpoints a later one names as
        parent have a final state)."""
        for checkpoint_id, parent_id in pairs:
            self.parents[checkpoint_id] = parent_id
            if parent_id:
                self.has_child.add(parent_id)

    def breakpoints_changed(self) -> None:
        self.publish("breakpoints")

    def set_focus(self, node: str | None) -> None:
        if node != self.focus_node:
            self.focus_node = node
            self.publish("focus", node)

    def select_event(self, event: EventBase | None) -> None:
        """Select ``event`` in every view (None: nothing selected)."""
        if event is not self.selected_event:
            self.selected_event = event
            self.publish("event", event)

    def set_prices(self, table: PriceTable) -> None:
        self.prices = table
        self.publish("prices", table)

    def set_theme(self, name: str) -> None:
        if name != self.theme:
            self.theme = name
            self.publish("theme", name)

    # -- reading state -------------------------------------------------------------------------

    def config(self, checkpoint_id: str | None = None) -> dict[str, Any]:
        conf: dict[str, Any] = {"thread_id": self.thread_id}
        if checkpoint_id:
            conf["checkpoint_id"] = checkpoint_id
            if checkpoint_id in self.checkpoint_ns:  # a subgraph's checkpoint
                conf["checkpoint_ns"] = self.checkpoint_ns[checkpoint_id]
        return {"configurable": conf}

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        """The thread's state at a checkpoint (default: the selection, else the live tip), read
        now.  Docks that can wait read with ``studio.models.snapshot_reader`` instead (on the
        loop: never blocking the window on a slow target)."""
        if self.target is None:
            return None
        from engine.core.aio import run_sync

        return run_sync(self.read_state(checkpoint_id))

    async def read_state(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        """``snapshot`` on the loop (default: the selection, else the live tip)."""
        target = self.target
        if target is None:
            return None
        cid = checkpoint_id if checkpoint_id is not None else self.selected_checkpoint
        ns = self.checkpoint_ns.get(cid, "") if cid else ""
        return await target.state(self.thread_id, cid, checkpoint_ns=ns)
