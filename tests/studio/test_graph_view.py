"""GraphView driven through the real widget (offscreen): clicks, F9, menus, exports, live state."""

from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtSvg import QSvgRenderer
from pytestqt.qtbot import QtBot

from engine.events import EventBase, NodeFinished, NodeStarted, Route, ToolStarted
from studio.docks.graph.node_item import NodeItem
from studio.docks.graph.theme import DARK, LIGHT
from studio.docks.graph.view import GraphView
from studio.models.graph_layout import GraphLayout
from studio.models.graph_state import GraphStateModel
from tests.studio.graph_samples import demo_graph, twelve_middleware_graph

_seq = count(1)


def ev(cls: type[EventBase], **fields: Any) -> EventBase:
    return cls(run_id="r", seq=next(_seq), **fields)


@pytest.fixture
def view(qtbot: QtBot) -> GraphView:
    widget = GraphView(GraphStateModel(demo_graph()))
    qtbot.addWidget(widget)
    widget.resize(700, 700)
    widget.show()
    qtbot.waitExposed(widget)
    widget.fit()
    return widget


def node_item(view: GraphView, node: str) -> NodeItem:
    found = view.node_item(node)
    assert found is not None, node
    return found


def laid_out(view: GraphView) -> GraphLayout:
    assert view.layout_result is not None
    return view.layout_result


def node_point(view: GraphView, node: str, dx: float | None = None) -> QPoint:
    """A viewport point inside ``node``'s box (its centre, or ``dx`` scene px from its left)."""
    rect = laid_out(view).nodes[node].rect
    x = rect.x + dx if dx is not None else rect.center[0]
    return view.mapFromScene(QPointF(x, rect.center[1]))


def pixel(view: GraphView, point: QPoint) -> QColor:
    image = view.viewport().grab().toImage()
    ratio = image.devicePixelRatio()
    return image.pixelColor(round(point.x() * ratio), round(point.y() * ratio))


def test_click_on_a_node_emits_its_name(qtbot: QtBot, view: GraphView) -> None:
    with qtbot.waitSignal(view.nodeClicked, timeout=2000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "tools"))
    assert blocker.args == ["tools"]
    assert view.selected_node == "tools"
    with qtbot.waitSignal(view.nodeClicked, timeout=2000) as blocker:
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "__start__")
        )
    assert blocker.args == ["__start__"]


def test_click_on_the_background_selects_nothing(qtbot: QtBot, view: GraphView) -> None:
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "model"))
    assert view.selected_node == "model"
    with qtbot.assertNotEmitted(view.nodeClicked):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert view.selected_node is None


def test_f9_toggles_a_breakpoint_and_draws_the_red_dot(qtbot: QtBot, view: GraphView) -> None:
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "tools"))
    dot = node_item(view, "tools").breakpoint_dot
    assert not dot.isVisible()
    with qtbot.waitSignal(view.breakpointToggled, timeout=2000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_F9)
    assert blocker.args == ["tools", True]
    assert dot.isVisible() and view.state.breakpoints == {"tools"}
    red = pixel(view, view.mapFromScene(dot.sceneBoundingRect().center()))
    assert red.red() > 150 and red.green() < 90, red.name()
    with qtbot.waitSignal(view.breakpointToggled, timeout=2000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_F9)
    assert blocker.args == ["tools", False]
    assert not dot.isVisible() and view.state.breakpoints == frozenset()


def test_context_menu_toggles_a_breakpoint(qtbot: QtBot, view: GraphView) -> None:
    menu = view.node_menu("model")
    toggle = menu.actions()[0]
    assert toggle.text() == "Toggle breakpoint" and not toggle.isChecked()
    with qtbot.waitSignal(view.breakpointToggled, timeout=2000) as blocker:
        toggle.trigger()
    assert blocker.args == ["model", True]
    assert node_item(view, "model").breakpoint_dot.isVisible()
    assert view.node_menu("model").actions()[0].isChecked()
    texts = [a.text() for a in menu.actions()]
    assert texts == ["Toggle breakpoint", "Run to here", "Show events of this node"]
    with qtbot.waitSignal(view.runToRequested, timeout=2000) as run_to:
        menu.actions()[1].trigger()
    assert run_to.args == ["model"]
    with qtbot.waitSignal(view.nodeActivated, timeout=2000) as clicked:
        menu.actions()[2].trigger()
    assert clicked.args == ["model"]


def test_breakpoints_set_on_the_model_are_drawn(qtbot: QtBot, view: GraphView) -> None:
    view.state.set_breakpoint("model", True)
    qtbot.waitUntil(lambda: node_item(view, "model").breakpoint_dot.isVisible(), timeout=2000)


def test_running_node_changes_colour(qtbot: QtBot, view: GraphView) -> None:
    item = node_item(view, "model")
    inside = node_point(view, "model", dx=5)
    assert item.fill_color() == QColor(LIGHT.model_fill)
    before = pixel(view, inside)
    view.state.apply(ev(NodeStarted, node="model", task_id="t1"))
    qtbot.waitUntil(lambda: item.fill_color() == QColor(LIGHT.running_fill), timeout=2000)
    assert item.border_color() == QColor(LIGHT.running)
    qtbot.waitUntil(lambda: pixel(view, inside) != before, timeout=2000)
    assert pixel(view, inside) == QColor(LIGHT.running_fill)
    view.state.apply(ev(NodeFinished, node="model", task_id="t1", status="error"))
    qtbot.waitUntil(lambda: pixel(view, inside) == QColor(LIGHT.failed_fill), timeout=2000)


def test_a_state_change_repaints_the_box_not_its_wrapper_frames(
    qtbot: QtBot, view: GraphView
) -> None:
    model = node_item(view, "model")
    onion = model.onion
    assert onion is not None  # ModelRetry, TodoList... around the model call
    qtbot.waitUntil(lambda: onion.repaints > 0 and model.repaints > 0, timeout=2000)
    frames = onion.repaints

    def repainted(before: int) -> bool:
        return model.repaints > before

    for i in range(3):
        for event in (NodeStarted, NodeFinished):
            boxes = model.repaints
            view.state.apply(ev(event, node="model", task_id=f"o{i}"))
            qtbot.waitUntil(lambda b=boxes: repainted(b), timeout=2000)
    assert onion.repaints == frames, "the frames are kept as a picture while the state changes"
    view.set_theme("dark")
    qtbot.waitUntil(lambda: onion.repaints > frames, timeout=2000)  # a new palette: drawn again


def test_updates_are_coalesced_per_event_loop_turn(qtbot: QtBot, view: GraphView) -> None:
    flushes = view.flushes
    model = node_item(view, "model")
    painted = model.repaints
    for i in range(150):
        view.state.apply(ev(NodeStarted, node="model", task_id=f"m{i}"))
        view.state.apply(ev(NodeFinished, node="model", task_id=f"m{i}"))
        view.state.apply(ev(Route, from_node="model", to=["tools"]))
    assert view.flushes == flushes and view.has_pending_updates()
    qtbot.waitUntil(lambda: not view.has_pending_updates(), timeout=2000)
    assert view.flushes == flushes + 1
    assert model.state is not None and model.state.visits == 150
    assert view.edge_items("model", "tools")[0].highlighted
    qtbot.waitUntil(lambda: model.repaints > painted, timeout=2000)
    assert model.repaints - painted <= 2, "one repaint per batch, not one per event"


def test_route_highlight_moves(qtbot: QtBot, view: GraphView) -> None:
    forward = view.edge_items("model", "tools")[0]
    back = view.edge_items("tools", "model")[0]
    view.state.apply(ev(Route, from_node="model", to=["tools"]))
    qtbot.waitUntil(lambda: forward.highlighted, timeout=2000)
    assert forward.color() == QColor(LIGHT.route) and not back.highlighted
    view.state.apply(ev(Route, from_node="tools", to=["model"]))
    qtbot.waitUntil(lambda: back.highlighted and not forward.highlighted, timeout=2000)


def test_tool_calls_in_flight_reach_the_tools_item(qtbot: QtBot, view: GraphView) -> None:
    view.state.apply(ev(NodeStarted, node="tools", task_id="t"))
    view.state.apply(ev(ToolStarted, tool="search", tool_call_id="a"))
    view.state.apply(ev(ToolStarted, tool="calculator", tool_call_id="b"))
    item = node_item(view, "tools")
    qtbot.waitUntil(
        lambda: item.state is not None and len(item.state.tool_calls) == 2, timeout=2000
    )
    assert item.state is not None
    assert [c.tool for c in item.state.tool_calls] == ["search", "calculator"]


def test_export_png_and_svg(tmp_path: Path, view: GraphView) -> None:
    png, svg = tmp_path / "graph.png", tmp_path / "graph.svg"
    assert view.export_png(str(png))
    image = QImage(str(png))
    assert not image.isNull()
    assert image.width() == round(laid_out(view).width * 2)
    assert image.pixelColor(1, 1) == QColor(LIGHT.background)
    assert view.export_svg(str(svg))
    text = svg.read_text()
    assert "<svg" in text and "model" in text and "tools" in text
    assert QSvgRenderer(str(svg)).isValid()


def test_zoom_keys_and_fit(qtbot: QtBot, view: GraphView) -> None:
    fitted = view.zoom
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.zoom == pytest.approx(fitted * 1.2)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.zoom == pytest.approx(fitted / 1.2)
    qtbot.keyClick(view, Qt.Key.Key_F)
    assert view.zoom == pytest.approx(fitted)
    view.zoom_in()
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert view.zoom == pytest.approx(fitted)


def test_drag_pans_without_clicking(qtbot: QtBot, view: GraphView) -> None:
    view.zoom_in()
    view.zoom_in()
    start = node_point(view, "model")
    before = view.mapToScene(start)
    with qtbot.assertNotEmitted(view.nodeClicked):
        qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
        for step in range(1, 6):
            qtbot.mouseMove(view.viewport(), start + QPoint(12 * step, 10 * step))
        qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(60, 50))
    assert view.mapToScene(start) != before


def test_themes(view: GraphView) -> None:
    item = node_item(view, "tools")
    view.set_theme("dark")
    assert view.theme == "dark"
    assert view.scene().backgroundBrush().color() == QColor(DARK.background)
    assert item.fill_color() == QColor(DARK.tools_fill)
    view.set_theme("light")
    assert item.fill_color() == QColor(LIGHT.tools_fill)
    with pytest.raises(ValueError):
        view.set_theme("sepia")


def test_new_graph_is_laid_out_again(qtbot: QtBot, view: GraphView) -> None:
    view.state.set_breakpoint("model", True)
    view.set_graph(twelve_middleware_graph())
    assert node_item(view, "PIIMiddleware.before_model") is not None
    assert node_item(view, "model").box.content.wrappers[0] == "ContextEditing"
    assert node_item(view, "model").breakpoint_dot.isVisible()
    assert len(view.edge_items("tools", "SummarizationMiddleware.before_model")) == 1
    view.state.reset()  # same graph: no relayout, items kept
    assert node_item(view, "model").box.content.wrappers[0] == "ContextEditing"


def test_resizing_keeps_the_graph_fitted_until_the_user_zooms(
    qtbot: QtBot, view: GraphView
) -> None:
    fitted = view.zoom
    view.resize(320, 320)
    qtbot.waitUntil(lambda: view.zoom < fitted, timeout=2000)
    view.zoom_in()
    zoomed = view.zoom
    view.resize(700, 700)
    qtbot.waitUntil(lambda: view.width() == 700, timeout=2000)
    assert view.zoom == pytest.approx(zoomed)


def test_hit_testing_follows_the_box_not_its_glow(view: GraphView) -> None:
    rect = laid_out(view).nodes["tools"].rect
    assert view.node_at(view.mapFromScene(QPointF(rect.center[0], rect.y + 3))) == "tools"
    assert view.node_at(view.mapFromScene(QPointF(rect.center[0], rect.y - 8))) is None
