"""A layered (Sugiyama-style) layout of a ``DrawableGraph``, in pure Python.

Steps: back edges (found by a DFS from START) are reversed; nodes get layers by longest path
(START on top, END alone at the bottom; labelled edges span two layers so their label sits on a
dummy of its own); long edges are split by dummies; a few barycenter sweeps reduce crossings;
x coordinates come from alternating neighbour-median sweeps, each layer solved exactly under
"keep order, keep spacing" constraints (pool-adjacent-violators).  Boxes and labels are items of
the layers, so by construction no two node boxes or edge labels overlap.  Output is
deterministic: it depends only on the order of nodes and edges in the graph.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from engine.graph.drawing import DrawableGraph
from studio.models.graph_content import (
    BoxMetrics,
    NodeContent,
    TextWidth,
    approx_text_width,
    label_size,
    measure_node,
    node_content,
)
from studio.models.graph_order import order_layers
from studio.models.graph_place import assign_x

__all__ = ["Cubic", "EdgeRoute", "GraphLayout", "LayoutOptions", "NodeBox", "Rect", "layout_graph"]

Point = tuple[float, float]
Cubic = tuple[Point, Point, Point, Point]


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def center(self) -> Point:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def intersects(self, other: Rect, margin: float = 0.0) -> bool:
        return (
            self.x < other.right + margin
            and other.x < self.right + margin
            and self.y < other.bottom + margin
            and other.y < self.bottom + margin
        )


@dataclass(frozen=True)
class NodeBox:
    id: str
    kind: str
    rect: Rect
    layer: int
    content: NodeContent


@dataclass(frozen=True)
class EdgeRoute:
    index: int
    """Position of the edge in ``graph.edges``."""
    source: str
    target: str
    conditional: bool
    label: str | None
    label_rect: Rect | None
    points: tuple[Point, ...]
    """The polyline from the source's port to the target's port (arrow at the last point)."""
    curves: tuple[Cubic, ...]
    """The same route as cubic Bézier segments, in drawing order."""
    back: bool = False
    """True for edges that go upwards (they close a cycle)."""


@dataclass(frozen=True)
class GraphLayout:
    nodes: dict[str, NodeBox]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float


@dataclass(frozen=True)
class LayoutOptions:
    metrics: BoxMetrics = field(default_factory=BoxMetrics)
    node_gap: float = 40.0
    """Horizontal space between two node boxes."""
    label_gap: float = 16.0
    dummy_gap: float = 18.0
    layer_gap: float = 46.0
    """Vertical space between two layers of nodes (label-only layers use less)."""
    thin_layer_gap: float = 22.0
    margin: float = 28.0
    port_spacing: float = 16.0
    loop_width: float = 28.0


_DUMMY_PLACES = ("source", "target", "after", "before", "split", "split_rev")
"""Initial orders tried by crossing reduction: a long edge's dummies sit next to its source,
next to its target, after or before all nodes of their layer, or back edges on one side and
forward edges on the other."""


@dataclass
class _Item:
    key: str
    kind: str  # node | dummy | label
    layer: int
    w: float
    h: float
    edge: int = -1
    x: float = 0.0


def label_of(graph: DrawableGraph, index: int) -> str | None:
    edge = graph.edges[index]
    return edge.data if edge.data and edge.data != edge.target else None


def layout_graph(
    graph: DrawableGraph,
    text_width: TextWidth = approx_text_width,
    options: LayoutOptions | None = None,
) -> GraphLayout:
    opt = options or LayoutOptions()
    ids = list(graph.nodes)
    edges = [
        (i, e.source, e.target)
        for i, e in enumerate(graph.edges)
        if e.source in graph.nodes and e.target in graph.nodes
    ]
    contents = {n: node_content(graph.nodes[n], opt.metrics) for n in ids}
    sizes = {n: measure_node(contents[n], text_width, opt.metrics) for n in ids}
    loops = [i for i, s, t in edges if s == t]
    loop_nth = {
        i: sum(1 for j in loops[:k] if graph.edges[j].source == graph.edges[i].source)
        for k, i in enumerate(loops)
    }
    loop_extra = {n: 0.0 for n in ids}
    for i in loops:
        src = graph.edges[i].source
        text = label_of(graph, i)
        lw = label_size(text, text_width, opt.metrics)[0] + 6 if text else 0.0
        reach = opt.loop_width * (0.8 + 0.2 * loop_nth[i])
        loop_extra[src] = max(loop_extra[src], reach * 1.1 + lw + 4)

    order, back = _dfs(graph, ids, [(i, s, t) for i, s, t in edges if s != t])
    dag = [(i, t, s) if i in back else (i, s, t) for i, s, t in edges if s != t]
    minlen = {i: 2 if label_of(graph, i) else 1 for i, _, _ in dag}
    layer = _layers(graph, ids, dag, minlen)

    items: dict[str, _Item] = {}
    for n in ids:
        w, h = sizes[n]
        items[n] = _Item(n, "node", layer[n], w + loop_extra[n], h)
    chains: dict[int, list[str]] = {}
    for i, s, t in dag:
        chain = [s]
        span = layer[t] - layer[s]
        text = label_of(graph, i)
        for k in range(1, span):
            key = f"\0{i}:{k}"
            if text and k == span // 2:
                w, h = label_size(text, text_width, opt.metrics)
                items[key] = _Item(key, "label", layer[s] + k, w, h, edge=i)
            else:
                items[key] = _Item(key, "dummy", layer[s] + k, 2.0, 0.0, edge=i)
            chain.append(key)
        chain.append(t)
        chains[i] = chain

    rank = {n: k for k, n in enumerate(order)}
    dag_order = [i for i, _, _ in dag]
    starts = [
        _initial_levels(items, chains, rank, dag_order, back, place) for place in _DUMMY_PLACES
    ]
    segments = [(c[k], c[k + 1], i) for i, c in chains.items() for k in range(len(c) - 1)]
    levels = order_layers(starts, segments)
    half = {"node": opt.node_gap / 2, "label": opt.label_gap / 2, "dummy": opt.dummy_gap / 2}
    widths = {k: it.w for k, it in items.items()}
    gaps = {k: half[it.kind] for k, it in items.items()}
    weights = {k: it.kind for k, it in items.items()}
    xs = assign_x(levels, segments, widths, gaps, weights)
    left = min((xs[k] - widths[k] / 2 for lv in levels for k in lv), default=0.0)
    for k, it in items.items():
        it.x = xs[k] - left + opt.margin

    tops, bottoms, y = [], [], opt.margin
    for li, lv in enumerate(levels):
        has_node = any(items[k].kind == "node" for k in lv)
        if li:
            prev_node = any(items[k].kind == "node" for k in levels[li - 1])
            y += opt.layer_gap if has_node and prev_node else opt.thin_layer_gap
        height = max((items[k].h for k in lv), default=0.0)
        tops.append(y)
        y += height
        bottoms.append(y)

    boxes: dict[str, NodeBox] = {}
    for n in ids:
        it = items[n]
        w, h = sizes[n]
        cy = (tops[it.layer] + bottoms[it.layer]) / 2
        x0 = it.x - it.w / 2
        boxes[n] = NodeBox(
            n, graph.nodes[n].kind, Rect(x0, cy - h / 2, w, h), it.layer, contents[n]
        )

    ports = _ports(chains, items, boxes, opt.port_spacing)
    routes: list[EdgeRoute] = []
    for i, _s, _t in edges:
        e = graph.edges[i]
        if e.source == e.target:
            routes.append(_self_loop(i, graph, boxes[e.source], text_width, opt, loop_nth[i]))
            continue
        routes.append(_route(i, graph, chains[i], items, boxes, ports, tops, bottoms, i in back))
    width = max((it.x + it.w / 2 for it in items.values()), default=0.0) + opt.margin
    height = (bottoms[-1] if bottoms else 0.0) + opt.margin
    return GraphLayout(boxes, tuple(routes), width, height)


def _dfs(
    graph: DrawableGraph, ids: list[str], edges: list[tuple[int, str, str]]
) -> tuple[list[str], set[int]]:
    """Discovery order and the indices of back edges, DFS from START nodes first."""
    out: dict[str, list[tuple[int, str]]] = {n: [] for n in ids}
    for i, s, t in edges:
        out[s].append((i, t))
    roots = [n for n in ids if graph.nodes[n].kind == "start"] + ids
    state: dict[str, int] = {}  # 1 = on stack, 2 = done
    order: list[str] = []
    back: set[int] = set()
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        order.append(root)
        stack = [(root, iter(out[root]))]
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            i, t = step
            if state.get(t) == 1:
                back.add(i)
            elif t not in state:
                state[t] = 1
                order.append(t)
                stack.append((t, iter(out[t])))
    return order, back


def _layers(
    graph: DrawableGraph, ids: list[str], dag: list[tuple[int, str, str]], minlen: dict[int, int]
) -> dict[str, int]:
    preds: dict[str, list[tuple[str, int]]] = {n: [] for n in ids}
    succs: dict[str, list[tuple[str, int]]] = {n: [] for n in ids}
    for i, s, t in dag:
        preds[t].append((s, minlen[i]))
        succs[s].append((t, minlen[i]))
    layer: dict[str, int] = {}
    indeg = {n: len(preds[n]) for n in ids}
    ready = [n for n in ids if indeg[n] == 0]
    while ready:
        n = ready.pop(0)
        layer[n] = max((layer[p] + m for p, m in preds[n]), default=0)
        for t, _ in succs[n]:
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    starts = [n for n in ids if graph.nodes[n].kind == "start"]
    ends = [n for n in ids if graph.nodes[n].kind == "end"]
    # sources other than START sit just above their first successor, below START
    for n in reversed([n for n in ids if not preds[n] and n not in starts and succs[n]]):
        layer[n] = max(1 if starts else 0, min(layer[t] - m for t, m in succs[n]))
    inner = [layer[n] for n in ids if n not in ends]
    bottom = max(inner, default=-1) + 1
    for n in ends:
        layer[n] = max(layer[n], bottom)
    return layer


def _initial_levels(
    items: dict[str, _Item],
    chains: dict[int, list[str]],
    rank: dict[str, int],
    dag_order: list[int],
    back: set[int],
    place: str,
) -> list[list[str]]:
    """Layers ordered by DFS discovery, dummies placed as ``place`` says."""
    key: dict[str, tuple[float, int]] = {}
    for n, r in rank.items():
        key[n] = (float(r), 0)
    for pos, i in enumerate(dag_order):
        src, dst = chains[i][0], chains[i][-1]
        side = -1.0 if i in back else 1e6
        at = {
            "source": rank[src] + 0.5,
            "target": rank[dst] + 0.5,
            "after": 1e6,
            "before": -1.0,
            "split": side,
            "split_rev": 1e6 - 1 - side,
        }
        for k in chains[i][1:-1]:
            key[k] = (at[place], pos)
    count = max((it.layer for it in items.values()), default=-1) + 1
    levels: list[list[str]] = [[] for _ in range(count)]
    for k in sorted(items, key=lambda k: key[k]):
        levels[items[k].layer].append(k)
    return levels


def _ports(
    chains: dict[int, list[str]], items: dict[str, _Item], boxes: dict[str, NodeBox], spacing: float
) -> dict[tuple[int, str], float]:
    """x of each edge's attachment point on the top/bottom side of its node boxes."""
    sides: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for i, chain in chains.items():
        sides.setdefault((chain[0], "bottom"), []).append((items[chain[1]].x, i))
        sides.setdefault((chain[-1], "top"), []).append((items[chain[-2]].x, i))
    ports: dict[tuple[int, str], float] = {}
    for (node, side), ends in sides.items():
        ends.sort()
        box = boxes[node].rect
        step = min(spacing, box.w * 0.7 / max(1, len(ends)))
        cx = box.center[0]
        for k, (_, i) in enumerate(ends):
            ports[(i, f"{node}/{side}")] = cx + (k - (len(ends) - 1) / 2) * step
    return ports


def _route(
    i: int,
    graph: DrawableGraph,
    chain: list[str],
    items: dict[str, _Item],
    boxes: dict[str, NodeBox],
    ports: dict[tuple[int, str], float],
    tops: list[float],
    bottoms: list[float],
    back: bool,
) -> EdgeRoute:
    src, dst = chain[0], chain[-1]
    pts: list[Point] = [(ports[(i, f"{src}/bottom")], boxes[src].rect.bottom)]
    label_rect = None
    for k in chain[1:-1]:
        it = items[k]
        pts += [(it.x, tops[it.layer]), (it.x, bottoms[it.layer])]
        if it.kind == "label":
            label_rect = Rect(it.x - it.w / 2, tops[it.layer], it.w, it.h)
    pts.append((ports[(i, f"{dst}/top")], boxes[dst].rect.y))
    curves: list[Cubic] = []
    for a, b in itertools.pairwise(pts):
        if a[0] == b[0]:
            curves.append((a, a, b, b))
        else:
            dy = (b[1] - a[1]) / 2
            curves.append((a, (a[0], a[1] + dy), (b[0], b[1] - dy), b))
    if back:
        pts.reverse()
        curves = [(d, c, b, a) for a, b, c, d in reversed(curves)]
    e = graph.edges[i]
    # drop zero-length pieces (empty dummy layers) so arrow directions stay defined
    curves = [c for c in curves if c[0] != c[3]]
    return EdgeRoute(
        i,
        e.source,
        e.target,
        e.conditional,
        label_of(graph, i),
        label_rect,
        tuple(pts),
        tuple(curves),
        back,
    )


def _self_loop(
    i: int, graph: DrawableGraph, box: NodeBox, text_width: TextWidth, opt: LayoutOptions, nth: int
) -> EdgeRoute:
    r = box.rect
    reach = opt.loop_width * (0.8 + 0.2 * nth)
    y0, y1 = r.y + min(8.0, r.h * 0.25), r.bottom - min(8.0, r.h * 0.25)
    start, end = (r.right, y0), (r.right, y1)
    # a cubic reaches ~3/4 of its control points' offset: the loop spans ``reach`` to the right
    curve: Cubic = (start, (r.right + reach * 1.4, y0 - 12), (r.right + reach * 1.4, y1 + 12), end)
    text = label_of(graph, i)
    label_rect = None
    if text:
        w, h = label_size(text, text_width, opt.metrics)
        label_rect = Rect(r.right + reach * 1.1 + 4, r.center[1] - h / 2 + nth * (h + 2), w, h)
    e = graph.edges[i]
    return EdgeRoute(
        i, e.source, e.target, e.conditional, text, label_rect, (start, end), (curve,), True
    )
