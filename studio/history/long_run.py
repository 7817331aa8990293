"""A recorded run too long to load whole: its start and its last events (plain Python, no Qt).

A replay loads at most ``feed_limit`` events (``studio.history.replay.open_session``).  When
the newest run alone holds more, what a debugger's user looks at first is how it ended: the
run is loaded as its start (``run.started``), the spans its last events lie in (the superstep
and node they belong to, found by their ids, so the Events tree nests them as recorded), then
its last events, from the start of a superstep of the root graph where there is one.  The events in between stay in the file: the Events footer says how many,
and the thread's figures count them from the run's outline (``studio.models.older_runs``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from engine.events import SPAN_OPENERS, EventBase
from engine.recording import Session

__all__ = ["HEAD", "RunCut", "cut_run"]

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
    _head_seqs: set[int] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self._head_seqs = {ev.seq for ev in self.head}

    def loaded(self, seq: int) -> bool:
        """Is the run's event ``seq`` loaded?"""
        return seq >= self.tail_from or seq in self._head_seqs

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
    return RunCut(
        run_id, [head[s] for s in sorted(head)], tail_from, skipped=max(0, count - loaded)
    )


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
