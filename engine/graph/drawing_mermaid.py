"""Mermaid text of a ``DrawableGraph``, laid out as LangGraph draws it.

- With styles: a front-matter block, one line per node (the start node ``([...]):::first``,
  the end ``([...]):::last``, a node's own metadata under its name), then the edges, then
  the class definitions.  Without styles: ``graph TD;`` and the edges only.
- Ids keep ``[A-Za-z0-9_-]`` and write any other character as ``\\<hex>``; names that start
  and end with ``*``, ``_`` or a backtick are wrapped in ``<p>`` so Mermaid shows them as is.
- Edges are grouped by the id prefix their ends share (``"sub:a" -> "sub:b"`` is inside
  ``subgraph sub``): the top-level edges first, in graph order, then each subgraph's block
  (nested blocks inside), then self-loops.  Solid ``-->`` static, dashed ``-.->``
  conditional, a label between ``&nbsp;`` when the edge has one.
- With a ``RunPath``: nodes the run visited say how often ("model ×3") and stand out, the
  others are faded, edges it took are thick and say how often.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.graph.drawing import DrawableGraph, Edge, Node
    from engine.graph.run_path import RunPath

__all__ = ["draw_mermaid"]

_MARKDOWN = "*_`"
_LABEL_ESCAPES = {
    "[": "#91;",
    "]": "#93;",
    "(": "#40;",
    ")": "#41;",
    "{": "#123;",
    "}": "#125;",
    '"': "#quot;",
    "<": "#60;",
    ">": "#62;",
    "|": "#124;",
}
_STYLES = [
    "\tclassDef default fill:#f2f0ff,line-height:1.2",
    "\tclassDef first fill-opacity:0",
    "\tclassDef last fill:#bfb6fc",
]
_PATH_STYLES = [
    "\tclassDef visited fill:#dbeafe,stroke:#2563eb,stroke-width:2px",
    "\tclassDef skipped fill:#f4f4f5,stroke:#d4d4d8,color:#a1a1aa",
]


def mermaid_id(node_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", lambda m: f"\\{ord(m.group()):x}", node_id)


def _escape(text: str) -> str:
    text = text.replace("#", "#35;")
    for char, entity in _LABEL_ESCAPES.items():
        text = text.replace(char, entity)
    return text


def _metadata_value(value: Any) -> str | None:
    scalars = (str, int, float, bool)
    if isinstance(value, scalars):
        return str(value)
    if isinstance(value, list | tuple | set) and all(isinstance(v, scalars) for v in value):
        items = [str(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set) else items)
    return None


class _Writer:
    def __init__(self, graph: DrawableGraph, with_styles: bool, path: RunPath | None) -> None:
        self.graph = graph
        self.with_styles = with_styles
        self.path = path
        self.lines: list[str] = []
        self.links = 0
        self.taken: list[int] = []
        first, last = graph.first_node(), graph.last_node()
        self.first = first.id if first is not None and first.kind == "start" else None
        self.last = last.id if last is not None and last.kind == "end" else None

    def node(self, n: Node) -> None:
        name = n.name.split(":")[-1]
        label = f"<p>{name}</p>" if name[:1] in _MARKDOWN and name[-1:] in _MARKDOWN else name
        lines = [
            _escape(f"{k} = {v}")
            for k, value in n.user_metadata.items()
            if (v := _metadata_value(value)) is not None
        ]
        if lines and self.path is None:  # a run drawn on the graph shows counts instead
            label = f"{label}<hr/><small><em>" + "\n".join(lines) + "</em></small>"
        mid = mermaid_id(n.id)
        if n.id == self.first:
            self.lines.append(f"\t{mid}([{label}]):::first")
        elif n.id == self.last:
            self.lines.append(f"\t{mid}([{label}]):::last")
        elif self.path is not None and n.kind not in ("start", "end"):
            runs = self.path.visits.get(n.id, 0)
            shown = (f"{label} ×{runs}" if runs else label).replace('"', "'")
            self.lines.append(f'\t{mid}("{shown}"):::{"visited" if runs else "skipped"}')
        else:
            self.lines.append(f"\t{mid}({label})")

    def edge(self, e: Edge) -> None:
        label = e.data.replace('"', "'") if e.data and e.data != e.target else ""
        times = self.path.taken.get((e.source, e.target), 0) if self.path else 0
        if times:
            self.taken.append(self.links)
            label = f"{label} ×{times}".strip()
        if label:
            words = label.split()
            if len(words) > 9:
                label = "&nbsp<br>&nbsp".join(
                    " ".join(words[i : i + 9]) for i in range(0, len(words), 9)
                )
            arrow = (
                f"-. &nbsp;{label}&nbsp; .->" if e.conditional else f"-- &nbsp;{label}&nbsp; -->"
            )
        else:
            arrow = "-.->" if e.conditional else "-->"
        self.lines.append(f"\t{mermaid_id(e.source)} {arrow} {mermaid_id(e.target)};")
        self.links += 1


def _common_prefix(e: Edge) -> str:
    src, tgt = e.source.split(":"), e.target.split(":")
    return ":".join(a for a, b in zip(src, tgt, strict=False) if a == b)


def draw_mermaid(
    graph: DrawableGraph, *, with_styles: bool = True, path: RunPath | None = None
) -> str:
    w = _Writer(graph, with_styles, path)
    if with_styles:
        w.lines += ["---", "config:", "  flowchart:", "    curve: linear", "---"]
    w.lines.append("graph TD;")
    in_sub: dict[str, list[Node]] = {}
    for n in graph.nodes.values():
        if ":" in n.id:
            in_sub.setdefault(n.id.rsplit(":", 1)[0], []).append(n)
        elif with_styles:
            w.node(n)
    groups: dict[str, list[Edge]] = {}
    for e in graph.edges:
        groups.setdefault(_common_prefix(e), []).append(e)
    seen: set[str] = set()

    def block(edges: list[Edge], prefix: str) -> None:
        loop = len(edges) == 1 and edges[0].source == edges[0].target
        if prefix and not loop:
            name = prefix.rsplit(":", 1)[-1]
            if name in seen:
                raise ValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that you're "
                    "reusing a subgraph node with the same name. Please adjust your graph to "
                    "have subgraph nodes with unique names."
                )
            seen.add(name)
            w.lines.append(f"\tsubgraph {name}")
            if with_styles:
                for n in in_sub.get(prefix, []):
                    w.node(n)
        for e in edges:
            w.edge(e)
        for nested, nested_edges in groups.items():
            if not nested.startswith(prefix + ":") or ":" in nested[len(prefix) + 1 :]:
                continue
            block(nested_edges, nested)
        if prefix and not loop:
            w.lines.append("\tend")

    block(groups.get("", []), "")
    for prefix, edges in groups.items():
        if prefix and ":" not in prefix:
            block(edges, prefix)
            seen.add(prefix)
    if with_styles:
        for prefix, nodes in in_sub.items():
            if ":" not in prefix and prefix not in seen:
                w.lines.append(f"\tsubgraph {prefix}")
                for n in nodes:
                    w.node(n)
                w.lines.append("\tend")
                seen.add(prefix)
        w.lines += _STYLES
        if path is not None:
            w.lines += _PATH_STYLES
            if w.taken:
                w.lines.append(
                    f"\tlinkStyle {','.join(map(str, w.taken))} stroke:#2563eb,stroke-width:3px"
                )
    return "\n".join(w.lines) + "\n"
