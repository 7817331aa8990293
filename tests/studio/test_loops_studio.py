"""A looping agent in the window: the loop is flagged on its graph node and marked in the event
log, and Debug > Break on Loop (a toggle) pauses the run there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.studio import obs_agents
from tests.studio.app_agents import make_window, run_until


def _load(window: Any) -> None:
    window.controller.load_factory(
        lambda: (obs_agents.looping_agent(), obs_agents.first_input()), "looper"
    )


def test_break_on_loop_pauses_at_the_loop_flagged_in_graph_and_log(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    _load(window)
    action = window.menus.break_on_loop
    assert action.isCheckable() and not action.isChecked()
    action.trigger()
    assert action.isChecked()
    assert [b.describe() for b in window.controller.debugger.breakpoints] == ["loop detected"]
    window.run_or_continue()
    run_until(qloop, lambda: window.controller.debugger.paused)
    assert window.hub.status == "paused"
    assert window.controller.debugger.current_event.kind == "loop.detected"
    assert window.status.state_label.text() == "Paused: loop detected"
    # the graph: the model node is flagged
    view = window.graph_panel.view
    qtbot.waitUntil(lambda: view.node_item("model").state.loop is not None)
    assert "answers were only tool calls that failed" in view.node_item("model").state.loop
    assert "loop detected" in view.node_item("model").toolTip()
    assert view.node_item("tools").state.loop is None
    # the log: a marked row
    log = window.docks["events"].widget()
    log.flush()
    row = next(r for r in log.tree.rows if r.kind == "loop.detected")
    assert row.loop and row.summary().startswith("⟳ loop in model: the model's last 3 answers")
    index = log.model.index_of(row)
    assert log.model.data(index, Qt.ItemDataRole.FontRole).bold()
    assert log.model.data(index, Qt.ItemDataRole.BackgroundRole) is not None
    # three paid calls, not four hundred
    assert sum(1 for e in window.hub.events if e.kind == "model.response") == 3
    # unchecking removes the breakpoint; the run then goes on to its recursion limit
    action.trigger()
    assert not action.isChecked() and window.controller.debugger.breakpoints == []
    window.run_or_continue()
    run_until(qloop, lambda: not window.controller.busy)
    loops = [e for e in window.hub.events if e.kind == "loop.detected"]
    assert len(loops) >= 3 and [e.__dict__["count"] for e in loops[:3]] == [3, 6, 9]


def test_the_toggle_follows_the_breakpoints_panel(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    _load(window)
    panel = window.breakpoints_panel
    panel.model.add("loop")
    assert window.menus.break_on_loop.isChecked()
    panel.model.clear()
    assert not window.menus.break_on_loop.isChecked()
    window.menus.break_on_loop.trigger()
    window.menus.break_on_loop.trigger()
    window.menus.break_on_loop.trigger()
    assert [b.kind for b in window.controller.debugger.breakpoints] == ["loop"]  # never twice
