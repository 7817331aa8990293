"""What a session's unloaded older runs add to the thread's figures (plain Python, no Qt).

A session opened on its newest runs (``studio.history.replay.open_session``) shows their
events; the thread's cost and the Graph dock's visit counts still cover every run.  Their part
comes from the runs' outline (``engine.recording.outline``: spans and model responses, read
without decoding the other events): a ``UsageLedger`` of their model calls, and the visits of
each node.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field

from engine.recording.outline import RunsOutline
from studio.models.ns import ns_path
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

    def node_visits(self, path: tuple[str, ...], node: str) -> int:
        return self.visits.get((path, node), 0)

    def node_usage(self, path: tuple[str, ...], node: str) -> UsageSum | None:
        return self.usage.node(node, path) if self.usage is not None else None

    def total(self) -> UsageSum | None:
        return self.usage.total() if self.usage is not None else None

    def before(self, loaded: Container[str], checkpoint_id: str | None) -> OlderRuns | None:
        """These runs where they count on a branch shown up to ``checkpoint_id`` (None: the
        live tip): before the live tip, or before a checkpoint of the ``loaded`` runs (their
        checkpoints' ids), when every run lies on one line (``linear``)."""
        if not self.linear:
            return None
        return self if checkpoint_id is None or checkpoint_id in loaded else None


def older_runs(runs: int, events: int, outline: RunsOutline, *, cut: int = 0) -> OlderRuns:
    """The older runs' part of the thread's figures, from their ``outline`` (and a cut run's
    ``cut`` events left out)."""
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
    return OlderRuns(runs, events, cut, ledger, visits, linear=not outline.forked, stats=stats)
