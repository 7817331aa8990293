"""The event log as a tree of spans, built incrementally from event batches (plain Python).

A span (run > superstep > node > hook/wrapper > attempt > model/tool call) is **one row**: its
opening event, its children, and its closing event once it arrives (``SPAN_OPENERS`` /
``SPAN_CLOSERS``, matched on ``span_id``).  Events without a span of their own (routes, state
updates, checkpoints, middleware actions, interrupts, plan steps, custom, debug) are rows under
their ``parent_span_id``; events whose parent is unknown go to the root.  ``model.token`` events
never become rows: they fold into their model call (a counter plus the streamed text), or into
one "tokens" row per run of tokens outside a model call.

Every operation on arrival is O(1) amortised: rows are appended to their parent, closers find
their span in a dict, failure marks climb the ancestors only until one is already marked.

Filtering (``EventFilter``) keeps a row when it matches every active criterion or has a kept
descendant.  ``start_filter`` returns a ``FilterJob`` that can run in time slices (``run(budget)``)
so filtering a million rows never freezes a UI; ``apply_filter`` swaps the result in.  While a
filter is applied, arriving rows that match are revealed live (with their ancestors).

Listeners (the Qt adapter) see structure changes through ``TreeListener``: ``touch(parent)``
before a parent's visible children first change in a batch, and ``before_insert`` /
``after_insert`` around an insertion *in the middle* of a visible list (appends at the end are
reported once per batch in ``TreeDelta.grown``).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase
from studio.models.event_summary import error_text, short, summarize

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

FAILED = 1
"""The row's own span or event failed (an error attempt, tool, node, model call...)."""
CONTAINS_FAILURE = 2
"""A descendant failed."""
INTERRUPTED = 4

#: Kind families offered by the kind filter, in tree order.
FAMILIES = (
    "run",
    "superstep",
    "node",
    "hook",
    "wrapper",
    "attempt",
    "model",
    "tool",
    "route",
    "state",
    "checkpoint",
    "interrupt",
    "middleware",
    "plan",
    "custom",
    "debug",
)
_TOKEN = "model.token"
_EMPTY: list[Row] = []


def family(kind: str) -> str:
    """``"attempt.finished"`` → ``"attempt"``; ``"middleware.action"`` → ``"middleware"``."""
    return kind.split(".", 1)[0]


def _status_flags(ev: EventBase) -> int:
    d = ev.__dict__
    k = ev.kind
    if k in ("attempt.finished", "wrapper.finished"):
        outcome = d.get("outcome")
        return FAILED if outcome == "error" else INTERRUPTED if outcome == "interrupted" else 0
    if k in ("node.finished", "superstep.finished", "run.finished"):
        status = d.get("status")
        return FAILED if status == "error" else INTERRUPTED if status == "interrupted" else 0
    if k == "tool.finished":
        return FAILED if d.get("status") == "error" or d.get("error") else 0
    if k in ("model.response", "hook.finished"):
        return FAILED if d.get("error") else 0
    if k == "plan.step":
        return FAILED if d.get("status") == "failed" else 0
    if k == "middleware.action":
        return FAILED if d.get("action") == "retry_exhausted" else 0
    if k == "interrupt.raised":
        return INTERRUPTED
    return 0


class Row:
    """One line of the log: a span (``event`` opens it, ``end`` closes it) or a point event."""

    __slots__ = (
        "_hay",
        "_summary",
        "children",
        "end",
        "event",
        "flags",
        "index",
        "kind",
        "middleware",
        "node",
        "parent",
        "streamed",
        "tokens",
        "uid",
    )

    def __init__(self, uid: int, kind: str, event: Any, parent: Row | None, index: int) -> None:
        self.uid = uid
        self.kind = kind
        """The opening event's kind (for a lone closer: the kind of the opener it lacks)."""
        self.event: EventBase = event
        self.end: EventBase | None = None
        self.parent = parent
        self.children: list[Row] = []
        self.index = index
        """Position among ``parent.children`` (all children, not only the visible ones)."""
        self.node: str | None = None
        """The graph node this row belongs to (its own, else inherited)."""
        self.middleware: str | None = None
        """The middleware this row belongs to (its own, else the nearest ancestor's)."""
        self.flags = 0
        self.tokens = 0
        self.streamed: list[str] | None = None
        self._summary: str | None = None
        self._hay: str | None = None

    def __repr__(self) -> str:
        return f"Row({self.uid}, {self.summary()!r})"

    @property
    def family(self) -> str:
        return family(self.kind)

    @property
    def is_span(self) -> bool:
        return self.kind in SPAN_OPENERS

    @property
    def is_open(self) -> bool:
        return self.kind in SPAN_OPENERS and self.end is None

    @property
    def failed(self) -> bool:
        return bool(self.flags & FAILED)

    @property
    def contains_failure(self) -> bool:
        return bool(self.flags & CONTAINS_FAILURE)

    @property
    def interrupted(self) -> bool:
        return bool(self.flags & INTERRUPTED)

    @property
    def seq(self) -> int:
        return self.event.seq

    @property
    def events(self) -> list[EventBase]:
        """The row's own events: the opener and the closer (tokens are not listed)."""
        if self.end is None or self.end is self.event:
            return [self.event]
        return [self.event, self.end]

    @property
    def streamed_text(self) -> str:
        return "".join(self.streamed) if self.streamed else ""

    def own_middleware(self) -> str | None:
        return self.event.__dict__.get("middleware") if self.event is not None else None

    def summary(self) -> str:
        if self._summary is None:
            end = self.end.__dict__ if self.end is not None else None
            self._summary = summarize(
                self.kind,
                self.event.__dict__,
                end,
                step=self.event.step,
                tokens=self.tokens,
                streamed=self._tail(),
            )
        return self._summary

    def haystack(self) -> str:
        """Lower-case text the free-text filter searches: summary, node, kind, payload bits."""
        if self._hay is None:
            d = self.event.__dict__
            e = self.end.__dict__ if self.end is not None else {}
            extra = [self.kind, self.node or "", self.middleware or ""]
            if self.kind == "model.request" and e.get("message") is not None:
                extra.append(short(e["message"], 2000))
            elif self.kind == "tool.started":
                extra.append(short(d.get("args"), 1000))
                extra.append(short(e.get("result"), 1000))
            err = e.get("error") or d.get("error")
            if err is not None:
                extra.append(error_text(err, 1000))
            self._hay = " ".join([self.summary(), *extra]).lower()
        return self._hay

    def duration_ms(self) -> float | None:
        if self.end is None or self.end is self.event:
            return None
        e = self.end.__dict__
        ms = e.get("duration_ms") or e.get("latency_ms")
        if isinstance(ms, int | float) and ms > 0:
            return float(ms)
        if self.end.mono_ns and self.event.mono_ns:
            return (self.end.mono_ns - self.event.mono_ns) / 1e6
        return None

    def _tail(self, width: int = 80) -> str:
        if not self.streamed:
            return ""
        parts: list[str] = []
        size = 0
        for piece in reversed(self.streamed):
            parts.append(piece)
            size += len(piece)
            if size >= width:
                break
        return "".join(reversed(parts))[-width:]

    def _touched(self) -> None:
        self._summary = None
        self._hay = None


class TreeListener(Protocol):
    def touch(self, parent: Row) -> None: ...
    def before_insert(self, parent: Row, pos: int) -> None: ...
    def after_insert(self, parent: Row, pos: int) -> None: ...


@dataclass
class TreeDelta:
    """What one ``add_batch`` changed."""

    grown: dict[Row, int] = field(default_factory=dict)
    """Parents whose visible children grew -> their visible child count before the batch."""
    changed: set[Row] = field(default_factory=set)
    """Existing rows whose display changed (closed, failed below, tokens streamed in)."""
    added: int = 0
    """Events ingested."""


@dataclass(frozen=True)
class EventFilter:
    """Criteria are ANDed; ``kinds`` holds families (``"attempt"``) and/or exact kinds."""

    kinds: frozenset[str] | None = None
    node: str | None = None
    middleware: str | None = None
    text: str = ""
    failures_only: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.kinds is not None
            or self.node
            or self.middleware
            or self.text.strip()
            or self.failures_only
        )

    @property
    def needle(self) -> str:
        return self.text.strip().lower()


class FilterJob:
    """Computes the rows an ``EventFilter`` keeps, in slices of at most ``budget`` seconds."""

    def __init__(self, tree: EventTree, flt: EventFilter) -> None:
        self.tree = tree
        self.filter = flt
        self.vis: dict[Row, list[Row]] = {tree.root: []}
        self.vindex: dict[Row, int] = {}
        self.recheck: list[Row] = []
        """Rows updated after the job passed them (the tree appends here)."""
        self._i = 0

    @property
    def progress(self) -> float:
        n = len(self.tree.rows)
        return 1.0 if n == 0 else min(1.0, self._i / n)

    def run(self, budget_s: float | None = None) -> bool:
        """Advance; True when every row (including ones that arrived meanwhile) was checked."""
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        rows = self.tree.rows
        matches = self.tree.matches
        flt, vindex = self.filter, self.vindex
        while self._i < len(rows):
            stop = min(len(rows), self._i + 512)
            for i in range(self._i, stop):
                row = rows[i]
                if row not in vindex and matches(row, flt):
                    _reveal(self.vis, vindex, row, self.tree.root, None, None)
            self._i = stop
            if deadline is not None and time.perf_counter() > deadline:
                return False
        for row in self.recheck:
            if row not in vindex and matches(row, flt):
                _reveal(self.vis, vindex, row, self.tree.root, None, None)
        self.recheck.clear()
        return True


def _reveal(
    vis: dict[Row, list[Row]],
    vindex: dict[Row, int],
    row: Row,
    root: Row,
    delta: TreeDelta | None,
    listener: TreeListener | None,
) -> None:
    """Make ``row`` and its hidden ancestors visible, keeping each visible list in tree order."""
    chain: list[Row] = []
    r: Row | None = row
    while r is not None and r is not root and r not in vindex:
        chain.append(r)
        r = r.parent
    for a in reversed(chain):
        p = a.parent
        assert p is not None
        lst = vis.get(p)
        if lst is None:
            lst = vis[p] = []
        if delta is not None and p not in delta.grown:
            if listener is not None:
                listener.touch(p)
            delta.grown[p] = len(lst)
        if not lst or lst[-1].index < a.index:
            vindex[a] = len(lst)
            lst.append(a)
            continue
        pos = bisect.bisect_left(lst, a.index, key=_row_index)
        if listener is not None:
            listener.before_insert(p, pos)
        lst.insert(pos, a)
        for i in range(pos, len(lst)):
            vindex[lst[i]] = i
        if listener is not None:
            listener.after_insert(p, pos)


def _row_index(row: Row) -> int:
    return row.index


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
        if flt.failures_only and not row.flags & FAILED:
            return False
        kinds = flt.kinds
        if kinds is not None and not (
            row.kind in kinds
            or family(row.kind) in kinds
            or (row.end is not None and row.end.kind in kinds)
            or (row.tokens and _TOKEN in kinds)
        ):
            return False
        if flt.node and row.node != flt.node:
            return False
        if flt.middleware and not self._under_middleware(row, flt.middleware):
            return False
        needle = flt.needle
        return not needle or needle in row.haystack()

    def _under_middleware(self, row: Row, name: str) -> bool:
        r: Row | None = row
        while r is not None and r is not self.root:
            if r.own_middleware() == name:
                return True
            r = r.parent
        return False

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
        for ev in events:
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
        if kind == _TOKEN:
            run[ev.seq] = self._fold_token(ev, delta, listener)
            return
        sid = ev.span_id
        if kind in SPAN_CLOSERS and sid is not None:
            row = self._spans.get(sid)
            if row is not None and row.end is None and row.kind == SPAN_CLOSERS[kind]:
                row.end = ev
                row._touched()
                self._flag(row, _status_flags(ev), delta)
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
        self._flag(row, _status_flags(ev), delta)
        self._attach(row, delta, listener)

    def _new_row(self, kind: str, ev: EventBase, parent: Row) -> Row:
        row = Row(len(self.rows), kind, ev, parent, len(parent.children))
        d = ev.__dict__
        fam = family(kind)
        own_node = d.get("node") or (d.get("from_node") if kind == "route" else None)
        row.node = own_node or parent.node
        if kind == "node.started" and own_node:
            self.nodes[own_node] = None
        mw = d.get("middleware")
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
            _reveal(vis, vindex, row, self.root, delta, listener)

    def _fold_token(self, ev: EventBase, delta: TreeDelta, listener: TreeListener | None) -> Row:
        sid, pid = ev.span_id, ev.parent_span_id
        target = self._spans.get(sid) if sid else None
        parent = self._spans.get(pid, self.root) if pid else self.root
        if target is None or target.kind != "model.request":
            if parent.kind == "model.request":
                target = parent
            else:
                last = parent.children[-1] if parent.children else None
                target = last if last is not None and last.kind == _TOKEN else None
        text = ev.__dict__.get("text") or ""
        if target is None:
            target = self._new_row(_TOKEN, ev, parent)
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
