"""The drawable shape of a compiled graph (``get_graph()``) and its Mermaid export.

Available before any run, so a UI can draw the graph at once.  Node ``kind`` tells a viewer
what it is looking at: ``start``/``end``, a plain ``node``, a middleware ``hook`` node, the
agent's ``model`` and ``tools`` nodes (whose ``metadata["wrappers"]`` lists the
``wrap_model_call`` / ``wrap_tool_call`` middleware, outermost first), or a ``subgraph``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from engine.graph.run_path import RunPath

__all__ = ["DrawableGraph", "Edge", "Node"]

NodeKind = Literal["start", "end", "node", "hook", "model", "tools", "subgraph"]


@dataclass
class Node:
    id: str
    name: str
    kind: NodeKind = "node"
    metadata: dict[str, Any] = field(default_factory=dict)
    data: Any = None
    """The runnable behind the node (not serialized)."""


@dataclass
class Edge:
    source: str
    target: str
    conditional: bool = False
    data: str | None = None
    """Label (path-map key, or the routing function's name)."""


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
        edge = Edge(source, target, conditional, data)
        if edge not in self.edges:
            self.edges.append(edge)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": [
                {"id": n.id, "name": n.name, "kind": n.kind, "metadata": n.metadata}
                for n in self.nodes.values()
            ],
            "edges": [asdict(e) for e in self.edges],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DrawableGraph:
        g = cls(name=data.get("name", "graph"))
        for n in data.get("nodes", []):
            g.nodes[n["id"]] = Node(
                n["id"], n.get("name", n["id"]), n.get("kind", "node"), n.get("metadata", {})
            )
        for e in data.get("edges", []):
            g.edges.append(
                Edge(e["source"], e["target"], e.get("conditional", False), e.get("data"))
            )
        return g

    def draw_mermaid(self, *, with_styles: bool = True, path: RunPath | None = None) -> str:
        """Mermaid flowchart text: static edges solid (``-->``), conditional dashed (``-.->``).

        Laid out as LangGraph does: nodes in order (end last), edges sorted by source and
        target with plain edges into the end last; ids escape other characters than
        ``[A-Za-z0-9_-]`` as ``\\<hex>``.

        With ``path`` (a run's ``RunPath``), the run is drawn on the graph: nodes it ran say
        how often ("model ×3") and stand out, nodes it skipped are faded, edges it took are
        thick and say how often."""
        lines = ["---", "config:", "  flowchart:", "    curve: linear", "---", "graph TD;"]
        nodes = sorted(self.nodes.values(), key=lambda n: n.kind == "end")
        for n in nodes:
            mid = _mermaid_id(n.id)
            label = n.name
            if label[:1] in _MARKDOWN and label[-1:] in _MARKDOWN:
                label = f"<p>{label}</p>"
            if n.kind == "start":
                lines.append(f"\t{mid}([{label}]):::first")
            elif n.kind == "end":
                lines.append(f"\t{mid}([{label}]):::last")
            elif path:
                runs = path.visits.get(n.id, 0)
                shown = (f"{label} ×{runs}" if runs else label).replace('"', "'")
                lines.append(f'\t{mid}("{shown}"):::{"visited" if runs else "skipped"}')
            else:
                lines.append(f"\t{mid}({label})")
        taken_links: list[int] = []
        for i, e in enumerate(sorted(self.edges, key=_edge_order)):
            arrow = "-.->" if e.conditional else "-->"
            src, dst = _mermaid_id(e.source), _mermaid_id(e.target)
            label = e.data.replace('"', "'") if e.data and e.data != e.target else ""
            times = path.taken.get((e.source, e.target), 0) if path else 0
            if times:
                taken_links.append(i)
                label = f"{label} ×{times}".strip()
            if label:
                arrow = (
                    f"-. &nbsp;{label}&nbsp; .->"
                    if e.conditional
                    else f"-- &nbsp;{label}&nbsp; -->"
                )
            lines.append(f"\t{src} {arrow} {dst};")
        if with_styles:
            lines += [
                "\tclassDef default fill:#f2f0ff,line-height:1.2",
                "\tclassDef first fill-opacity:0",
                "\tclassDef last fill:#bfb6fc",
            ]
            if path:
                lines += [
                    "\tclassDef visited fill:#dbeafe,stroke:#2563eb,stroke-width:2px",
                    "\tclassDef skipped fill:#f4f4f5,stroke:#d4d4d8,color:#a1a1aa",
                ]
                if taken_links:
                    links = ",".join(str(i) for i in taken_links)
                    lines.append(f"\tlinkStyle {links} stroke:#2563eb,stroke-width:3px")
        return "\n".join(lines) + "\n"


_MARKDOWN = "*_`"


def _edge_order(e: Edge) -> tuple[bool, str, str, bool, str]:
    into_end = e.target == "__end__" and not e.conditional
    return (into_end, e.source, e.target, e.conditional, e.data or "")


def _mermaid_id(node_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", lambda m: f"\\{ord(m.group()):x}", node_id)
