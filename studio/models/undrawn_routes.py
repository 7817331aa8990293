"""Routes a run took that the graph's drawing has no edge for.

LangGraph draws a graph from its declared edges: a node that returns ``Command(goto=...)``
without a ``Command[Literal[...]]`` return annotation has no edges out in the drawing, and the
drawing leaves out the static edges of nodes it cannot reach from ``START`` that way.  The runs
show where they went; the Graph dock adds those routes (dotted) so the picture matches what
happened.

A route is judged once its superstep's routes are all in: in attach mode LangGraph says which
nodes run next, not which writer sent the run there, so every writer of a step lists every
next node.  A next node some writer has a drawn edge to is explained by the drawing; one that a
single writer routed to is that writer's; one that several writers list without a drawn edge
is left out (drawing it from the wrong node would be worse than not drawing it).
"""

from __future__ import annotations

from engine.events import Route
from engine.graph.drawing import DrawableGraph

__all__ = ["END", "UndrawnRoutes"]

END = "__end__"
"""The drawn graph's end node."""


class UndrawnRoutes:
    """The undrawn routes of one drawn graph, in the order first taken (kept across runs)."""

    def __init__(self, graph: DrawableGraph) -> None:
        self._graph = graph
        self._drawn = {(e.source, e.target) for e in graph.edges}
        self.routes: dict[tuple[str, str], None] = {}
        self._step: int | None = None
        self._pending: list[tuple[str, tuple[str, ...]]] = []

    def take(self, ev: Route) -> bool:
        """Note a route (of the drawn graph's namespace); True when an earlier step's routes
        were judged and gave a new undrawn route."""
        found = self.settle() if self._pending and ev.step != self._step else False
        targets = [*ev.to, *(str(s.get("node", "")) for s in ev.sends)]
        if ev.reason == "end" and not targets:
            targets = [END]
        self._step = ev.step
        self._pending.append((ev.from_node, tuple(t for t in targets if t)))
        return found

    def settle(self) -> bool:
        """Judge the routes of the step taken so far (its other events have come); True when
        that gave a new undrawn route."""
        pending, self._pending = self._pending, []
        nodes = self._graph.nodes
        sources: dict[str, list[str]] = {}
        for source, targets in pending:
            for t in targets:
                sources.setdefault(t, []).append(source)
        new = False
        for target, senders in sources.items():
            senders = list(dict.fromkeys(s for s in senders if s in nodes))
            if target not in nodes or len(senders) != 1:
                continue
            edge = (senders[0], target)
            if edge not in self._drawn and edge not in self.routes:
                self.routes[edge] = None
                new = True
        return new

    @property
    def pending(self) -> bool:
        return bool(self._pending)
