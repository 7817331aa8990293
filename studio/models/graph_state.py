"""Live view state of the Graph dock, fed by engine events (plain Python, no Qt).

Tracks per node: visits, running tasks, failure, interrupt, breakpoint, and on ``model``/``tools``
the wrapper stack (from the graph metadata), a live attempt badge built from ``attempt.*``
events, and the tool calls in flight.  Also the route just taken and an optional *moment* (a
scrubbed checkpoint's ``next`` nodes and pending interrupts) that replaces the live status.

Cost: a ``UsageLedger`` sums the model calls of every node (each visit, and the calls of a
subgraph it runs), priced with ``prices`` into the node's cost badge.  Loops: a
``loop.detected`` flags its node until the next run.

Listeners get a ``GraphChange`` naming the nodes that changed, so a view repaints only those.
Events from subgraphs (``ns != ""``) are ignored: their node names are not this graph's.  With
``path`` set (a subgraph opened from the Graph dock: the node names leading to it), only the
events of that subgraph count, every call of it together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.events import (
    SPAN_OPENERS,
    AttemptFinished,
    AttemptStarted,
    EventBase,
    InterruptRaised,
    InterruptResumed,
    LoopDetected,
    NodeFinished,
    NodeStarted,
    Route,
    RunFinished,
    ToolFinished,
    ToolStarted,
)
from engine.graph.drawing import DrawableGraph
from studio.models.event_summary import is_stop
from studio.models.graph_views import (
    Badge,
    GraphChange,
    LiveNode,
    Moment,
    NodeView,
    RouteTaken,
    Status,
    ToolCall,
    attempt_badge,
    attempt_head,
    short_middleware,
)
from studio.models.ns import ns_path
from studio.models.older_runs import OlderRuns
from studio.models.pricing import PriceTable, spend_text, spend_tooltip
from studio.models.undrawn_routes import END, UndrawnRoutes
from studio.models.usage_ledger import UsageLedger

__all__ = [
    "Badge",
    "GraphChange",
    "GraphStateModel",
    "Moment",
    "NodeView",
    "RouteTaken",
    "Status",
    "ToolCall",
    "attempt_badge",
    "ns_path",
    "short_middleware",
]

Listener = Callable[[GraphChange], None]


class GraphStateModel:
    def __init__(self, graph: DrawableGraph | None = None) -> None:
        self._graph = graph or DrawableGraph()
        self._live: dict[str, LiveNode] = {n: LiveNode() for n in self._graph.nodes}
        self._breakpoints: set[str] = set()
        self._route: RouteTaken | None = None
        self._undrawn = UndrawnRoutes(self._graph)
        self._moment: Moment | None = None
        self._listeners: list[Listener] = []
        self._by_kind: dict[str, str | None] = {}
        self.usage = UsageLedger()
        self.prices: PriceTable = PriceTable.builtin()
        self.earlier: OlderRuns | None = None
        """A session's older runs, left unloaded: their visits and model calls count with
        the events' (set by the Graph dock where they lie on the branch shown)."""

    # --- observers -------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self, change: GraphChange) -> None:
        for listener in list(self._listeners):
            listener(change)

    def _changed(self, *nodes: str, route: bool = False) -> None:
        self._notify(GraphChange(frozenset(n for n in nodes if n in self._live), route=route))

    # --- graph, run lifecycle, breakpoints, moments ------------------------------------------

    @property
    def graph(self) -> DrawableGraph:
        return self._graph

    def set_graph(self, graph: DrawableGraph) -> None:
        """Show another graph: live state is cleared, breakpoints on surviving nodes are kept."""
        self._graph = graph
        self._by_kind = {}
        self._breakpoints &= set(graph.nodes)
        self._undrawn = UndrawnRoutes(graph)
        self._clear()

    @property
    def settled(self) -> bool:
        """No node has a task or a tool call going on."""
        return not any(live.tasks or live.calls for live in self._live.values())

    def reset(self) -> None:
        """Forget the previous run (visits, route, failures, badges, moment); keep breakpoints."""
        self._clear()

    def _clear(self) -> None:
        self.usage.reset()
        self._live = {n: LiveNode() for n in self._graph.nodes}
        self._route = None
        self._moment = None
        self._notify(GraphChange(frozenset(self._live), route=True, everything=True))

    def set_prices(self, prices: PriceTable) -> None:
        """Price the nodes' model calls with ``prices`` (their badges change)."""
        self.prices = prices
        self._notify(GraphChange(frozenset(self._live)))

    @property
    def breakpoints(self) -> frozenset[str]:
        return frozenset(self._breakpoints)

    def set_breakpoint(self, node: str, enabled: bool) -> None:
        if node not in self._live or (node in self._breakpoints) == enabled:
            return
        if enabled:
            self._breakpoints.add(node)
        else:
            self._breakpoints.discard(node)
        self._changed(node)

    def toggle_breakpoint(self, node: str) -> bool:
        """Flip the breakpoint on ``node``; returns whether it is now set."""
        self.set_breakpoint(node, node not in self._breakpoints)
        return node in self._breakpoints

    @property
    def moment(self) -> Moment | None:
        return self._moment

    def show_moment(self, next_nodes: Iterable[str], interrupts: Iterable[str] = ()) -> None:
        """Show a scrubbed checkpoint: its ``next`` nodes pending, its interrupted nodes amber."""
        self._moment = Moment(tuple(next_nodes), tuple(interrupts))
        self._notify(GraphChange(frozenset(self._live)))

    def clear_moment(self) -> None:
        if self._moment is not None:
            self._moment = None
            self._notify(GraphChange(frozenset(self._live)))

    # --- queries ----------------------------------------------------------------------

    @property
    def last_route(self) -> RouteTaken | None:
        return self._route

    @property
    def undrawn_routes(self) -> list[tuple[str, str]]:
        """Routes runs took between drawn nodes that the drawing has no edge for, in the
        order first taken, kept across runs of the graph (``studio.models.undrawn_routes``)."""
        return list(self._undrawn.routes)

    @property
    def running_nodes(self) -> list[str]:
        return [n for n, live in self._live.items() if live.tasks]

    @property
    def failed_nodes(self) -> list[str]:
        return [n for n, live in self._live.items() if live.failed]

    @property
    def interrupted_nodes(self) -> list[str]:
        return [n for n, live in self._live.items() if live.interrupted]

    def set_earlier(self, older: OlderRuns | None) -> None:
        """Count ``older`` (a session's unloaded older runs) with the events, or stop."""
        if older is not self.earlier:
            self.earlier = older
            self._notify(GraphChange(frozenset(self._live)))

    def visits(self, node: str) -> int:
        if node not in self._live:
            return 0
        earlier = self.earlier
        before = earlier.node_visits(self.path, node) if earlier is not None else 0
        return self._live[node].visits + before

    def status(self, node: str) -> Status:
        live = self._live.get(node)
        if live is None:
            return "idle"
        if self._moment is not None:
            if node in self._moment.interrupts:
                return "interrupted"
            return "pending" if node in self._moment.next else self._visited(node)
        if live.failed:
            return "failed"
        if live.interrupted:
            return "interrupted"
        if live.tasks:
            return "running"
        return self._visited(node)

    def _visited(self, node: str) -> Status:
        return "visited" if self.visits(node) else "idle"

    def node(self, node: str) -> NodeView:
        live = self._live.get(node, LiveNode())
        meta = self._graph.nodes[node].metadata if node in self._graph.nodes else {}
        wrappers = tuple(short_middleware(str(w)) for w in meta.get("wrappers") or ())
        usage = self.usage.node(node, self.path)
        earlier = self.earlier.node_usage(self.path, node) if self.earlier is not None else None
        if earlier is not None:
            usage = earlier.merged(usage)
        spend = self.prices.spend(usage) if usage is not None else None
        return NodeView(
            id=node,
            status=self.status(node),
            visits=self.visits(node),
            breakpoint=node in self._breakpoints,
            wrappers=wrappers,
            badge=live.badge,
            tool_calls=tuple(live.calls.values()),
            error=live.error,
            retried_visits=tuple(live.retried_visits),
            cost=spend_text(spend) if spend is not None else "",
            cost_tip=spend_tooltip(spend, self.prices) if spend is not None else "",
            loop=live.loop,
        )

    def _kind_node(self, kind: str) -> str | None:
        """The first node of ``kind`` (the agent's ``model`` / ``tools``), cached per graph."""
        if kind not in self._by_kind:
            self._by_kind[kind] = next(
                (n.id for n in self._graph.nodes.values() if n.kind == kind), None
            )
        return self._by_kind[kind]

    # --- events -----------------------------------------------------------------------

    def apply_all(self, events: Iterable[EventBase]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: EventBase) -> None:
        if event.kind == "model.response" or event.kind in SPAN_OPENERS:
            self._count_usage(event)  # every graph's: a node's cost includes its subgraph's
        if (event.ns or self.path) and ns_path(event.ns) != self.path:
            return  # another graph's nodes (a subgraph's, or the parent's when one is shown)
        if isinstance(event, Route):
            grew = self._undrawn.take(event)
        else:
            grew = self._undrawn.pending and self._undrawn.settle()
        if grew:
            self._notify(GraphChange(edges=True))
        handler = _HANDLERS.get(type(event))
        if handler is None:
            handler = _HANDLERS[type(event)] = next(
                (h for cls, h in _HANDLED if isinstance(event, cls)), _ignore
            )
        handler(self, event)

    path: tuple[str, ...] = ()
    """The subgraph shown: node names from the root graph down (empty: the root graph)."""

    def _count_usage(self, ev: EventBase) -> None:
        changed = self.usage.add(ev)
        if not changed:
            return
        nodes = [
            where[1]
            for span in changed
            if (where := self.usage.node_of(span)) is not None and where[0] == self.path
        ]
        if nodes:
            self._changed(*nodes)

    def _on_loop(self, ev: LoopDetected) -> None:
        live = self._live.get(ev.node)
        if live is not None:
            live.loop = ev.detail or ev.loop
            self._changed(ev.node)

    def _on_node_started(self, ev: NodeStarted) -> None:
        live = self._live.get(ev.node)
        if live is None:
            return
        if ev.attempt <= 1:
            live.visits += 1
            live.badge = None
            live.calls.clear()
        if ev.task_id not in live.tasks:
            live.tasks.append(ev.task_id)
        live.failed, live.error, live.interrupted = False, None, False
        self._changed(ev.node)

    def _on_node_finished(self, ev: NodeFinished) -> None:
        live = self._live.get(ev.node)
        if live is None:
            return
        if ev.task_id in live.tasks:
            live.tasks.remove(ev.task_id)
        if ev.status == "error" and not is_stop(ev.error):  # a user's Stop is no failure
            live.failed = True
            live.error = f"{ev.error.type}: {ev.error.message}" if ev.error else "error"
        elif ev.status == "interrupted":
            live.interrupted = True
        if not live.tasks:
            live.calls.clear()
        self._changed(ev.node)

    def _on_route(self, ev: Route) -> None:
        targets = [*ev.to, *(str(s.get("node", "")) for s in ev.sends)]
        if ev.reason == "end" and not targets and END in self._live:
            targets = [END]  # the run ends here: its edge to END is the route taken
        old = self._route
        self._route = RouteTaken(ev.from_node, tuple(dict.fromkeys(t for t in targets if t)))
        touched = [ev.from_node, *self._route.to]
        if old is not None:
            touched += [old.from_node, *old.to]
        self._changed(*touched, route=True)

    def _on_interrupt(self, ev: InterruptRaised) -> None:
        if ev.node in self._live:
            self._live[ev.node].interrupted = True
            self._changed(ev.node)

    def _on_resumed(self, ev: InterruptResumed) -> None:
        nodes = [ev.node] if ev.node in self._live else self.interrupted_nodes
        for n in nodes:
            self._live[n].interrupted = False
        self._changed(*nodes)

    def _on_run_finished(self, ev: RunFinished) -> None:
        touched = [n for n, live in self._live.items() if live.tasks or live.calls]
        for n in touched:
            self._live[n].tasks.clear()
            self._live[n].calls.clear()
        if touched:
            self._changed(*touched)

    def _on_tool_started(self, ev: ToolStarted) -> None:
        node = self._kind_node("tools")
        if node is None:
            return
        key = ev.tool_call_id or f"{ev.tool}#{ev.seq}"
        self._live[node].calls[key] = ToolCall(key, ev.tool)
        self._changed(node)

    def _on_tool_finished(self, ev: ToolFinished) -> None:
        node = self._kind_node("tools")
        if node is None:
            return
        calls = self._live[node].calls
        key = ev.tool_call_id if ev.tool_call_id in calls else None
        if key is None:  # no id: the oldest call of that tool
            key = next(
                (k for k, c in calls.items() if c.tool == ev.tool and not ev.tool_call_id), None
            )
        if key is not None:
            del calls[key]
            self._changed(node)

    def _attempt_node(self, ev: AttemptStarted | AttemptFinished) -> str | None:
        tools = self._kind_node("tools")
        if tools is not None and (ev.tool or ev.tool_call_id):
            return tools
        model = self._kind_node("model")
        if tools is not None and model is not None:
            wraps_tools = ev.middleware in (self._graph.nodes[tools].metadata.get("wrappers") or ())
            wraps_model = ev.middleware in (self._graph.nodes[model].metadata.get("wrappers") or ())
            if wraps_tools and not wraps_model:
                return tools
        return model

    def _on_attempt_started(self, ev: AttemptStarted) -> None:
        node = self._attempt_node(ev)
        if node is None:
            return
        live = self._live[node]
        if ev.tool_call_id in live.calls:
            call = live.calls[ev.tool_call_id]
            live.calls[ev.tool_call_id] = ToolCall(
                call.tool_call_id, call.tool, ev.attempt, ev.max_attempts
            )
        if ev.attempt > 1:
            live.retried_visits.append(max(1, live.visits))
            live.badge = Badge(
                f"{attempt_head(ev.middleware, ev.attempt, ev.max_attempts)} - running", "info"
            )
        self._changed(node)

    def _on_attempt_finished(self, ev: AttemptFinished) -> None:
        node = self._attempt_node(ev)
        if node is None:
            return
        badge = attempt_badge(ev)
        if badge is not None:
            self._live[node].badge = badge
            self._changed(node)


def _ignore(_state: GraphStateModel, _event: EventBase) -> None:
    pass


_HANDLED: tuple[tuple[type, Callable[[GraphStateModel, Any], None]], ...] = (
    (NodeStarted, GraphStateModel._on_node_started),
    (NodeFinished, GraphStateModel._on_node_finished),
    (Route, GraphStateModel._on_route),
    (InterruptRaised, GraphStateModel._on_interrupt),
    (InterruptResumed, GraphStateModel._on_resumed),
    (RunFinished, GraphStateModel._on_run_finished),
    (ToolStarted, GraphStateModel._on_tool_started),
    (ToolFinished, GraphStateModel._on_tool_finished),
    (AttemptStarted, GraphStateModel._on_attempt_started),
    (AttemptFinished, GraphStateModel._on_attempt_finished),
    (LoopDetected, GraphStateModel._on_loop),
)
"""What ``apply`` does with each kind of event, first match (as the cases of a ``match``)."""
_HANDLERS: dict[type, Callable[[GraphStateModel, Any], None]] = {}
"""Event class -> its handler in ``_HANDLED`` (a lookup where a ``match`` of class patterns
tried an isinstance per case, for every event of a run)."""
