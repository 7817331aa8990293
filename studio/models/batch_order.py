"""A batch of events put in tree order: a child before its span's opener is moved after it.

Events arrive in ``seq`` order, and a span's opener normally comes before everything inside
it.  In attach mode two nodes starting at once on worker threads race: one names the new
superstep's span and emits its start, the other finds the span and emits its own node start,
which can be delivered first.  The tree would then hang that node under the run's root.
Within a batch, an event whose parent span is opened later in the same batch is taken out and
placed right after that opener (and its own waiting children after it, and so on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.events import SPAN_OPENERS, EventBase

__all__ = ["openers_first"]


def openers_first(events: Iterable[EventBase], known: Mapping[str, object]) -> Sequence[EventBase]:
    """``events`` with each one whose parent span is not in ``known`` but opens later in the
    batch moved right after its opener; otherwise in their order."""
    batch = events if isinstance(events, list) else list(events)
    opened: dict[str, int] = {}
    for i, ev in enumerate(batch):
        sid = ev.span_id
        if sid is not None and ev.kind in SPAN_OPENERS:
            opened.setdefault(sid, i)
    waiting: dict[str, list[EventBase]] = {}
    for i, ev in enumerate(batch):
        pid = ev.parent_span_id
        if pid is not None and pid not in known and opened.get(pid, -1) > i:
            waiting.setdefault(pid, []).append(ev)
    if not waiting:
        return batch
    moved = {id(ev) for evs in waiting.values() for ev in evs}
    out: list[EventBase] = []

    def place(ev: EventBase) -> None:
        out.append(ev)
        sid = ev.span_id
        if sid is not None and ev.kind in SPAN_OPENERS:
            for child in waiting.pop(sid, ()):
                place(child)

    for ev in batch:
        if id(ev) not in moved:
            place(ev)
    return out
