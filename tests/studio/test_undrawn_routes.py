"""Routes a run takes that the graph's drawing has no edge for (a node returning
``Command(goto=...)`` without a return annotation) are drawn in the Graph dock, dotted, from
the real run's events; attach mode's ambiguous routes (every writer of a step lists every next
node) never draw an edge from the wrong node."""

from __future__ import annotations

import asyncio
from itertools import count
from typing import Any, TypedDict

from pytestqt.qtbot import QtBot

from engine.events import CheckpointSaved, EventBase, Route
from engine.graph import END, START, StateGraph
from engine.graph.drawing import DrawableGraph
from engine.types import Command
from studio.docks.graph.view import GraphView
from studio.models.graph_state import GraphStateModel

_seq = count(1)


class S(TypedDict, total=False):
    n: int
    path: str


def _router(state: S) -> Command:  # no Command[Literal[...]] annotation: no edges drawn
    return Command(goto="big" if state["n"] > 10 else "small")


def _graph() -> Any:
    b = StateGraph(S)
    b.add_node("router", _router)
    b.add_node("big", lambda s: {"path": "big"})
    b.add_node("small", lambda s: {"path": "small"})
    b.add_node("report", lambda s: {"path": s["path"] + "!"})
    b.add_edge(START, "router")
    b.add_edge("big", "report")
    b.add_edge("small", "report")
    b.add_edge("report", END)
    return b.compile()


def _events(graph: Any, n: int) -> list[EventBase]:
    async def go() -> list[EventBase]:
        return [ev async for ev in graph.astream_events({"n": n}, version="stepwise")]

    return asyncio.run(go())


def _edges(drawing: DrawableGraph) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in drawing.edges}


def test_a_run_draws_the_routes_the_drawing_lacks_and_keeps_them_across_runs() -> None:
    graph = _graph()
    drawing = graph.get_graph()
    assert ("router", "small") not in _edges(drawing)  # as LangGraph draws it
    assert ("small", "report") in _edges(drawing)
    model = GraphStateModel(drawing)
    model.apply_all(_events(graph, 3))
    assert model.undrawn_routes == [("router", "small")]
    model.reset()  # a new run: what earlier runs showed stays
    model.apply_all(_events(graph, 30))
    assert model.undrawn_routes == [("router", "small"), ("router", "big")]
    model.set_graph(drawing)  # another graph (or a reload): forgotten
    assert model.undrawn_routes == []


def _route(step: int, source: str, *to: str) -> EventBase:
    return Route(run_id="r", seq=next(_seq), step=step, from_node=source, to=list(to))


def _saved(step: int) -> EventBase:
    return CheckpointSaved(run_id="r", seq=next(_seq), step=step, checkpoint_id=f"c{step}")


def test_a_step_whose_writers_all_list_every_next_node_draws_no_wrong_edge() -> None:
    drawing = DrawableGraph()
    for node in ("__start__", "a", "b", "c", "d", "e", "__end__"):
        drawing.add_node(node)
    drawing.add_edge("__start__", "a")
    drawing.add_edge("__start__", "b")
    drawing.add_edge("a", "c")  # b's route to d is not drawn, e is nobody's drawn target
    model = GraphStateModel(drawing)
    # attach mode: both writers of step 1 list both next nodes
    model.apply_all([_route(1, "a", "c", "d", "e"), _route(1, "b", "c", "d", "e"), _saved(1)])
    assert model.undrawn_routes == []
    # one writer: where it went is known
    model.apply_all([_route(2, "d", "e"), _saved(2)])
    assert model.undrawn_routes == [("d", "e")]
    # attach mode ends a run with a route to nowhere: its edge to END is the one taken
    end = Route(run_id="r", seq=next(_seq), step=3, from_node="e", reason="end")
    model.apply_all([end, _saved(3)])
    assert model.last_route is not None and model.last_route.to == ("__end__",)
    assert model.undrawn_routes == [("d", "e"), ("e", "__end__")]


def test_the_graph_dock_draws_an_undrawn_route_dotted_and_keeps_the_selection(
    qtbot: QtBot,
) -> None:
    graph = _graph()
    view = GraphView(GraphStateModel(graph.get_graph()))
    qtbot.addWidget(view)
    view.resize(600, 700)
    view.show()
    qtbot.waitExposed(view)
    view.select_node("report")
    assert view.edge_items("router", "small") == []

    view.state.apply_all(_events(graph, 3))
    qtbot.waitUntil(lambda: not view.has_pending_updates())

    [edge] = view.edge_items("router", "small")
    assert edge.observed and "Command(goto=...)" in edge.toolTip()
    assert [e.observed for e in view.edge_items("big", "report")] == [False]  # a drawn edge
    assert view.selected_node == "report"
    [end] = view.edge_items("report", "__end__")
    assert end.highlighted and not edge.highlighted  # the route the run ended on
