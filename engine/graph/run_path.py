"""The path one run took through its graph: how often each node ran, each edge was taken.

Built from a run's events (``node.started`` and ``route`` of the root graph), for exports that
show the run on the graph (``DrawableGraph.draw_mermaid(path=...)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.events import EventBase

__all__ = ["RunPath"]


@dataclass
class RunPath:
    visits: Counter[str] = field(default_factory=Counter)
    """Node id -> how many times it ran."""
    taken: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(source, target) -> how many times the run went that way (Sends included)."""

    @classmethod
    def from_events(cls, events: Iterable[EventBase]) -> RunPath:
        path = cls()
        for ev in events:
            if getattr(ev, "ns", None):  # a subgraph's own nodes are not on this graph
                continue
            d = ev.__dict__
            if ev.kind == "node.started":
                path.visits[str(d["node"])] += 1
            elif ev.kind == "route":
                source = str(d["from_node"])
                targets = [str(t) for t in d.get("to") or ()]
                targets += [str(s.get("node")) for s in d.get("sends") or () if s.get("node")]
                for target in targets:
                    path.taken[(source, target)] += 1
        return path

    def __bool__(self) -> bool:
        return bool(self.visits or self.taken)
