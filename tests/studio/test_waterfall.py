"""The Waterfall: a run's spans on a time axis (``studio.models.waterfall``, the dock)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from engine.debug import Debugger
from engine.events import EventBase
from studio.models.waterfall import RunLanes, TimeAxis, Waterfall
from tests.studio import obs_agents
from tests.studio.app_agents import make_window, run_until


async def _events(agent: Any, debugger: Debugger | None = None) -> list[EventBase]:
    seen: list[EventBase] = []
    with agent.subscribe(seen.append):
        await agent.ainvoke(
            obs_agents.first_input(), {"configurable": {"thread_id": "t"}}, debugger=debugger
        )
    return seen


def _no_overlap(lanes: RunLanes) -> None:
    for row in lanes.rows:
        for a, b in itertools.pairwise(row):
            assert a.end is not None and a.end <= b.start, (a.label, b.label)


async def test_spans_nest_below_their_parents_and_parallel_calls_get_their_own_rows() -> None:
    events = await _events(obs_agents.priced_agent(delay=0.01))
    model = Waterfall()
    model.add(events)
    (lanes,) = model.runs.values()
    _no_overlap(lanes)
    for bar in lanes.bars.values():
        assert bar.end is not None
        if bar.parent is not None:
            assert bar.row > bar.parent.row
            assert bar.parent.start <= bar.start and bar.end <= (bar.parent.end or 0)
    tools = [b for b in lanes.bars.values() if b.family == "tool"]
    assert sorted(b.label for b in tools) == ["tool local_time", "tool weather"]
    a, b = tools
    assert a.start < (b.end or 0) and b.start < (a.end or 0)  # they ran at the same time
    assert a.row != b.row
    # the retried model call: two attempts, the failed one red, the backoff between them
    attempts = [x for x in lanes.bars.values() if x.family == "attempt"][:2]
    assert attempts[0].failed and not attempts[1].failed
    (gap,) = lanes.gaps
    assert (gap.after, gap.before) == (attempts[0], attempts[1])
    assert gap.delay_s is not None and gap.delay_s >= 0.01
    assert "TimeoutError" in attempts[0].detail and "retried after" in attempts[0].detail


async def test_bars_are_placed_once_as_events_arrive() -> None:
    events = await _events(obs_agents.priced_agent(delay=0.0))
    whole = Waterfall()
    whole.add(events)
    live = Waterfall()
    seen: dict[str, Any] = {}
    for ev in events:
        live.add([ev])
        lanes = live.last_run
        assert lanes is not None
        for span, bar in lanes.bars.items():
            assert seen.setdefault(span, bar) is bar  # never rebuilt
            assert bar.row == seen[span].row
    a, b = whole.last_run, live.last_run
    assert a is not None and b is not None
    assert [[x.span_id for x in row] for row in a.rows] == [
        [x.span_id for x in row] for row in b.rows
    ]


async def test_pauses_are_kept_and_can_be_collapsed() -> None:
    dbg = Debugger()
    dbg.break_before("tools")
    import asyncio

    def resume_later(d: Debugger) -> None:
        asyncio.get_running_loop().call_later(0.05, d.continue_)

    dbg.on_pause.append(resume_later)
    events = await _events(obs_agents.priced_agent(delay=0.0), dbg)
    model = Waterfall()
    model.add(events)
    lanes = model.last_run
    assert lanes is not None and len(lanes.pauses) == 2  # both parallel tools tasks
    paused = lanes.paused_ns()
    assert paused >= 2 * 50_000_000 * 0.9
    wall = TimeAxis(lanes, collapse=False)
    active = TimeAxis(lanes, collapse=True)
    end = lanes.duration
    assert wall.show(end) == end
    assert active.show(end) == end - paused
    assert active.event_time(active.show(end)) == end
    first_pause = lanes.pauses[0][0]
    assert active.show(first_pause) == first_pause


def _window_after_run(qtbot: Any, qloop: Any, tmp_path: Path) -> Any:
    window = make_window(qtbot, tmp_path)
    window.resize(1366, 768)
    window.controller.load_factory(
        lambda: (obs_agents.priced_agent(delay=0.01), obs_agents.first_input()), "places"
    )
    window.run_or_continue()
    run_until(qloop, lambda: window.hub.status == "done")
    window.docks["waterfall"].raise_()
    dock = window.docks["waterfall"].widget()
    qtbot.waitUntil(lambda: dock.lanes is not None and dock.lanes.bars and dock.canvas.isVisible())
    dock.canvas.refresh()
    return window


def test_a_click_on_a_bar_selects_its_event_everywhere(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = _window_after_run(qtbot, qloop, tmp_path)
    dock = window.docks["waterfall"].widget()
    canvas = dock.canvas
    node = next(b for b in dock.lanes.bars.values() if b.label == "tools")
    canvas.reveal(node)
    rect = canvas.bar_rect(node)
    assert canvas.bar_at(rect.center().toPoint()) is node
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert window.hub.selected_event is node.event
    log = window.docks["events"].widget()
    assert log.selected_row() is not None and log.selected_row().event is node.event
    assert window.graph_panel.view.selected_node == "tools"
    assert canvas.selected is node
    # and the other way: a row picked in the log highlights its bar
    call = next(r for r in log.tree.rows if r.kind == "tool.started")
    log.select_seq(call.seq, call.event.run_id)
    assert canvas.selected is dock.model.bar(call.event.span_id)
    assert canvas.selected.label.startswith("tool ")


def test_zoom_scroll_and_fit(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window_after_run(qtbot, qloop, tmp_path)
    canvas = window.docks["waterfall"].widget().canvas
    fitted = canvas.scale
    assert canvas.horizontalScrollBar().maximum() == 0  # the run fits the width

    def wheel(mods: Qt.KeyboardModifier, dy: int = 120) -> None:
        pos = QPointF(canvas.viewport().width() / 2, 60)
        event = QWheelEvent(
            pos,
            canvas.viewport().mapToGlobal(pos),
            QPoint(0, 0),
            QPoint(0, dy),
            Qt.MouseButton.NoButton,
            mods,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(canvas.viewport(), event)

    wheel(Qt.KeyboardModifier.ControlModifier)
    wheel(Qt.KeyboardModifier.ControlModifier)
    assert canvas.scale > fitted * 1.5 and not canvas.auto_fit
    assert canvas.horizontalScrollBar().maximum() > 0
    before = canvas.horizontalScrollBar().value()
    wheel(Qt.KeyboardModifier.ShiftModifier, dy=-240)
    assert canvas.horizontalScrollBar().value() > before
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Minus)
    assert canvas.scale < fitted * 1.5 * 1.25
    window.docks["waterfall"].widget().fit_button.click()
    assert canvas.scale == fitted and canvas.auto_fit


def test_time_travel_marks_the_moment_on_its_run(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window_after_run(qtbot, qloop, tmp_path)
    dock = window.docks["waterfall"].widget()
    saved = [e for e in window.hub.events if e.kind == "checkpoint.saved"]
    moment = saved[2]
    window.hub.select_checkpoint(moment.checkpoint_id)
    lanes = dock.lanes
    assert lanes is not None and lanes.run_id == moment.run_id
    assert dock.canvas.cursor_t == moment.mono_ns - lanes.t0
    window.hub.select_checkpoint(None)
    assert dock.canvas.cursor_t is None


def test_a_recorded_session_shows_the_same_bars(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window_after_run(qtbot, qloop, tmp_path)
    live = window.docks["waterfall"].widget().lanes
    labels = sorted(b.label for b in live.bars.values())
    session = window.controller.session_path
    window.controller.close()
    assert window.open_session(str(session))
    run_until(qloop, lambda: any(e.kind == "run.finished" for e in window.hub.events))
    dock = window.docks["waterfall"].widget()
    qtbot.waitUntil(lambda: dock.lanes is not None and dock.lanes is not live)
    assert sorted(b.label for b in dock.lanes.bars.values()) == labels
    assert "spans" in dock.summary.text()


def test_a_live_run_grows_in_place(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(
        lambda: (obs_agents.priced_agent(delay=0.0), obs_agents.first_input()), "places"
    )
    window.controller.debugger.break_before("tools")
    window.run_or_continue()
    run_until(qloop, lambda: window.controller.debugger.paused)
    window.docks["waterfall"].raise_()
    dock = window.docks["waterfall"].widget()
    qtbot.waitUntil(lambda: dock.lanes is not None)
    lanes = dock.lanes
    run_bar = lanes.rows[0][0]
    assert run_bar.end is None  # still running: drawn up to the latest event
    assert len(lanes.pauses) == 1 and lanes.pauses[0][1] is None
    window.controller.debugger.clear()
    while window.controller.debugger.paused or window.controller.busy:
        if window.controller.debugger.paused:
            window.controller.debugger.continue_()
        run_until(qloop, lambda: window.controller.debugger.paused or not window.controller.busy)
    assert dock.lanes is lanes and lanes.rows[0][0] is run_bar and run_bar.end is not None
    assert all(end is not None for _s, end in lanes.pauses)
    assert "paused" in dock.summary.text()


def test_a_pause_that_begins_after_the_last_refresh_paints(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    """The canvas paints between a pause's start and its next refresh: the pause's band and
    label come from one axis (an exception in a paint event takes the whole app down)."""
    window = _window_after_run(qtbot, qloop, tmp_path)
    canvas = window.docks["waterfall"].widget().canvas
    lanes = canvas.lanes
    assert canvas.axis is not None and canvas.axis.covers(lanes)
    lanes.pauses.append((lanes.duration // 2, None))  # the debugger paused: no refresh yet
    assert not canvas.axis.covers(lanes)
    canvas.viewport().repaint()
    assert canvas.axis.covers(lanes)
    assert canvas.axis.raw_pauses()[-1] == (lanes.duration // 2, lanes.now)
    assert len(canvas.axis.pauses()) == len(canvas.axis.raw_pauses()) == len(lanes.pauses)


def test_a_bar_tells_what_it_is_in_a_tooltip(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    window = _window_after_run(qtbot, qloop, tmp_path)
    canvas = window.docks["waterfall"].widget().canvas
    node = next(b for b in canvas.lanes.bars.values() if b.label == "tools")
    canvas.reveal(node)
    at = canvas.bar_rect(node).center().toPoint()
    where = canvas.viewport().mapToGlobal(at)
    QApplication.sendEvent(canvas.viewport(), QHelpEvent(QEvent.Type.ToolTip, at, where))
    qtbot.waitUntil(QToolTip.isVisible)
    assert "tools" in QToolTip.text()
    QToolTip.hideText()
