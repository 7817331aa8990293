"""The graphs inside a loaded graph: the subgraph a node runs (added as a node, or invoked from
its function), found by the node names that lead to it from the root (plain Python, no Qt).

The Graph dock opens them; the Breakpoints dock offers their nodes ("research › tools").
"""

from __future__ import annotations

from typing import Any

from engine.graph.drawing import DrawableGraph
from studio.models.hub import Hub

__all__ = ["PATH_SEP", "drawn_level", "level_at", "levels", "subgraph_in"]

PATH_SEP = " › "
"""Between the node names of a path as the studio writes it ("research › tools")."""
_DEPTH = 4
"""How deep ``nested_nodes`` looks (agents inside agents inside nodes are rarely deeper)."""


def subgraph_in(graph: Any, node: str) -> Any:
    """The compiled subgraph ``node`` of ``graph`` runs, or None."""
    spec = (getattr(graph, "nodes", None) or {}).get(node)
    found = getattr(spec, "subgraphs", None) or []
    return found[0] if found else None


def drawn_level(hub: Hub, path: tuple[str, ...]) -> DrawableGraph | None:
    """The drawing at ``path`` of a target that draws its subgraphs (a server's x-ray)."""
    if not path:
        return hub.drawable
    cut = getattr(hub.target, "subgraph_shape", None)
    return cut(path) if cut is not None else None


def level_at(hub: Hub, path: tuple[str, ...]) -> Any:
    """The compiled graph at ``path`` (the root for ``()``), or, for a target whose graph is
    not in this process (a server's), its drawing; None when the path leads nowhere."""
    graph = hub.graph
    if graph is None:
        return drawn_level(hub, path)
    for name in path:
        graph = subgraph_in(graph, name)
        if graph is None:
            return None
    return graph


def levels(hub: Hub) -> list[tuple[tuple[str, ...], DrawableGraph]]:
    """(path, drawing) of the loaded graph (``()``) and of every subgraph in it, depth first."""
    from studio.run.drawables import drawable_for

    out: list[tuple[tuple[str, ...], DrawableGraph]] = []

    def walk(path: tuple[str, ...], drawn: DrawableGraph | None) -> None:
        if drawn is None or len(path) > _DEPTH:
            return
        out.append((path, drawn))
        for node in drawn.nodes.values():
            if node.kind in ("start", "end"):
                continue
            inner = (*path, node.id)
            if hub.graph is None:
                if node.kind == "subgraph":
                    walk(inner, drawn_level(hub, inner))
                continue
            level = level_at(hub, inner)
            if level is not None:
                walk(inner, level if isinstance(level, DrawableGraph) else drawable_for(level))

    walk((), hub.drawable)
    return out
