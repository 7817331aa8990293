"""Where each node of an attached graph routed, read from the graph's own edges.

LangGraph streams, per superstep, the nodes that wrote and the nodes due next, not which
writer sent the run where.  Given the compiled graph's builder (its static edges, join edges,
conditional branches with their possible ends, and the ``Command`` destinations a node
declares), ``RouteBook.routes`` tells each writer's routes as the engine reports them:

- a static edge is a ``static`` route to its target, also when that target does not run next
  (a deferred node, a join still waiting for its other sources);
- a ``Command(goto=...)`` the node returned (``commands``) is a ``command`` route;
- a branch is a ``conditional`` route (``detail``: its name) to the nodes due next among its
  possible ends; a ``create_agent`` branch gets the engine's reason (``tool_calls``,
  ``no_tool_calls``, ``structured_response``, ``return_direct``);
- a graph a node function invokes (``agent.invoke(...)`` in the node's code) is known by what
  LangGraph finds the function reaching (``PregelNode.subgraphs``); when a node reaches several,
  the one whose nodes wrote is taken;
- a writer whose graph is not known here (a graph built inside a node) routes to every node due
  next, as before this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.serde import to_jsonable

__all__ = ["RouteBook", "RouteSpec", "command_targets"]

_END = "__end__"
_START = "__start__"


@dataclass(frozen=True)
class RouteSpec:
    """One route event's fields: ``to`` (node names), ``reason``, ``detail``, ``sends``."""

    to: list[str]
    reason: str
    detail: str = ""
    sends: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Shape:
    """One graph's routing: static targets, branches (name, possible ends or None for any
    node), declared ``Command`` destinations, per source node."""

    static: dict[str, tuple[str, ...]]
    branches: dict[str, tuple[tuple[str, tuple[str, ...] | None], ...]]
    command_ends: dict[str, tuple[str, ...]]
    subgraphs: dict[str, tuple[Any, ...]]
    """Per node, the graphs it runs: the compiled graph it is, or those its function invokes."""
    claimed: frozenset[str]
    """Every static edge's target: a branch without declared ends never routes to these."""
    order: Mapping[str, int]
    """The graph's nodes (and END), in the order they were added."""


def command_targets(output: Any) -> tuple[list[str], list[dict[str, Any]]] | None:
    """The nodes a node's return value sends the run to with ``Command(goto=...)`` (names, and
    ``Send`` packets as ``{"node", "arg"}``); None when it returned no such command (a
    ``Command.PARENT`` handoff is reported where it lands, not here)."""
    items = output if isinstance(output, (list, tuple)) else [output]
    to: list[str] = []
    sends: list[dict[str, Any]] = []
    found = False
    for item in items:
        if type(item).__name__ != "Command" or not hasattr(item, "goto"):
            continue
        if getattr(item, "graph", None) is not None:
            continue
        goto = item.goto
        targets = [goto] if isinstance(goto, str) or not isinstance(goto, Sequence) else goto
        for t in targets:
            if isinstance(t, str):
                if t:
                    to.append(t)
                    found = True
            elif type(t).__name__ == "Send" and hasattr(t, "node"):
                arg = to_jsonable(getattr(t, "arg", None), max_str=400)
                sends.append({"node": str(getattr(t, "node", "")), "arg": arg})
                found = True
    return (to, sends) if found else None


def _shape_of(graph: Any) -> _Shape | None:
    builder = getattr(graph, "builder", None)
    nodes = getattr(builder, "nodes", None)
    edges = getattr(builder, "edges", None)
    if not isinstance(nodes, Mapping) or edges is None:
        return None
    order = {name: i for i, name in enumerate(nodes)}
    order[_END] = len(order)
    static: dict[str, list[str]] = {}
    for start, end in edges:
        if start != _START:
            static.setdefault(str(start), []).append(str(end))
    for starts, end in getattr(builder, "waiting_edges", ()) or ():
        for start in starts:
            static.setdefault(str(start), []).append(str(end))
    branches: dict[str, tuple[tuple[str, tuple[str, ...] | None], ...]] = {}
    for source, specs in (getattr(builder, "branches", None) or {}).items():
        out = []
        for name, spec in specs.items():
            ends = getattr(spec, "ends", None)
            out.append((str(name), tuple(str(e) for e in ends.values()) if ends else None))
        branches[str(source)] = tuple(out)
    command_ends: dict[str, tuple[str, ...]] = {}
    subgraphs: dict[str, tuple[Any, ...]] = {}
    compiled = getattr(graph, "nodes", None)
    for name, spec in nodes.items():
        ends = getattr(spec, "ends", None)
        if isinstance(ends, Mapping):
            ends = tuple(ends)
        if ends:
            command_ends[str(name)] = tuple(str(e) for e in ends)
        runnable = getattr(spec, "runnable", None)
        if getattr(runnable, "builder", None) is not None:  # a compiled graph as the node
            subgraphs[str(name)] = (runnable,)
        elif isinstance(compiled, Mapping):  # graphs the node's function invokes
            found = getattr(compiled.get(name), "subgraphs", None) or ()
            called = tuple(g for g in found if getattr(g, "builder", None) is not None)
            if called:
                subgraphs[str(name)] = called
    return _Shape(
        {
            s: tuple(sorted(set(t), key=lambda n: order.get(n, len(order))))
            for s, t in static.items()
        },
        branches,
        command_ends,
        subgraphs,
        frozenset(t for ts in static.values() for t in ts),
        order,
    )


class RouteBook:
    """The routing of an attached graph and of the subgraphs its nodes are."""

    def __init__(self, graph: Any) -> None:
        self._graph = graph
        self._shapes: dict[tuple[str, ...], tuple[_Shape, ...]] = {}

    def shapes(self, ns: str) -> tuple[_Shape, ...]:
        """The routings graph ``ns`` may have (``""``: the root; ``"node:task|inner:task"``:
        a graph a node runs or invokes), none when it is not a known ``StateGraph``.  More
        than one when a node's function reaches several graphs (they share its namespace)."""
        path = tuple(part.split(":", 1)[0] for part in ns.split("|")) if ns else ()
        found = self._shapes.get(path)
        if found is not None:
            return found
        if not path:
            root = _shape_of(self._graph)
            found = (root,) if root is not None else ()
        else:
            found = tuple(
                shape
                for outer in self.shapes("|".join(path[:-1]))
                for sub in outer.subgraphs.get(path[-1], ())
                if (shape := _shape_of(sub)) is not None
            )
        self._shapes[path] = found
        return found

    def shape(self, ns: str, writers: Sequence[str] = ()) -> _Shape | None:
        """The routing of graph ``ns``: of the graphs it may be, the first whose nodes include
        ``writers``; None when none is known."""
        shapes = self.shapes(ns)
        for shape in shapes:
            if all(w in shape.order for w in writers):
                return shape
        return shapes[0] if shapes else None

    def routes(
        self,
        ns: str,
        writers: Sequence[str],
        nxt: Sequence[str],
        commands: Mapping[str, tuple[list[str], list[dict[str, Any]]]],
        values: Mapping[str, Any] | None = None,
    ) -> dict[str, list[RouteSpec]]:
        """Each writer's routes out of a superstep of graph ``ns`` whose checkpoint has
        ``nxt`` due next; ``commands``: the ``Command`` destinations writers returned."""
        shape = self.shape(ns, writers)
        out: dict[str, list[RouteSpec]] = {}
        for w in writers:
            if shape is None or not _known(shape, w, commands):
                out[w] = [_guess(nxt)]
                continue
            routes: list[RouteSpec] = []
            cmd = commands.get(w)
            if cmd is not None:
                routes.append(RouteSpec(list(cmd[0]), "command", sends=list(cmd[1])))
            elif w in shape.command_ends:  # returned a Command we did not see: its ends due next
                due = [n for n in nxt if n in shape.command_ends[w]]
                if due:
                    routes.append(RouteSpec(due, "command"))
            targets = shape.static.get(w, ())
            if targets == (_END,):
                routes.append(RouteSpec([], "end"))
            elif targets:
                routes.append(RouteSpec(list(targets), "static"))
            for name, ends in shape.branches.get(w, ()):
                routes.append(_branch(name, ends, nxt, shape, values))
            out[w] = routes or [_guess(nxt)]
        return out


def _known(shape: _Shape, w: str, commands: Mapping[str, Any]) -> bool:
    return w in shape.static or w in shape.branches or w in shape.command_ends or w in commands


def _guess(nxt: Sequence[str]) -> RouteSpec:
    """Every node due next (a graph not known here)."""
    return RouteSpec(list(nxt), "end" if not nxt else "conditional" if len(nxt) > 1 else "static")


def _branch(
    name: str,
    ends: tuple[str, ...] | None,
    nxt: Sequence[str],
    shape: _Shape,
    values: Mapping[str, Any] | None,
) -> RouteSpec:
    """A branch's route: the nodes due next it can reach (END when none is)."""
    if ends is None:
        due = [n for n in nxt if n not in shape.claimed]
    else:
        due = [n for n in nxt if n in ends]
    if not due and (ends is None or _END in ends):
        reason = _agent_reason(name, [_END], values)  # the engine's agent names END, too
        return RouteSpec([_END], reason, name) if reason else RouteSpec([], "end", name)
    return RouteSpec(due, _agent_reason(name, due, values) or "conditional", name)


def _agent_reason(name: str, to: Sequence[str], values: Mapping[str, Any] | None) -> str | None:
    """The engine's reason for a ``create_agent`` branch (LangChain names them so)."""
    if name not in ("model_to_tools", "tools_to_model", "model_to_model") or not to:
        return None
    leaving = all(t == _END or t.endswith(".after_agent") for t in to)
    if not leaving:
        return "tool_calls"
    structured = values is not None and values.get("structured_response") is not None
    if structured:
        return "structured_response"
    return "return_direct" if name == "tools_to_model" else "no_tool_calls"
