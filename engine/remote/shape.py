"""The graph a server draws (``GET /assistants/{id}/graph``) as our ``DrawableGraph``.

The server answers ``{"nodes": [{"id", "type", "data": {"name"}}], "edges": [{"source",
"target", "conditional"?, "data"?}]}``.  With ``xray`` it expands each subgraph node into its
own nodes, named ``parent:child``; without it a subgraph is one node.  Node kinds follow what
the rest of Stepwise draws: ``start`` / ``end``, the agent's ``model`` and ``tools``, hook
nodes of LangChain v1 middleware (``Name.before_model``), ``subgraph`` for a node that x-ray
expands, ``node`` otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.graph.drawing import DrawableGraph, NodeKind

__all__ = ["drawable_from_server", "root_nodes"]

_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")


def _kind(node_id: str, subgraphs: set[str]) -> NodeKind:
    leaf = node_id.rsplit(":", 1)[-1]
    if node_id == "__start__" or leaf == "__start__":
        return "start"
    if node_id == "__end__" or leaf == "__end__":
        return "end"
    if node_id in subgraphs:
        return "subgraph"
    if leaf == "model":
        return "model"
    if leaf == "tools":
        return "tools"
    if "." in leaf and leaf.rpartition(".")[2] in _HOOKS:
        return "hook"
    return "node"


def _label(node: Mapping[str, Any]) -> str:
    data = node.get("data")
    node_id = str(node.get("id"))
    if isinstance(data, Mapping) and isinstance(data.get("name"), str):
        name = str(data["name"])
    else:
        name = node_id
    return name.rsplit(":", 1)[-1] if ":" in name else name


def drawable_from_server(
    data: Mapping[str, Any], name: str, *, expanded: Mapping[str, Any] | None = None
) -> DrawableGraph:
    """Our drawing of the server's graph JSON ``data``.

    ``expanded``: the x-ray answer for the same assistant, used to tell which nodes of a plain
    answer are subgraphs."""
    subgraphs: set[str] = set()
    if expanded is not None:
        for node in expanded.get("nodes") or ():
            node_id = str(node.get("id") or "")
            if ":" in node_id:
                subgraphs.add(node_id.split(":", 1)[0])
    out = DrawableGraph(name=name)
    for node in data.get("nodes") or ():
        node_id = str(node.get("id") or "")
        if not node_id:
            continue
        meta: dict[str, Any] = {}
        if ":" in node_id:
            meta["subgraph"] = node_id.rsplit(":", 1)[0]
        out.add_node(node_id, _kind(node_id, subgraphs), _label(node), **meta)
    for edge in data.get("edges") or ():
        src, dst = str(edge.get("source") or ""), str(edge.get("target") or "")
        if src in out.nodes and dst in out.nodes:
            label = edge.get("data")
            out.add_edge(
                src,
                dst,
                conditional=bool(edge.get("conditional")),
                data=None if label is None else str(label),
            )
    return out


def root_nodes(graph: DrawableGraph) -> list[str]:
    """The root graph's own nodes (what ``interrupt_before`` / ``interrupt_after`` can name)."""
    return [
        n.id for n in graph.nodes.values() if n.kind not in ("start", "end") and ":" not in n.id
    ]
