"""The layered graph layout: no overlaps, START on top / END at the bottom, cycles, determinism."""

from __future__ import annotations

import itertools

import pytest

from engine.graph.drawing import DrawableGraph
from studio.models.graph_content import approx_text_width
from studio.models.graph_layout import GraphLayout, Rect, layout_graph
from tests.studio.graph_samples import (
    cycle_graph,
    demo_graph,
    plain_graph,
    twelve_middleware_graph,
)


def fan_graph() -> DrawableGraph:
    """One router with six labelled conditional branches that all rejoin: many labels per layer."""
    g = DrawableGraph(name="fan")
    g.add_node("__start__", "start")
    g.add_node("router")
    g.add_node("merge")
    g.add_node("__end__", "end")
    g.add_edge("__start__", "router")
    for k in range(6):
        g.add_node(f"worker_{k}")
        g.add_edge("router", f"worker_{k}", conditional=True, data=f"route_to_worker_number_{k}")
        g.add_edge(f"worker_{k}", "merge")
    g.add_edge("merge", "router", conditional=True, data="again")
    g.add_edge("merge", "__end__", conditional=True, data="done")
    return g


GRAPHS = {
    "demo": demo_graph,
    "twelve": twelve_middleware_graph,
    "plain": plain_graph,
    "cycle": cycle_graph,
    "fan": fan_graph,
}


def _rects(layout: GraphLayout) -> tuple[list[tuple[str, Rect]], list[tuple[str, Rect]]]:
    nodes = [(n, b.rect) for n, b in layout.nodes.items()]
    labels = [(f"{e.source}->{e.target}", e.label_rect) for e in layout.edges if e.label_rect]
    return nodes, labels


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_no_overlapping_boxes_or_labels(name: str) -> None:
    layout = layout_graph(GRAPHS[name]())
    nodes, labels = _rects(layout)
    for (a, ra), (b, rb) in itertools.combinations(nodes, 2):
        assert not ra.intersects(rb, margin=10), f"nodes {a} and {b} overlap"
    for (a, ra), (b, rb) in itertools.combinations(labels, 2):
        assert not ra.intersects(rb, margin=2), f"labels {a} and {b} overlap"
    for (a, ra), (b, rb) in itertools.product(labels, nodes):
        assert not ra.intersects(rb, margin=2), f"label {a} overlaps node {b}"


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_everything_inside_the_canvas(name: str) -> None:
    layout = layout_graph(GRAPHS[name]())
    nodes, labels = _rects(layout)
    for _, r in nodes + labels:
        assert r.x >= 0 and r.y >= 0 and r.right <= layout.width and r.bottom <= layout.height
    for e in layout.edges:
        for x, y in e.points:
            assert 0 <= x <= layout.width and 0 <= y <= layout.height


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_start_on_top_end_at_the_bottom(name: str) -> None:
    layout = layout_graph(GRAPHS[name]())
    start, end = layout.nodes["__start__"], layout.nodes["__end__"]
    others = [b for n, b in layout.nodes.items() if n not in ("__start__", "__end__")]
    assert all(start.rect.bottom < b.rect.y for b in others)
    assert all(end.rect.y > b.rect.bottom for b in others)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_every_edge_runs_from_its_source_to_its_target(name: str) -> None:
    graph = GRAPHS[name]()
    layout = layout_graph(graph)
    assert [(e.source, e.target) for e in layout.edges] == [
        (e.source, e.target) for e in graph.edges
    ]
    for e in layout.edges:
        src, dst = layout.nodes[e.source].rect, layout.nodes[e.target].rect
        first, last = e.points[0], e.points[-1]
        assert src.x <= first[0] <= src.right + 1 and src.y <= first[1] <= src.bottom
        assert dst.x <= last[0] <= dst.right + 1 and dst.y <= last[1] <= dst.bottom
        assert e.curves and e.curves[0][0] == first and e.curves[-1][3] == last
        for a, b in itertools.pairwise(e.curves):
            assert a[3] == b[0], "curve pieces are continuous"
        if e.source != e.target:
            ys = [p[1] for p in e.points]
            assert ys == sorted(ys, reverse=e.back), "forward edges go down, back edges go up"


def test_intermediate_route_points_avoid_other_nodes() -> None:
    layout = layout_graph(twelve_middleware_graph())
    for e in layout.edges:
        for x, y in e.points[1:-1]:
            for n, b in layout.nodes.items():
                r = b.rect
                inside = r.x < x < r.right and r.y < y < r.bottom
                assert not inside, f"{e.source}->{e.target} passes through {n}"


def test_cycles_are_drawn_with_back_edges() -> None:
    layout = layout_graph(cycle_graph())
    back = {(e.source, e.target) for e in layout.edges if e.back}
    assert back == {("critique", "write"), ("critique", "plan"), ("polish", "polish")}
    for e in layout.edges:
        if not e.back:
            assert layout.nodes[e.source].layer < layout.nodes[e.target].layer
    loop = next(e for e in layout.edges if e.source == e.target == "polish")
    assert loop.label == "again" and loop.label_rect is not None
    assert loop.label_rect.x > layout.nodes["polish"].rect.right


def test_agent_loop_back_edge_and_layers() -> None:
    layout = layout_graph(demo_graph())
    layers = {n: b.layer for n, b in layout.nodes.items()}
    assert layers == {"__start__": 0, "model": 1, "tools": 2, "__end__": 3}
    tools_to_model = next(e for e in layout.edges if (e.source, e.target) == ("tools", "model"))
    model_to_tools = next(e for e in layout.edges if (e.source, e.target) == ("model", "tools"))
    assert tools_to_model.back and not model_to_tools.back
    assert tools_to_model.points[0][0] != model_to_tools.points[-1][0], (
        "the two edges use separate ports"
    )


def test_twelve_middleware_agent_is_readable() -> None:
    graph = twelve_middleware_graph()
    layout = layout_graph(graph)
    assert len(layout.nodes) == 13
    layers = sorted({b.layer for b in layout.nodes.values()})
    assert layers == list(range(len(layers)))
    # the main spine (START -> before hooks -> model -> after hooks) runs straight down
    spine = [
        "__start__",
        *[n for n in graph.nodes if n.endswith(("before_agent", "before_model"))],
        "model",
    ]
    spine += [n for n in graph.nodes if n.endswith("after_model")]
    xs = [layout.nodes[n].rect.center[0] for n in spine]
    assert max(xs) - min(xs) < 80
    assert layout.width < 900
    # the wrapper onion is listed in the model box, outermost first, without the suffix
    assert layout.nodes["model"].content.wrappers == (
        "ContextEditing",
        "LLMToolSelector",
        "ModelRetry",
        "ModelFallback",
    )
    hook = layout.nodes["TodoListMiddleware.after_model"].content
    assert (hook.title, hook.subtitle) == ("after_model", "TodoList")


def test_labelled_edges_get_a_label_slot_between_the_nodes() -> None:
    layout = layout_graph(plain_graph())
    for e in layout.edges:
        if e.label:
            assert e.label_rect is not None
            assert (
                layout.nodes[e.source].rect.bottom < e.label_rect.y < layout.nodes[e.target].rect.y
            )
    unlabeled = next(e for e in layout.edges if (e.source, e.target) == ("a", "b"))
    assert unlabeled.label is None and unlabeled.label_rect is None


def test_node_size_follows_the_text_width_function() -> None:
    graph = plain_graph()
    graph.add_node("a_node_with_a_really_long_descriptive_name")
    graph.add_edge("e", "a_node_with_a_really_long_descriptive_name")
    narrow = layout_graph(graph)
    wide = layout_graph(graph, lambda text, role: 2 * approx_text_width(text, role))
    name = "a_node_with_a_really_long_descriptive_name"
    assert wide.nodes[name].rect.w > narrow.nodes[name].rect.w > narrow.nodes["a"].rect.w
    nodes, _ = _rects(wide)
    for (_, ra), (_, rb) in itertools.combinations(nodes, 2):
        assert not ra.intersects(rb)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_layout_is_deterministic(name: str) -> None:
    graph = GRAPHS[name]()
    first = layout_graph(graph)
    assert layout_graph(graph) == first
    assert layout_graph(DrawableGraph.from_json(graph.to_json())) == first


def test_dangling_edges_and_empty_graphs() -> None:
    assert layout_graph(DrawableGraph()).nodes == {}
    g = DrawableGraph()
    g.add_node("only")
    g.add_edge("only", "missing")
    layout = layout_graph(g)
    assert list(layout.nodes) == ["only"] and layout.edges == ()
