"""The event log as a tree of spans, built incrementally from event batches (plain Python).

A span (run > superstep > node > hook/wrapper > attempt > model/tool call) is **one row**: its
opening event, its children, and its closing event once it arrives (``SPAN_OPENERS`` /
``SPAN_CLOSERS``, matched on ``span_id``).  Events without a span of their own (routes, state
updates, checkpoints, middleware actions, interrupts, plan steps, custom) are rows under
their ``parent_span_id``; events whose parent is unknown go to the root.  The debugger's
``debug.paused`` / ``debug.resumed`` are not rows: a pause is a mark on the row of the event
the run paused at (``Row.pauses``), so stepping does not fill the log.  ``model.token`` events
never become rows: they fold into their model call (a counter plus the streamed text), or into
one "tokens" row per run of tokens outside a model call.

Every operation on arrival is O(1) amortised: rows are appended to their parent, closers find
their span in a dict, failure marks climb the ancestors only until one is already marked.

Filtering (``studio.models.event_filter``): ``start_filter`` returns a ``FilterJob`` that can
run in time slices so filtering a million rows never freezes a UI; ``apply_filter`` swaps the
result in.  While a filter is applied, arriving rows that match are revealed live (with their
ancestors).

Listeners (the Qt adapter) see structure changes through ``TreeListener``: ``touch(parent)``
before a parent's visible children first change in a batch, and ``before_insert`` /
``after_insert`` around an insertion *in the middle* of a visible list (appends at the end are
reported once per batch in ``TreeDelta.grown``).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.events import (
    SPAN_CLOSERS,
    SPAN_OPENERS,
    DebugPaused,
    EventBase,
    ModelToken,
    Route,
)
from studio.models.batch_order import openers_first
from studio.models.event_filter import (
    EventFilter,
    FilterJob,
    TreeDelta,
    TreeListener,
    matches,
    reveal,
)
from studio.models.event_row import (
    CONTAINS_FAILURE,
    FAILED,
    FAMILIES,
    INTERRUPTED,
    TOKEN,
    Row,
    family,
    status_flags,
)

__all__ = [
    "CONTAINS_FAILURE",
    "FAILED",
    "FAMILIES",
    "INTERRUPTED",
    "EventFilter",
    "EventTree",
    "FilterJob",
    "Row",
    "TreeDelta",
    "TreeListener",
    "family",
]

_EMPTY: list[Row] = []
_PAUSE_KINDS = frozenset({"debug.paused", "debug.resumed"})
_INTERRUPT = "interrupt.raised"


class EventTree:
    """The span tree of a stream of events (see the module docstring)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.root = Row(-1, "root", None, None, 0)
        self.rows: list[Row] = []
        """Every row, in arrival order (``row.uid`` is its position)."""
        self.event_count = 0
        self.failures = 0
        self.nodes: dict[str, None] = {}
        self.middlewares: dict[str, None] = {}
        self.families: dict[str, None] = {}
        """What has been seen so far (ordered sets), for the filter bar."""
        self._spans: dict[str, Row] = {}
        self._by_run: dict[str, dict[int, Row]] = {}
        self._run_t0: dict[str, int] = {}
        self._paused: dict[str, float] = {}
        """Per run: the time (ms) spent paused so far, closed pauses only."""
        self._pause_since: dict[str, int] = {}
        """Per run: when the current pause began (mono ns)."""
        self._paused_row: dict[str, Row] = {}
        """Per run: the row the latest pause is marked on."""
        self._interrupts: dict[tuple[str, str], Row] = {}
        """(run, interrupt id): the row of the interrupt (one row however often it is told)."""
        self.filter = EventFilter()
        self._vis: dict[Row, list[Row]] | None = None
        self._vindex: dict[Row, int] | None = None
        self._job: FilterJob | None = None

    # -- reading ----------------------------------------------------------------------------

    def children(self, row: Row) -> list[Row]:
        """The visible children of ``row`` (all of them when no filter is applied)."""
        if self._vis is None:
            return row.children
        return self._vis.get(row, _EMPTY)

    def visible_index(self, row: Row) -> int:
        return row.index if self._vindex is None else self._vindex[row]

    def visible_count(self, cap: int) -> int:
        """How many rows are visible, counted up to a little past ``cap``."""
        count = 0
        stack = [self.root]
        while stack and count <= cap:
            kids = self.children(stack.pop())
            count += len(kids)
            stack.extend(k for k in kids if k.children)
        return count

    def is_visible(self, row: Row) -> bool:
        return self._vindex is None or row in self._vindex

    def find(self, seq: int, run_id: str | None = None) -> Row | None:
        """The row holding event ``seq`` (of ``run_id``, else of the latest run that has it)."""
        if run_id is not None:
            return self._by_run.get(run_id, {}).get(seq)
        for rows in reversed(self._by_run.values()):
            row = rows.get(seq)
            if row is not None:
                return row
        return None

    def span_row(self, span_id: str) -> Row | None:
        """The row of span ``span_id`` (None when its opening event was not seen)."""
        return self._spans.get(span_id)

    def offset_s(self, row: Row) -> float:
        """Seconds from the start of the row's run to its opening event."""
        ev = row.event
        t0 = self._run_t0.get(ev.run_id, ev.mono_ns)
        return (ev.mono_ns - t0) / 1e9

    def ancestors(self, row: Row) -> list[Row]:
        """``row``'s ancestors, outermost first (the root excluded)."""
        out: list[Row] = []
        p = row.parent
        while p is not None and p is not self.root:
            out.append(p)
            p = p.parent
        out.reverse()
        return out

    # -- filtering ---------------------------------------------------------------------------

    def matches(self, row: Row, flt: EventFilter) -> bool:
        return matches(row, flt)

    def start_filter(self, flt: EventFilter) -> FilterJob:
        """A job computing ``flt``'s visible rows; run it (in slices) then ``apply_filter`` it."""
        self._job = FilterJob(self, flt)
        return self._job

    def apply_filter(self, job: FilterJob) -> None:
        job.run()
        self.filter = job.filter
        if job.filter.active:
            self._vis, self._vindex = job.vis, job.vindex
        else:
            self._vis = self._vindex = None
        if self._job is job:
            self._job = None

    def set_filter(self, flt: EventFilter) -> None:
        self.apply_filter(self.start_filter(flt))

    # -- ingesting ---------------------------------------------------------------------------

    def add_batch(
        self, events: Iterable[EventBase], listener: TreeListener | None = None
    ) -> TreeDelta:
        delta = TreeDelta()
        for ev in openers_first(events, self._spans):
            self._add(ev, delta, listener)
        return delta

    def _add(self, ev: EventBase, delta: TreeDelta, listener: TreeListener | None) -> None:
        self.event_count += 1
        delta.added += 1
        run = self._by_run.get(ev.run_id)
        if run is None:
            run = self._by_run[ev.run_id] = {}
            self._run_t0[ev.run_id] = ev.mono_ns
        kind = ev.kind
        if kind == TOKEN:
            run[ev.seq] = self._fold_token(ev, delta, listener)
            return
        self._track_pauses(ev)
        if kind in _PAUSE_KINDS and self._mark_pause(ev, run, delta, listener):
            return
        if kind == _INTERRUPT and self._told_again(ev, run):
            return
        sid = ev.span_id
        if kind in SPAN_CLOSERS and sid is not None:
            row = self._spans.get(sid)
            if row is not None and row.end is None and row.kind == SPAN_CLOSERS[kind]:
                row.end = ev
                row.paused_ms = self._paused.get(ev.run_id, 0.0) - row.paused_at
                row._touched()
                self._flag(row, status_flags(ev), delta)
                delta.changed.add(row)
                self._updated(row, delta, listener)
                run[ev.seq] = row
                return
        pid = ev.parent_span_id
        parent = self._spans.get(pid, self.root) if pid else self.root
        if kind in SPAN_CLOSERS:  # a closer whose opener we never saw: a row of its own
            row = self._new_row(SPAN_CLOSERS[kind], ev, parent)
            row.end = ev
        else:
            row = self._new_row(kind, ev, parent)
            if kind in SPAN_OPENERS and sid is not None:
                self._spans[sid] = row
        run[ev.seq] = row
        iid = getattr(ev, "interrupt_id", None) if kind == _INTERRUPT else None
        if iid:
            self._interrupts[(ev.run_id, str(iid))] = row
        self._flag(row, status_flags(ev), delta)
        self._attach(row, delta, listener)

    def _track_pauses(self, ev: EventBase) -> None:
        """Sum the run's paused time: a span's own paused time is the difference of the sum at
        its end and at its start (pauses happen at events inside the spans they interrupt)."""
        if ev.kind == "debug.paused":
            self._pause_since[ev.run_id] = ev.mono_ns
        elif ev.kind == "debug.resumed":
            since = self._pause_since.pop(ev.run_id, None)
            if since is not None and ev.mono_ns >= since:
                self._paused[ev.run_id] = self._paused.get(ev.run_id, 0.0) + (
                    (ev.mono_ns - since) / 1e6
                )

    def _told_again(self, ev: EventBase, run: dict[int, Row]) -> bool:
        """Whether ``ev`` repeats an interrupt that already has its row (sessions recorded
        before a subgraph's interrupt was told once: again at each enclosing graph's node,
        which ends interrupted).  The repeat selects the first row, under the node that called
        ``interrupt()``."""
        iid = getattr(ev, "interrupt_id", None)
        if not iid:
            return False
        key = (ev.run_id, str(iid))
        row = self._interrupts.get(key)
        if row is None:
            return False
        run[ev.seq] = row
        return True

    def _mark_pause(
        self, ev: EventBase, run: dict[int, Row], delta: TreeDelta, listener: TreeListener | None
    ) -> bool:
        """Mark a pause on the row it happened at (False: no such row, it becomes a row)."""
        if not isinstance(ev, DebugPaused):  # ``debug.resumed``
            row = self._paused_row.get(ev.run_id)
            if row is None:
                return False
            run[ev.seq] = row
            return True
        at = ev.at_seq
        row = run.get(at) if isinstance(at, int) else None
        if row is None:
            row = self._spans.get(ev.parent_span_id or "")
        if row is None:
            return False
        if row.pauses is None:
            row.pauses = []
        row.pauses.append(ev)
        run[ev.seq] = row
        self._paused_row[ev.run_id] = row
        delta.changed.add(row)
        self._updated(row, delta, listener)
        return True

    def _new_row(self, kind: str, ev: EventBase, parent: Row) -> Row:
        row = Row(len(self.rows), kind, ev, parent, len(parent.children))
        row.paused_at = self._paused.get(ev.run_id, 0.0)
        fam = family(kind)
        # the events that belong to a node or a middleware declare ``node`` / ``middleware``
        # (fields: read off ``__dict__``, where ``getattr`` on an event without one has pydantic
        # raise and catch an AttributeError)
        fields = ev.__dict__
        own_node = fields.get("node") or (ev.from_node if isinstance(ev, Route) else None)
        row.node = own_node or parent.node
        if kind == "node.started" and own_node:
            self.nodes[own_node] = None
        mw = fields.get("middleware")
        row.middleware = mw or parent.middleware
        if mw:
            self.middlewares[mw] = None
        self.families[fam] = None
        return row

    def _attach(self, row: Row, delta: TreeDelta, listener: TreeListener | None) -> None:
        parent = row.parent
        assert parent is not None
        if self._vis is None and parent not in delta.grown:
            if listener is not None:
                listener.touch(parent)
            delta.grown[parent] = len(parent.children)
        parent.children.append(row)
        self.rows.append(row)
        if self._vis is not None:
            self._updated(row, delta, listener)

    def _updated(self, row: Row, delta: TreeDelta, listener: TreeListener | None) -> None:
        """Re-check a new or changed row against the applied (and the pending) filter."""
        if self._job is not None:
            self._job.recheck.append(row)
        vis, vindex = self._vis, self._vindex
        if vis is None or vindex is None or row in vindex:
            return
        if self.matches(row, self.filter):
            reveal(vis, vindex, row, self.root, delta, listener)

    def _fold_token(self, ev: EventBase, delta: TreeDelta, listener: TreeListener | None) -> Row:
        sid, pid = ev.span_id, ev.parent_span_id
        target = self._spans.get(sid) if sid else None
        parent = self._spans.get(pid, self.root) if pid else self.root
        if target is None or target.kind != "model.request":
            if parent.kind == "model.request":
                target = parent
            else:
                last = parent.children[-1] if parent.children else None
                target = last if last is not None and last.kind == TOKEN else None
        text = (ev.text if isinstance(ev, ModelToken) else "") or ""
        if target is None:
            target = self._new_row(TOKEN, ev, parent)
            target.tokens = 1
            target.streamed = [text]
            self._attach(target, delta, listener)
            return target
        target.tokens += 1
        if target.streamed is None:
            target.streamed = [text]
        else:
            target.streamed.append(text)
        target._touched()
        delta.changed.add(target)
        self._updated(target, delta, listener)
        return target

    def _flag(self, row: Row, flags: int, delta: TreeDelta) -> None:
        if not flags:
            return
        row.flags |= flags
        if not flags & FAILED:
            return
        self.failures += 1
        p = row.parent
        while p is not None and p is not self.root and not p.flags & CONTAINS_FAILURE:
            p.flags |= CONTAINS_FAILURE
            delta.changed.add(p)
            p = p.parent
