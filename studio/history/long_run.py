"""A recorded run too long to load whole: its start and its last events (plain Python, no Qt).

A replay loads at most ``feed_limit`` events (``studio.history.replay.open_session``).  When
the newest run alone holds more, what a debugger's user looks at first is how it ended: the
run is loaded as its start (``run.started``), the spans its last events lie in (the superstep
and node they belong to, found by their ids, so the Events tree nests them as recorded), then
its last events, from the start of a superstep of the root graph where there is one.  The
events in between stay in the file: one row of the Events tree stands in their place, saying
how many and which root supersteps (``RunCut.gap``, ``studio.models.run_gap``), the Events
footer says how many, and the thread's figures count them from the run's outline
(``studio.models.older_runs``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from engine.events import SPAN_OPENERS, EventBase
from engine.recording import Session, SessionError
from studio.models.run_gap import RunGap

__all__ = ["HEAD", "RunCut", "cut_run", "run_around"]

HEAD = 64
"""At most this many events of a cut run's start are loaded (its start and the spans its last
events lie in); the rest of the limit goes to its last events."""


@dataclass
class RunCut:
    run_id: str
    head: list[EventBase]
    """The run's start and the spans its last events lie in, in order."""
    tail_from: int
    """The ``seq`` of the first of its last events."""
    skipped: int
    """Its events left in the file."""
    steps: tuple[int, int] | None = None
    """The root supersteps left in the file whole (first, last), when known."""
    part_of: int | None = None
    """The root superstep whose start is left in the file (its end loaded)."""
    _head_seqs: set[int] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self._head_seqs = {ev.seq for ev in self.head}

    def loaded(self, seq: int) -> bool:
        """Is the run's event ``seq`` loaded?"""
        return seq >= self.tail_from or seq in self._head_seqs

    def gap(self) -> RunGap | None:
        """What the Events tree shows in place of the events left in the file (None: none
        left, or the run's start is not loaded)."""
        start = self.head[0] if self.head else None
        if not self.skipped or start is None or start.kind != "run.started":
            return None
        return RunGap(self.run_id, start.seq, self.skipped, self.steps, self.part_of)

    def pages(self, session: Session, page_size: int) -> Iterator[list[EventBase]]:
        """The loaded events, page by page: the start first, then the last events."""
        after = self.tail_from
        first = True
        while True:
            page = session.events(self.run_id, seq_from=after, limit=page_size)
            if first:
                page = [*self.head, *page]
                first = False
            if not page:
                return
            yield page
            if len(page) < page_size or page[-1].seq < after:
                return
            after = page[-1].seq + 1


def cut_run(session: Session, run_id: str, count: int, limit: int) -> RunCut:
    """Plan the loading of run ``run_id`` (``count`` events) within ``limit`` events: its
    start, the spans its last events lie in, looked up by id (``HEAD`` events at most, a
    quarter of a small limit), and as many of its last events as the limit leaves."""
    last = session.last_seq(run_id)
    budget = max(1, min(HEAD, limit // 4))
    start = session.events(run_id, limit=1)
    first = start[0].seq + 1 if start else 1
    size = len(start)
    head: dict[int, EventBase] = {}
    tail: list[EventBase] = []
    tail_from = first
    for attempt in range(5):
        # the last events the limit leaves room for beside a head of ``size``; a head that
        # grew (an opener of the first ones moved out of the tail) is tried again
        tail_from = max(first, last - (limit - size) + 1)
        tail = session.events(run_id, seq_from=tail_from, limit=min(limit, 1000))
        head = {ev.seq: ev for ev in start}
        _add_spans(session, run_id, head, tail, _opened([*start, *tail]), budget, tail_from)
        if len(head) <= size:
            break
        size = len(head) if attempt < 3 else budget  # at the last try, room for any head
    # the last events start with a superstep of the root graph, whole: every change of state
    # they show is loaded (the state the first of them continues is its checkpoint's parent)
    step = session.step_start(run_id, tail_from)
    if step is not None and tail_from < step <= tail_from + limit // 4:
        whole = {ev.seq: ev for ev in start}
        tail = session.events(run_id, seq_from=step, limit=min(limit, 1000))
        _add_spans(session, run_id, whole, tail, _opened([*start, *tail]), budget, step)
        if len(whole) + last - step + 1 <= limit:
            head, tail_from = whole, step
    loaded = len(head) + max(0, last - tail_from + 1)
    kept = [head[s] for s in sorted(head)]
    cut = RunCut(run_id, kept, tail_from, skipped=max(0, count - loaded))
    if cut.skipped:
        first_of_tail = tail[0] if tail and tail[0].seq == tail_from else None
        cut.steps, cut.part_of = _steps_left_out(session, run_id, kept, first_of_tail, tail_from)
    return cut


def _steps_left_out(
    session: Session,
    run_id: str,
    head: list[EventBase],
    first_of_tail: EventBase | None,
    tail_from: int,
) -> tuple[tuple[int, int] | None, int | None]:
    """The root supersteps a cut run leaves in the file: those before the first one its
    loaded events show (whole), and that one's start when its opener is loaded without all
    of what followed it.  The first root superstep's number is one indexed lookup; a file
    that cannot tell leaves the steps unknown (the gap is then told by its count alone)."""
    opener = next((ev for ev in head if _root_step(ev)), None)
    part_of = None
    if opener is not None:
        shown = opener
        inside = sum(1 for ev in head if ev.seq > opener.seq)  # loaded before the last events
        if tail_from - opener.seq - 1 > inside:
            part_of = opener.step
    elif first_of_tail is not None and _root_step(first_of_tail):
        shown = first_of_tail
    else:
        return None, None
    if shown.step is None:
        return None, None
    start = head[0].seq + 1 if head else 1
    try:
        first = session.step_start(run_id, start)
        found = session.events(run_id, seq_from=first, limit=1) if first is not None else []
    except SessionError:
        return None, part_of
    if first is None or first >= shown.seq or not found or found[0].step is None:
        return None, part_of
    lo, hi = found[0].step, shown.step - 1
    return ((lo, hi) if lo <= hi else None), part_of


def run_around(session: Session, run_id: str, seq: int, limit: int) -> tuple[list[EventBase], int]:
    """At most ``limit`` events of run ``run_id`` that show its moment ``seq`` (a checkpoint's
    ``checkpoint.saved``): the whole run when it fits; else its start, the spans the events
    shown lie in, and its events from the start of a root superstep before ``seq``, as many as
    the limit leaves, ``seq`` a quarter of the way in (what led to the moment, and some of what
    followed).  Returns them in order, and how many of the run's events stay in the file."""
    count = session.count(run_id)
    if count <= limit:
        return session.events(run_id, limit=limit), 0
    start = session.events(run_id, limit=1)
    budget = max(1, min(HEAD, limit // 4))
    room = max(1, limit - len(start) - budget)
    first = start[0].seq + 1 if start else 1
    want = max(first, seq - room // 4)
    step = session.step_start(run_id, want)
    if step is not None and step <= seq:
        want = step
    part = session.events(run_id, seq_from=want, limit=room)
    head = {ev.seq: ev for ev in start}
    _add_spans(session, run_id, head, part, _opened([*start, *part]), budget + len(start), want)
    events = [head[s] for s in sorted(head) if s < want] + part
    return events, count - len(events)


def _root_step(ev: EventBase) -> bool:
    """Whether ``ev`` starts a superstep of the root graph."""
    return ev.kind == "superstep.started" and not ev.ns


def _add_spans(
    session: Session,
    run_id: str,
    head: dict[int, EventBase],
    events: list[EventBase],
    known: set[str],
    budget: int,
    before: int,
) -> None:
    """Add to ``head`` the openers of the spans ``events`` lie in that no event loaded opens,
    up to the run (recorded before ``before``; ``budget`` events in ``head`` at most)."""
    wanted = _parents(events) - known
    while wanted and len(head) < budget:
        found = [ev for ev in session.span_openers(run_id, sorted(wanted)) if ev.seq < before]
        if not found:
            return
        for ev in found[: budget - len(head)]:
            head[ev.seq] = ev
        known |= _opened(found)
        wanted = _parents(found) - known


def _opened(events: list[EventBase]) -> set[str]:
    return {ev.span_id for ev in events if ev.kind in SPAN_OPENERS and ev.span_id}


def _parents(events: list[EventBase]) -> set[str]:
    return {p for ev in events if (p := ev.parent_span_id)}
