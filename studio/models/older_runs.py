"""What a session's unloaded older runs add to the thread's figures (plain Python, no Qt).

A session opened on its newest runs (``studio.history.replay.open_session``) shows their
events; the thread's cost and the Graph dock's visit counts still cover every run.  Their part
comes from the runs' outline (``engine.recording.outline``: spans and model responses, read
without decoding the other events): a ``UsageLedger`` of their model calls, and the visits of
each node.  The outline is kept, so the figures can be counted on one branch up to one
checkpoint, as the loaded events are (``studio.models.branch_events``): every row lies at its
run's row number and ``seq``, and each root checkpoint at its ``checkpoint.saved``.  When
every run lies on one line of checkpoints, that is every row before the checkpoint
(``OlderRuns.upto``); on a thread with forks, the rows of the branch that leads to it
(``OlderRuns.along``, ``studio.models.older_branch``).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field

from engine.recording.outline import RunsOutline
from studio.models.ns import ns_path
from studio.models.older_branch import Placed, on_branch, place
from studio.models.run_gap import RunGap
from studio.models.run_stats import RunStats
from studio.models.usage_ledger import UsageLedger, UsageSum

__all__ = ["OlderRuns", "older_runs"]

NodeKey = tuple[tuple[str, ...], str]
"""(subgraph path, node name)."""


@dataclass
class OlderRuns:
    runs: int
    events: int
    cut: int = 0
    """Events of the newest run left unloaded too (a run past the limit alone: its start and
    its end are loaded, ``studio.history.long_run``); counted in the figures with the runs'."""
    usage: UsageLedger | None = None
    """Their model calls (None: their outline could not be read; the figures then cover the
    loaded runs only)."""
    visits: dict[NodeKey, int] = field(default_factory=dict)
    linear: bool = False
    """No run of the thread started from a chosen checkpoint (a fork, a replay): the older
    runs lie on the line of checkpoints the loaded runs continue, so what they did counts on
    the live branch (and before any checkpoint of the loaded runs)."""
    stats: RunStats = field(default_factory=RunStats)
    """Their model calls and tokens, counted as the status bar counts them."""
    reading: bool = False
    """Their outline is being read (in the background): the figures cover the loaded runs
    until it is."""
    gap: RunGap | None = None
    """Where the ``cut`` events lie in the newest run (the Events tree marks the place)."""
    outline: RunsOutline | None = field(default=None, repr=False)
    """What the figures were counted from, kept to count them up to one of the runs'
    checkpoints (``upto``)."""
    at_checkpoint: str | None = None
    """Set on the figures ``upto`` counted: the checkpoint they stop at."""
    step: int | None = None
    """That checkpoint's superstep."""
    run_usage: UsageSum | None = None
    """That checkpoint's run's model calls up to it."""
    _kept: dict[str, OlderRuns | None] = field(default_factory=dict, repr=False)
    _placed: Placed | None = field(default=None, repr=False)

    def place(self, checkpoint_id: str) -> str | None:
        """Where ``checkpoint_id``'s events are: "unloaded run" (a run left in the file),
        "left out" (the cut run's middle, where ``gap`` lies), "loaded"; None when their
        outline does not have it (a loaded run's, or not read yet)."""
        where = self.outline.checkpoints.get(checkpoint_id) if self.outline else None
        return None if where is None else where.place

    def node_visits(self, path: tuple[str, ...], node: str) -> int:
        return self.visits.get((path, node), 0)

    def node_usage(self, path: tuple[str, ...], node: str) -> UsageSum | None:
        return self.usage.node(node, path) if self.usage is not None else None

    def total(self) -> UsageSum | None:
        return self.usage.total() if self.usage is not None else None

    def before(
        self,
        loaded: Container[str],
        checkpoint_id: str | None,
        *,
        tip: str | None = None,
        parents: Mapping[str, str | None] | None = None,
    ) -> OlderRuns | None:
        """These runs where they count on a branch shown up to ``checkpoint_id`` (None: the
        live tip, ``tip``).  When every run lies on one line (``linear``): whole before the
        live tip or a checkpoint of the ``loaded`` runs (their checkpoints' ids), up to a
        checkpoint of their own (``upto``).  Otherwise what lies on that branch (``along``:
        ``parents`` gives each checkpoint's parent); None without ``parents``."""
        if self.linear:
            if (
                checkpoint_id is None
                or checkpoint_id in loaded
                or self.place(checkpoint_id) == "loaded"  # its events are coming
            ):
                return self
            return self.upto(checkpoint_id)
        point = checkpoint_id if checkpoint_id is not None else tip
        if point is None or parents is None:
            return None
        return self.along(point, live=checkpoint_id is None, parents=parents)

    def upto(self, checkpoint_id: str) -> OlderRuns | None:
        """Their figures counted up to one of their own checkpoints (time travel to a moment
        the loaded events do not reach); None for a checkpoint not theirs.  Kept once
        counted: a selection is counted again at every refresh."""
        if checkpoint_id in self._kept:
            return self._kept[checkpoint_id]
        outline = self.outline
        where = outline.checkpoints.get(checkpoint_id) if outline is not None else None
        found: OlderRuns | None = None
        if outline is not None and where is not None:
            at = where.at  # rows are in the order they were recorded: row number, then seq
            spans = [r for r in outline.spans if r.at <= at]
            kept = [i for i, pos in enumerate(outline.response_at) if pos <= at]
            part = RunsOutline(
                spans, [outline.responses[i] for i in kept], [outline.response_at[i] for i in kept]
            )
            found = _counted(self.runs, self.events, part, cut=self.cut, linear=True)
            _stopping_at(found, checkpoint_id, outline, part)
        return self._keep(checkpoint_id, found)

    def along(
        self, point: str, *, live: bool, parents: Mapping[str, str | None]
    ) -> OlderRuns | None:
        """Their figures on the branch of a thread with forks that leads to ``point`` (a
        checkpoint, or the live tip: ``live``), from the first of their checkpoints on the
        path up (``studio.models.older_branch``); None when the path reaches none of them."""
        outline = self.outline
        if outline is None:
            return None
        entry: str | None = point
        seen: set[str] = set()
        while entry is not None and entry not in outline.checkpoints and entry not in seen:
            seen.add(entry)  # a loaded run's checkpoint: its parent, until one of theirs
            entry = parents.get(entry)
        if entry is None or entry not in outline.checkpoints:
            return None
        own = entry == point  # the branch ends at one of their checkpoints
        key = f"{'live' if live else 'at'}:{entry}" if own else f"entered:{entry}"
        if key in self._kept:
            return self._kept[key]
        if self._placed is None:
            self._placed = place(outline)
        part = on_branch(outline, self._placed, entry, live=live and own, parent_of=parents.get)
        found = _counted(self.runs, self.events, part, cut=self.cut, linear=False)
        if own and not live:
            _stopping_at(found, entry, outline, part)
        return self._keep(key, found)

    def _keep(self, key: str, found: OlderRuns | None) -> OlderRuns | None:
        """``found`` kept under ``key`` (the oldest dropped past ``_KEPT``); returned."""
        if len(self._kept) >= _KEPT:
            self._kept.clear()
        self._kept[key] = found
        return found


def older_runs(
    runs: int, events: int, outline: RunsOutline, *, cut: int = 0, gap: RunGap | None = None
) -> OlderRuns:
    """The older runs' part of the thread's figures, from their ``outline`` (and a cut run's
    ``cut`` events left out, lying where ``gap`` says)."""
    older = _counted(runs, events, outline, cut=cut, linear=not outline.forked)
    older.outline = outline
    older.gap = gap
    return older


_KEPT = 64
"""Checkpoints ``OlderRuns.upto`` keeps the figures of."""


def _counted(runs: int, events: int, outline: RunsOutline, *, cut: int, linear: bool) -> OlderRuns:
    """The figures of the spans and model responses in ``outline``."""
    ledger = UsageLedger()
    visits: dict[NodeKey, int] = {}
    for row in outline.spans:
        node: NodeKey | None = None
        if row.kind == "node.started":
            node = (ns_path(row.ns), row.node or "")
            if row.attempt <= 1:
                visits[node] = visits.get(node, 0) + 1
        ledger.note_span(row.span_id, row.parent_span_id, node)
    ledger.add_all(outline.responses)
    stats = RunStats()
    stats.apply(outline.responses)
    return OlderRuns(runs, events, cut, ledger, visits, linear=linear, stats=stats)


def _stopping_at(
    found: OlderRuns, checkpoint_id: str, outline: RunsOutline, part: RunsOutline
) -> None:
    """Mark ``found`` (counted from ``part``) as the figures at ``checkpoint_id``: its step,
    and its run's model calls up to it."""
    where = outline.checkpoints[checkpoint_id]
    found.at_checkpoint, found.step = checkpoint_id, where.step
    found.run_usage = _run_usage(found, part, where.at[0])


def _run_usage(counted: OlderRuns, part: RunsOutline, run: int) -> UsageSum | None:
    """The model calls of the run numbered ``run`` (its row in the file) among ``part``."""
    for ev, (r, _seq) in zip(reversed(part.responses), reversed(part.response_at), strict=True):
        if r == run:
            return counted.usage.run(ev.run_id) if counted.usage is not None else None
        if r < run:
            break
    return None
