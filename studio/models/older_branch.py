"""Which rows of the unloaded older runs' outline lie on one branch of a thread with forks.

A thread whose runs started from chosen checkpoints (forks, replays) holds several branches;
``studio.models.branch_events`` keeps the loaded events of one of them.  The same rule, on the
older runs' outline (``engine.recording.outline``: span openers and model responses, each
placed at its run's row number and ``seq``, and the runs' root checkpoints at their
``checkpoint.saved``):

- a row happened on the root checkpoint its run saved last before it (before the run's first
  one: that checkpoint's parent, where the run started);
- it is on the branch to ``tip`` when that checkpoint lies on the path from the thread's first
  checkpoint to ``tip`` and its run is the one that stepped from it toward ``tip`` (the same
  step done again on another branch is left out); on ``tip`` itself only while ``tip`` is the
  live tip (work done on it so far).

Plain Python, no Qt.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from engine.recording.outline import RunsOutline

__all__ = ["Placed", "on_branch", "place"]

_LOADED = -1
"""``made_by`` of a checkpoint a loaded run stepped from (none of the outline's rows count)."""


class Placed:
    """The root checkpoint each row of an outline happened on (None: it cannot be placed)."""

    def __init__(self, spans: list[str | None], responses: list[str | None]) -> None:
        self.spans = spans
        self.responses = responses


def place(outline: RunsOutline) -> Placed:
    """Where each span opener and model response of ``outline`` happened."""
    saved: dict[int, list[tuple[int, str]]] = {}
    for cid, where in outline.checkpoints.items():
        saved.setdefault(where.at[0], []).append((where.at[1], cid))
    starts: dict[int, str | None] = {}
    for run, points in saved.items():
        points.sort()
        starts[run] = outline.checkpoints[points[0][1]].parent_id

    def on(at: tuple[int, int]) -> str | None:
        run, seq = at
        points = saved.get(run)
        if not points:
            return None
        i = bisect_left(points, (seq, ""))  # the checkpoints saved before the row
        return points[i - 1][1] if i else starts[run]

    return Placed([on(r.at) for r in outline.spans], [on(at) for at in outline.response_at])


def on_branch(
    outline: RunsOutline,
    placed: Placed,
    tip: str,
    *,
    live: bool,
    parent_of: Callable[[str], str | None],
) -> RunsOutline:
    """The rows of ``outline`` on the branch that leads to ``tip`` (``live``: the live tip,
    whose work so far counts).  ``parent_of`` gives a checkpoint's parent where the outline
    does not (the loaded runs' checkpoints, one written by ``update_state``)."""
    made_by: dict[str, int] = {}
    """Checkpoint on the path -> the older run (its row number) that stepped from it toward
    ``tip`` (``_LOADED``: a loaded run, or none)."""
    child = tip
    for _ in range(1_000_000):  # a cycle in damaged parent links ends the walk
        where = outline.checkpoints.get(child)
        parent = where.parent_id if where is not None else parent_of(child)
        if parent is None or parent in made_by or parent == tip:
            break
        made_by[parent] = where.at[0] if where is not None else _LOADED
        child = parent

    def counts(on: str | None, run: int) -> bool:
        if on is None:
            return False
        if on == tip:
            return live
        return made_by.get(on) == run

    spans = [r for r, on in zip(outline.spans, placed.spans, strict=True) if counts(on, r.at[0])]
    kept = [
        i
        for i, (at, on) in enumerate(zip(outline.response_at, placed.responses, strict=True))
        if counts(on, at[0])
    ]
    return RunsOutline(
        spans, [outline.responses[i] for i in kept], [outline.response_at[i] for i in kept]
    )
