"""The Graph dock opens a subgraph: a double-click on the node that runs it shows the
subgraph's own nodes, lit by the subgraph's own events; the bar above leads back."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from PySide6.QtCore import Qt

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from studio.docks.graph.panel import GraphPanel
from studio.models.hub import Hub
from tests.studio.test_graph_view import node_point


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def build() -> Any:
    inner = StateGraph(State)
    inner.add_node("draft", lambda s: {"log": ["draft"]})
    inner.add_node("check", lambda s: {"log": ["check"]})
    inner.add_edge(START, "draft")
    inner.add_edge("draft", "check")
    outer = StateGraph(State)
    outer.add_node("plan", lambda s: {"log": ["plan"]})
    outer.add_node("write", inner.compile())
    outer.add_edge(START, "plan")
    outer.add_edge("plan", "write")
    return outer.compile(checkpointer=InMemorySaver())


def test_double_click_opens_the_subgraph_and_back_returns(qtbot: Any) -> None:
    graph = build()
    hub = Hub()
    panel = GraphPanel(hub)
    qtbot.addWidget(panel)
    panel.resize(700, 600)
    panel.show()
    hub.set_graph(graph, graph.get_graph(), "outer")
    events: list[EventBase] = []
    with graph.subscribe(events.append):
        graph.invoke({"log": []}, hub.config())
    hub.add_events(events)
    state = panel.state
    assert state.visits("write") == 1 and state.visits("plan") == 1
    qtbot.waitUntil(lambda: panel.view.layout_result is not None)
    panel.view.fit()

    point = node_point(panel.view, "write")
    qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert panel.path == ["write"] and panel.crumb_bar.isVisible()
    assert "outer › write" in panel.crumb_label.text()
    assert set(state.graph.nodes) >= {"draft", "check"} and "plan" not in state.graph.nodes
    assert state.visits("draft") == 1 and state.visits("check") == 1
    assert hub.focus_node is None  # opening a subgraph does not filter the log

    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.path == [] and not panel.crumb_bar.isVisible()
    assert "plan" in state.graph.nodes and state.visits("write") == 1


def test_a_subgraph_checkpoint_picked_in_the_graph_dock_shows_its_state(qtbot: Any) -> None:
    graph = build()
    hub = Hub()
    panel = GraphPanel(hub)
    qtbot.addWidget(panel)
    panel.show()
    hub.set_graph(graph, graph.get_graph(), "outer")
    events: list[EventBase] = []
    with graph.subscribe(events.append):
        graph.invoke({"log": []}, hub.config())
    hub.add_events(events)
    panel.open_subgraph("write")
    box = panel.checkpoint_box
    assert box.isEnabled() and box.count() == 1 + len(panel.subgraph_checkpoints()) > 1
    last = box.count() - 1
    box.setCurrentIndex(last)
    box.activated.emit(last)
    picked = box.itemData(last)
    assert (
        hub.selected_checkpoint == picked and "checkpoint_ns" in hub.config(picked)["configurable"]
    )
    snap = hub.snapshot()
    assert snap is not None and snap.values["log"] == ["plan", "draft", "check"]
    assert snap.config["configurable"]["checkpoint_id"] == picked
