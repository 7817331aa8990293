"""The drawable shape of a compiled graph (``get_graph()``), its JSON forms and Mermaid export.

Available before any run, so a UI can draw the graph at once.  Node ``kind`` tells a viewer
what it is looking at: ``start``/``end``, a plain ``node``, a middleware ``hook`` node, the
agent's ``model`` and ``tools`` nodes (whose ``metadata["wrappers"]`` lists the
``wrap_model_call`` / ``wrap_tool_call`` middleware, outermost first), or a ``subgraph``.

Two JSON forms: ``to_json()`` is LangGraph's (``{"nodes": [{"id", "type", "data"}], "edges":
[...]}``, what tools that read LangGraph's graph JSON expect); ``to_dict()`` is ours, with
node kinds (what recordings keep; ``from_json`` reads both).  ``get_graph(xray=True)`` draws
subgraphs inside their node, their node ids prefixed ``"<node>:"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from engine.graph.run_path import RunPath

__all__ = ["ENGINE_METADATA", "DrawableGraph", "Edge", "Node"]

NodeKind = Literal["start", "end", "node", "hook", "model", "tools", "subgraph"]

ENGINE_METADATA = frozenset({"kind", "wrappers", "middleware", "hook", "functional"})
"""Node metadata the engine adds for viewers (not the user's ``add_node(metadata=...)``);
LangGraph's drawings do not show it."""

RUNNABLE_IDS: dict[str, tuple[str, ...]] = {
    "node": ("langgraph", "_internal", "_runnable", "RunnableCallable"),
    "subgraph": ("langgraph", "graph", "state", "CompiledStateGraph"),
    "tools": ("langgraph", "prebuilt", "tool_node", "ToolNode"),
}
"""How LangGraph's graph JSON names what runs a node (``data.id``), by our node kind."""


@dataclass
class Node:
    id: str
    name: str
    kind: NodeKind = "node"
    metadata: dict[str, Any] = field(default_factory=dict)
    data: Any = None
    """The runnable behind the node (not serialized)."""

    @property
    def user_metadata(self) -> dict[str, Any]:
        """The metadata LangGraph's drawings show: the user's, and a tool node's tools (as
        ``__tools``)."""
        out = {k: v for k, v in self.metadata.items() if k not in ENGINE_METADATA}
        if self.kind == "tools" and "tools" in out:
            out["__tools"] = out.pop("tools")
        return out


@dataclass
class Edge:
    """One edge, its fields in the order of LangChain's ``Edge`` (as a program prints it)."""

    source: str
    target: str
    data: str | None = None
    """Label (path-map key, or the routing function's name)."""
    conditional: bool = False


@dataclass
class DrawableGraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    name: str = "graph"

    def add_node(
        self, id: str, kind: NodeKind = "node", name: str | None = None, **metadata: Any
    ) -> Node:
        node = Node(id=id, name=name or id, kind=kind, metadata=metadata)
        self.nodes[id] = node
        return node

    def add_edge(
        self, source: str, target: str, *, conditional: bool = False, data: str | None = None
    ) -> None:
        edge = Edge(source, target, data, conditional)
        if edge not in self.edges:
            self.edges.append(edge)

    def remove_node(self, node_id: str) -> None:
        self.nodes.pop(node_id, None)
        self.edges = [e for e in self.edges if node_id not in (e.source, e.target)]

    # -- structure -------------------------------------------------------------------------

    def first_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The one node no edge leads to (None when there are none or several)."""
        targets = {e.target for e in self.edges if e.source not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The one node no edge leaves (None when there are none or several)."""
        sources = {e.source for e in self.edges if e.target not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Drop the first node when it has one way out and another node would be first."""
        first = self.first_node()
        if (
            first is not None
            and self.first_node(exclude=(first.id,)) is not None
            and len([e for e in self.edges if e.source == first.id]) == 1
        ):
            self.remove_node(first.id)

    def trim_last_node(self) -> None:
        """Drop the last node when it has one way in and another node would be last."""
        last = self.last_node()
        if (
            last is not None
            and self.last_node(exclude=(last.id,)) is not None
            and len([e for e in self.edges if e.target == last.id]) == 1
        ):
            self.remove_node(last.id)

    def inline(self, node_id: str, sub: DrawableGraph) -> None:
        """Draw ``sub`` in place of node ``node_id`` (``get_graph(xray=...)``): its nodes get
        ids ``"<node_id>:<id>"``; edges into the node go to the subgraph's first node, edges
        out of it leave from its last.  A subgraph without one first and one last node, or
        with a single node, stays a node."""
        if len(sub.nodes) <= 1 or node_id not in self.nodes:
            return
        if sub.first_node() is None or sub.last_node() is None:
            return
        sub.trim_first_node()
        sub.trim_last_node()
        first, last = sub.first_node(), sub.last_node()
        del self.nodes[node_id]

        def prefixed(i: str) -> str:
            return f"{node_id}:{i}"

        for n in sub.nodes.values():
            self.nodes[prefixed(n.id)] = replace(n, id=prefixed(n.id))
        for i, e in enumerate(self.edges):
            if e.source == node_id and last is not None:
                e = replace(e, source=prefixed(last.id))
            if e.target == node_id and first is not None:
                e = replace(e, target=prefixed(first.id))
            self.edges[i] = e
        self.edges += [
            replace(e, source=prefixed(e.source), target=prefixed(e.target)) for e in sub.edges
        ]

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """LangGraph's graph JSON (see the module docstring)."""
        nodes: list[dict[str, Any]] = []
        for n in self.nodes.values():
            item: dict[str, Any] = {"id": n.id}
            if n.kind != "end":  # the end runs nothing
                runnable = RUNNABLE_IDS.get(n.kind, RUNNABLE_IDS["node"])
                item["type"] = "runnable"
                item["data"] = {"id": list(runnable), "name": n.id}
            if n.user_metadata:
                item["metadata"] = n.user_metadata
            nodes.append(item)
        edges: list[dict[str, Any]] = []
        for e in self.edges:
            edge: dict[str, Any] = {"source": e.source, "target": e.target}
            if e.data is not None:
                edge["data"] = e.data
            if e.conditional:
                edge["conditional"] = True
            edges.append(edge)
        return {"nodes": nodes, "edges": edges}

    def to_dict(self) -> dict[str, Any]:
        """Our JSON form: names, kinds and all metadata (what recordings keep)."""
        return {
            "name": self.name,
            "nodes": [
                {"id": n.id, "name": n.name, "kind": n.kind, "metadata": n.metadata}
                for n in self.nodes.values()
            ],
            "edges": [  # in the order recordings keep
                {
                    "source": e.source,
                    "target": e.target,
                    "conditional": e.conditional,
                    "data": e.data,
                }
                for e in self.edges
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DrawableGraph:
        """A graph from ``to_dict()`` or from LangGraph's ``to_json()`` form."""
        g = cls(name=data.get("name", "graph"))
        for n in data.get("nodes", []):
            nid = str(n["id"])
            kind = n.get("kind") or _kind_of(nid, n)
            g.nodes[nid] = Node(nid, n.get("name", nid), kind, dict(n.get("metadata") or {}))
        for e in data.get("edges", []):
            g.edges.append(
                Edge(
                    str(e["source"]),
                    str(e["target"]),
                    e.get("data"),
                    bool(e.get("conditional", False)),
                )
            )
        return g

    from_dict = from_json

    # -- Mermaid ---------------------------------------------------------------------------

    def draw_mermaid(self, *, with_styles: bool = True, path: RunPath | None = None) -> str:
        """Mermaid flowchart text, laid out as LangGraph does (``drawing_mermaid``); with
        ``path`` (a run's ``RunPath``), the run is drawn on the graph."""
        from engine.graph.drawing_mermaid import draw_mermaid

        return draw_mermaid(self, with_styles=with_styles, path=path)

    def draw_mermaid_png(self, **kw: Any) -> bytes:
        """``draw_mermaid()`` rendered as a PNG, as LangGraph's ``get_graph()`` renders it
        (``engine.graph.drawing_render``: mermaid.ink by default, or ``draw_method=``)."""
        from engine.graph.drawing_render import draw_mermaid_png

        return draw_mermaid_png(self, **kw)

    def draw_ascii(self) -> str:
        """The graph as text art (needs langchain_core and grandalf, as LangGraph's)."""
        from engine.graph.drawing_render import draw_ascii

        return draw_ascii(self)

    def print_ascii(self) -> None:
        print(self.draw_ascii())


def _kind_of(node_id: str, item: dict[str, Any]) -> NodeKind:
    base = node_id.rsplit(":", 1)[-1]
    if base == "__start__":
        return "start"
    if base == "__end__":
        return "end"
    data = item.get("data")
    ident = data.get("id") if isinstance(data, dict) else None
    for kind, runnable in RUNNABLE_IDS.items():
        if ident == list(runnable) and kind != "node":
            return kind  # type: ignore[return-value]
    return "node"
