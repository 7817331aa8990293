"""The spans of runs laid out on a time axis, for the Waterfall dock (plain Python, no Qt).

``Waterfall.add(events)`` reads events in order and keeps, per run, one ``Bar`` per span (run,
superstep, node, hook, wrapper, attempt, model call, tool call) with its start and end (the
events' monotonic clock), its status, and a row: a bar goes on the first row below its parent
that is free from its start on, so sequential spans share rows, parallel ones (tool calls of one
superstep) go side by side on separate rows, and a retried attempt lands beside the attempt it
retries, the backoff between them a ``Gap``.  Pauses of the debugger (``debug.paused`` ..
``debug.resumed``) are kept as intervals; ``TimeAxis`` maps event time to display time either as
it was (pauses shown as bands) or with pauses collapsed (active time only).  Loops and
interrupts are ``Mark``s.  Every event is O(rows) to add: nothing is rebuilt as a run grows.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.events import (
    SPAN_CLOSERS,
    SPAN_OPENERS,
    AttemptFinished,
    AttemptStarted,
    EventBase,
    HookStarted,
    ModelRequest,
    NodeStarted,
    RunStarted,
    SuperstepStarted,
    ToolStarted,
    WrapperStarted,
)
from studio.models.event_summary import error_text

__all__ = ["Bar", "Gap", "Mark", "RunLanes", "TimeAxis", "Waterfall"]

_OPEN = float("inf")


@dataclass(eq=False)
class Bar:
    """One span on the time axis."""

    event: EventBase
    family: str
    label: str
    start: int
    """Nanoseconds since the run started (monotonic clock)."""
    row: int = 0
    end: int | None = None
    end_event: EventBase | None = None
    failed: bool = False
    interrupted: bool = False
    parent: Bar | None = None
    detail: str = ""
    """The outcome, for the tooltip (an error, a retry delay...)."""

    @property
    def span_id(self) -> str | None:
        return self.event.span_id

    def end_or(self, now: int) -> int:
        return self.end if self.end is not None else max(now, self.start)


@dataclass(frozen=True)
class Gap:
    """The wait between a failed attempt and the next one (a retry's backoff)."""

    after: Bar
    before: Bar
    delay_s: float | None


@dataclass(frozen=True)
class Mark:
    """A moment: a loop found, an interrupt raised."""

    event: EventBase
    at: int
    row: int
    kind: str
    label: str


@dataclass
class RunLanes:
    """The bars of one run, by row."""

    run_id: str
    t0: int
    label: str = "run"
    rows: list[list[Bar]] = field(default_factory=list)
    """Bars per row, in start order (they never overlap, so their ends are in order too)."""
    starts: list[list[int]] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)
    """Per row: when its last bar ends (inf while it is open)."""
    bars: dict[str, Bar] = field(default_factory=dict)
    """By span id."""
    gaps: list[Gap] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    pauses: list[tuple[int, int | None]] = field(default_factory=list)
    """(start, end) of the debugger's pauses; end None while paused."""
    now: int = 0
    """The latest event time seen: where open bars end for now."""
    last_attempt: dict[str, Bar] = field(default_factory=dict)
    """Per parent span: its latest attempt (so a retry can be tied to it)."""
    interrupts: set[str] = field(default_factory=set)
    """The ids of the interrupts marked (a session recorded before a subgraph's interrupt was
    told once tells it again at the parent's node: one mark)."""

    @property
    def duration(self) -> int:
        return max(self.now, max((b.end or 0 for b in self.bars.values()), default=0))

    def place(self, bar: Bar) -> None:
        low = bar.parent.row + 1 if bar.parent is not None else 0
        row = low
        while row < len(self.busy) and self.busy[row] > bar.start:
            row += 1
        if row == len(self.busy):
            self.busy.append(_OPEN)
            self.rows.append([])
            self.starts.append([])
        self.busy[row] = _OPEN
        bar.row = row
        self.rows[row].append(bar)
        self.starts[row].append(bar.start)

    def close(self, bar: Bar) -> None:
        if bar.end is not None and self.busy[bar.row] == _OPEN:
            row = self.rows[bar.row]
            if row and row[-1] is bar:
                self.busy[bar.row] = bar.end

    def bars_in(self, row: int, lo: int, hi: int) -> list[Bar]:
        """The bars of ``row`` that overlap [lo, hi] (times since the run's start)."""
        if not 0 <= row < len(self.rows):
            return []
        bars, starts = self.rows[row], self.starts[row]
        first = max(0, bisect.bisect_right(starts, lo) - 1)
        last = bisect.bisect_right(starts, hi)
        return [b for b in bars[first:last] if b.end_or(self.now) >= lo]

    def paused_ns(self, upto: int | None = None) -> int:
        """Total paused time (up to ``upto``)."""
        total = 0
        for start, end in self.pauses:
            stop = end if end is not None else self.now
            if upto is not None:
                stop = min(stop, upto)
            if stop > start:
                total += stop - start
        return total


class TimeAxis:
    """Event time (ns since the run start) to display time, with pauses kept or collapsed."""

    def __init__(self, lanes: RunLanes, collapse: bool) -> None:
        self.collapse = collapse
        self._pauses = [(s, e if e is not None else lanes.now) for s, e in lanes.pauses]

    def show(self, t: int) -> int:
        if not self.collapse:
            return t
        cut = 0
        for start, end in self._pauses:
            if t <= start:
                break
            cut += min(t, end) - start
        return t - cut

    def event_time(self, shown: int) -> int:
        """The inverse of ``show`` (a collapsed pause maps to its start)."""
        if not self.collapse:
            return shown
        t = shown
        for start, end in self._pauses:
            if t < start:
                break
            t += end - start
        return t

    def pauses(self) -> list[tuple[int, int]]:
        """The pauses in display time (collapsed ones have zero width)."""
        return [(self.show(s), self.show(e)) for s, e in self._pauses]

    def raw_pauses(self) -> list[tuple[int, int]]:
        """The same pauses in event time (one for one with ``pauses()``)."""
        return list(self._pauses)

    def covers(self, lanes: RunLanes) -> bool:
        """Does the axis know every pause of ``lanes`` (one may have begun since it was made)?"""
        return len(self._pauses) == len(lanes.pauses)


class Waterfall:
    """Bars of every run seen (see the module docstring)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.runs: dict[str, RunLanes] = {}
        self._spans: dict[str, tuple[str, Bar]] = {}

    @property
    def last_run(self) -> RunLanes | None:
        return next(reversed(self.runs.values()), None) if self.runs else None

    def run_of_span(self, span_id: str | None) -> RunLanes | None:
        found = self._spans.get(span_id or "")
        return self.runs.get(found[0]) if found is not None else None

    def bar(self, span_id: str | None) -> Bar | None:
        found = self._spans.get(span_id or "")
        return found[1] if found is not None else None

    def bar_for(self, ev: EventBase | None) -> Bar | None:
        """The bar of a selected event: its own span, else the span it happened in."""
        if ev is None:
            return None
        return self.bar(ev.span_id) or self.bar(ev.parent_span_id)

    def add(self, events: Iterable[EventBase]) -> set[str]:
        """Read ``events``; returns the runs that changed."""
        changed: set[str] = set()
        for ev in events:
            if self._add(ev):
                changed.add(ev.run_id)
        return changed

    def _lanes(self, ev: EventBase) -> RunLanes | None:
        lanes = self.runs.get(ev.run_id)
        if lanes is None:
            if not ev.mono_ns:
                return None
            lanes = self.runs[ev.run_id] = RunLanes(ev.run_id, ev.mono_ns)
        return lanes

    def _add(self, ev: EventBase) -> bool:
        kind = ev.kind
        if kind == "model.token":
            return False
        lanes = self._lanes(ev)
        if lanes is None:
            return False
        t = max(0, ev.mono_ns - lanes.t0)
        lanes.now = max(lanes.now, t)
        if kind in SPAN_OPENERS and ev.span_id:
            self._open(lanes, ev, t)
        elif kind in SPAN_CLOSERS and ev.span_id:
            self._close(lanes, ev, t)
        elif kind == "debug.paused":
            lanes.pauses.append((t, None))
        elif kind == "debug.resumed":
            if lanes.pauses and lanes.pauses[-1][1] is None:
                lanes.pauses[-1] = (lanes.pauses[-1][0], t)
        elif kind in ("loop.detected", "interrupt.raised"):
            iid = ev.__dict__.get("interrupt_id")
            if iid and iid in lanes.interrupts:
                return True
            if iid:
                lanes.interrupts.add(iid)
            parent = lanes.bars.get(ev.parent_span_id or "")
            row = parent.row if parent is not None else 0
            label = "⟳ loop" if kind == "loop.detected" else "‖ interrupt"
            lanes.marks.append(Mark(ev, t, row, kind, label))
        return True

    def _open(self, lanes: RunLanes, ev: EventBase, t: int) -> None:
        family = ev.kind.split(".", 1)[0]
        if isinstance(ev, RunStarted) and not ev.ns and not lanes.bars:
            lanes.label = f"run {ev.graph or ''}".strip()
        parent = lanes.bars.get(ev.parent_span_id or "")
        bar = Bar(ev, family, _label(ev), t, parent=parent)
        lanes.place(bar)
        lanes.bars[ev.span_id] = bar  # type: ignore[index]
        self._spans[ev.span_id] = (lanes.run_id, bar)  # type: ignore[index]
        if ev.kind == "attempt.started" and ev.parent_span_id:
            previous = lanes.last_attempt.get(ev.parent_span_id)
            if previous is not None and previous.end is not None and previous.failed:
                end = previous.end_event
                delay = end.delay_s if isinstance(end, AttemptFinished) else None
                lanes.gaps.append(
                    Gap(previous, bar, delay if isinstance(delay, float | int) else None)
                )
            lanes.last_attempt[ev.parent_span_id] = bar

    def _close(self, lanes: RunLanes, ev: EventBase, t: int) -> None:
        bar = lanes.bars.get(ev.span_id or "")
        if bar is None or bar.end is not None:
            return
        bar.end = max(t, bar.start)
        bar.end_event = ev
        status = _status(ev)
        bar.failed = bool(getattr(ev, "error", None)) or status == "error"
        bar.interrupted = status == "interrupted"
        bar.detail = _outcome(ev)
        if bar.failed:
            bar.label += " ✗"
        lanes.close(bar)


def _label(ev: EventBase) -> str:
    match ev:
        case RunStarted():
            return f"run {ev.graph or ''}".strip()
        case SuperstepStarted():
            return f"step {ev.step}"
        case NodeStarted():
            attempt = ev.attempt or 1
            return f"{ev.node}" + (f" (try {attempt})" if attempt > 1 else "")
        case HookStarted():
            return f"{_short(ev.middleware)}.{ev.hook}"
        case WrapperStarted():
            tool = f" [{ev.tool}]" if ev.tool else ""
            return f"{_short(ev.middleware)}{tool}"
        case AttemptStarted():
            top = ev.max_attempts
            return f"attempt {ev.attempt}" + (f"/{top}" if top else "")
        case ModelRequest():
            return f"model {ev.model}"
        case ToolStarted():
            return f"tool {ev.tool}"
    return ev.kind


def _short(name: object) -> str:
    text = str(name or "")
    return text.removesuffix("Middleware") or text


def _status(ev: EventBase) -> str | None:
    """A closing event's ``status`` (runs, steps, nodes, tools) or ``outcome`` (wrappers,
    attempts); None for the closers that declare neither."""
    return getattr(ev, "status", None) or getattr(ev, "outcome", None)


def _outcome(ev: EventBase) -> str:
    err = getattr(ev, "error", None)  # declared by every closer but ``superstep.finished``
    if err is not None:
        text = error_text(err, 200)
        if isinstance(ev, AttemptFinished) and ev.will_retry:
            delay = ev.delay_s
            text += (
                f"; retried after {delay:.2f} s" if isinstance(delay, int | float) else "; retried"
            )
        return text
    status = _status(ev)
    return str(status) if status and status not in ("ok", "success", "done") else ""
