"""A graph taller than the Graph dock (an agent with several middleware, at 1366x768) shows its
top; while a run goes on, the view follows the node that is running (or failed, or waiting),
unless the user has zoomed or scrolled."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, TypedDict

from pytestqt.qtbot import QtBot

from engine.events import EventBase
from engine.graph import END, START, StateGraph
from studio.docks.graph.view import GraphView
from studio.models.graph_state import GraphStateModel

NODES = [f"step_{i}" for i in range(12)]


class S(TypedDict, total=False):
    n: int


def _chain() -> Any:
    b = StateGraph(S)
    for name in NODES:
        b.add_node(name, lambda s: {"n": s.get("n", 0) + 1})
    b.add_edge(START, NODES[0])
    for a, c in itertools.pairwise(NODES):
        b.add_edge(a, c)
    b.add_edge(NODES[-1], END)
    return b.compile()


def _events(graph: Any) -> list[EventBase]:
    async def go() -> list[EventBase]:
        return [ev async for ev in graph.astream_events({"n": 0}, version="stepwise")]

    return asyncio.run(go())


def _until_started(events: list[EventBase], node: str) -> list[EventBase]:
    for i, ev in enumerate(events):
        if ev.kind == "node.started" and ev.__dict__.get("node") == node:
            return events[: i + 1]
    raise AssertionError(f"{node} never started")


def _shown(view: GraphView, node: str) -> bool:
    item = view.node_item(node)
    assert item is not None
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    return seen.contains(item.sceneBoundingRect())


def _view(qtbot: QtBot, graph: Any) -> GraphView:
    view = GraphView(GraphStateModel(graph.get_graph()))
    qtbot.addWidget(view)
    view.resize(420, 260)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_the_view_follows_the_running_node_down_a_tall_graph(qtbot: QtBot) -> None:
    graph = _chain()
    events = _events(graph)
    view = _view(qtbot, graph)
    assert not view.fits_whole_graph and _shown(view, NODES[0])
    assert not _shown(view, NODES[9])

    view.state.apply_all(_until_started(events, NODES[9]))
    qtbot.waitUntil(lambda: not view.has_pending_updates())
    assert view.node_item(NODES[9]).state.status == "running"  # type: ignore[union-attr]
    assert _shown(view, NODES[9])


def test_a_user_who_scrolled_keeps_their_place(qtbot: QtBot) -> None:
    graph = _chain()
    events = _events(graph)
    view = _view(qtbot, graph)
    view.zoom_out()  # the user took over the view
    view.zoom_in()
    before = view.mapToScene(view.viewport().rect()).boundingRect()
    view.state.apply_all(_until_started(events, NODES[9]))
    qtbot.waitUntil(lambda: not view.has_pending_updates())
    assert view.mapToScene(view.viewport().rect()).boundingRect() == before
