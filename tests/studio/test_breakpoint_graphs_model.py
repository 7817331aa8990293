"""The Graph dock's red dots per graph: a breakpoint set on the root graph's ``tools`` is not
one on the ``tools`` node of the agent ``research`` runs; one set on a node name in any graph
(the Breakpoints panel, an entrypoint's task drawn nowhere) shows in every graph."""

from __future__ import annotations

from studio.models.breakpoints import BreakpointsModel
from studio.models.hub import Hub
from studio.run.drawables import drawable_for
from tests.fixtures.two_work_nodes import two_work_nodes


def test_node_breakpoints_are_per_graph_and_any_graph_ones_show_everywhere() -> None:
    model = BreakpointsModel(Hub())
    assert model.toggle_node("tools", ()) is True
    assert model.node_breakpoints(()) == {"tools"}
    assert model.node_breakpoints(("research",)) == set()
    model.set_node("tools", True, ("research",))
    assert [(b.target, b.graph) for b in model.rows()] == [("tools", ()), ("tools", ("research",))]
    assert [b.describe() for b in model.rows()] == [
        "before node tools",
        "before node tools (in research)",
    ]
    assert model.toggle_node("tools", ("research",)) is False  # F9 again in the subgraph
    assert [(b.target, b.graph) for b in model.rows()] == [("tools", ())]

    model.set_node("forecast", True)  # in any graph
    assert model.node_breakpoints(()) == {"tools", "forecast"}
    assert model.node_breakpoints(("graph",)) == {"forecast"}
    model.set_node("forecast", False, ("graph",))  # unset where it shows: gone everywhere
    assert model.node_breakpoints(("graph",)) == set()
    model.set_node("tools", False)  # unset in any graph: every breakpoint on the name goes
    assert model.rows() == []


def test_the_panel_offers_the_nodes_of_subgraphs_and_adds_them_there() -> None:
    graph = two_work_nodes()
    hub = Hub()
    hub.graph, hub.drawable = graph, drawable_for(graph)
    model = BreakpointsModel(hub)

    assert model.choices("before_node") == ["inner", "work", "inner › work"]
    bp = model.add("before_node", "inner › work")
    assert (bp.target, bp.graph) == ("work", ("inner",))
    assert model.add("after_node", "work").graph is None  # typed plainly: any graph
    assert model.node_breakpoints(("inner",)) == {"work"}
    assert model.node_breakpoints(()) == set()
