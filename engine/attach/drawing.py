"""Our ``DrawableGraph`` of a real LangGraph graph (what the studio's Graph dock draws)."""

from __future__ import annotations

from typing import Any

from engine.graph.drawing import DrawableGraph, NodeKind

__all__ = ["draw_real"]


def draw_real(graph: Any, name: str, wrappers: dict[str, list[str]] | None = None) -> DrawableGraph:
    """Our ``DrawableGraph`` of a real compiled graph's ``get_graph()`` (``wrappers``: each
    node's middleware layers, outermost first, shown on the agent's model and tool nodes)."""
    real = graph.get_graph()
    specs = getattr(graph, "nodes", None) or {}
    out = DrawableGraph(name=name)
    for nid, node in real.nodes.items():
        kind: NodeKind = "node"
        if nid == "__start__":
            kind = "start"
        elif nid == "__end__":
            kind = "end"
        elif nid == "tools":
            kind = "tools"
        elif nid == "model":
            kind = "model"
        elif "." in nid:
            kind = "hook"
        elif getattr(specs.get(nid), "subgraphs", None):  # runs a compiled graph: drill in
            kind = "subgraph"
        meta: dict[str, Any] = {}
        if kind in ("model", "tools"):
            meta["wrappers"] = list((wrappers or {}).get(nid, ()))
            tools = getattr(getattr(node, "data", None), "tools_by_name", None)
            if kind == "tools" and isinstance(tools, dict):
                meta["tools"] = list(tools)
        out.add_node(nid, kind, getattr(node, "name", nid) or nid, **meta)
    for e in real.edges:
        out.add_edge(
            e.source, e.target, conditional=bool(e.conditional),
            data=None if e.data is None else str(e.data),
        )  # fmt: skip
    return out
