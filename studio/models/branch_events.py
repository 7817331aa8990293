"""The events that led to a moment of a thread: one branch, up to one checkpoint.

A thread's events (``hub.events``) mix every run and every branch (forks from past
checkpoints, replays).  ``branch_events(events, checkpoint_id)`` keeps those on the path from
the thread's first checkpoint to ``checkpoint_id``: for each checkpoint P on that path, the work
done on P by the run that saved the next checkpoint of the path (the same step on another
branch is left out).  With ``checkpoint_id=None`` the moment is the live tip: the newest
checkpoint events were recorded on, plus the work on it so far (a run going on, a failure).

Pure Python, no Qt: the Graph dock redraws visits, the last route and retry badges from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.events import CheckpointSaved, EventBase

__all__ = ["branch_events", "live_tip"]

ParentOf = Callable[[str], str | None]


def live_tip(events: Sequence[EventBase]) -> str | None:
    """The root graph's checkpoint the newest event happened on (None before any checkpoint);
    a subgraph's checkpoints are not the thread's."""
    for ev in reversed(events):
        if ev.checkpoint_id and not ev.ns:
            return ev.checkpoint_id
    return None


def branch_events(
    events: Sequence[EventBase],
    checkpoint_id: str | None = None,
    parent_of: ParentOf | None = None,
) -> list[EventBase]:
    """The events of the branch leading to ``checkpoint_id`` (None: the live tip).

    ``parent_of`` looks up the parent of a checkpoint no ``checkpoint.saved`` event describes
    (one written by ``update_state``, or a fork copy), e.g. through the checkpointer."""
    live = checkpoint_id is None
    tip = live_tip(events) if live else checkpoint_id
    if tip is None:
        return list(events)
    saved: dict[str, tuple[str | None, str]] = {}
    for ev in events:
        if isinstance(ev, CheckpointSaved) and ev.checkpoint_id:
            saved[ev.checkpoint_id] = (ev.parent_id, ev.run_id)
    made_by: dict[str, str | None] = {}
    """Checkpoint on the path -> the run that did the step from it toward the tip."""
    child, cid, seen = None, tip, set()
    while cid is not None and cid not in seen:
        seen.add(cid)
        made_by[cid] = saved[child][1] if child is not None and child in saved else None
        parent = saved[cid][0] if cid in saved else (parent_of(cid) if parent_of else None)
        child, cid = cid, parent
    runs = {run for _, run in (saved[c] for c in made_by if c in saved)}
    out: list[EventBase] = []
    at: dict[str, str] = {}
    """Run -> the root checkpoint its newest root event happened on."""
    for ev in events:
        cid = ev.checkpoint_id
        nested = bool(ev.ns) and cid is not None
        if not ev.ns:
            if cid is not None:
                at[ev.run_id] = cid
        elif nested:
            cid = at.get(ev.run_id)  # a subgraph's checkpoint: where its parent's step was
        if cid is None:
            if ev.run_id in runs and not nested:
                out.append(ev)
        elif cid == tip:
            if live or (not nested and ev.kind in ("checkpoint.saved", "superstep.finished")):
                out.append(ev)
        elif cid in made_by and ev.run_id == made_by[cid]:
            out.append(ev)
    return out
