"""Item 5 of the first-use report: the event filters shown are the filters applied.

Restart and new runs keep the filter the bar shows, and apply it; loading another agent starts
unfiltered; a click on a graph node (to set a breakpoint) selects it without filtering the log,
a double-click filters.  Real window, real clicks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from studio.models.event_filter import EventFilter
from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until
from tests.studio.test_graph_view import node_point


def _run(qtbot: Any, qloop: Any, window: Any, action: Any) -> None:
    """Click ``action`` and wait for a run to finish on a thread that had none (Run on a fresh
    thread, Restart on a new one)."""
    thread = window.hub.thread_id
    fresh = window.controller.status == "idle"
    click(qtbot, qloop, window.debug_toolbar.widgetForAction(action))
    run_until(
        qloop,
        lambda: (
            (fresh or window.hub.thread_id != thread)
            and window.controller.status == "done"
            and not window.controller.busy
        ),
    )


def _visible(tree: Any, row: Any) -> int:
    return sum(1 + _visible(tree, child) for child in tree.children(row))


def _log(window: Any) -> Any:
    dock = window.docks["events"].widget()
    dock.flush()
    return dock


def test_failures_filter_stays_shown_and_applied_after_restart(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(), "seed000")
    _run(qtbot, qloop, window, window.actions_.run)
    log = _log(window)
    everything = log.tree.event_count
    click(qtbot, qloop, log.filter_bar.failures_button)
    run_until(qloop, lambda: log.tree.filter.failures_only)

    _run(qtbot, qloop, window, window.actions_.restart)
    log = _log(window)
    run_until(qloop, lambda: log.tree.event_count == everything)
    assert log.filter_bar.failures_button.isChecked()
    assert log.tree.filter.failures_only  # what the button shows is what is applied
    shown = _visible(log.tree, log.tree.root)
    assert 0 < shown < len(log.tree.rows)


def test_another_agent_starts_unfiltered(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(), "seed000")
    log = _log(window)
    click(qtbot, qloop, log.filter_bar.failures_button)
    log.filter_node("tools")
    assert log.filter_bar.current().active
    window.load_scenario("plan_retry")
    assert not log.filter_bar.failures_button.isChecked()
    assert log.filter_bar.node_combo.currentIndex() == 0
    assert log.filter_bar.current() == EventFilter() and log.tree.filter == EventFilter()


def test_a_click_on_a_node_selects_it_for_f9_without_filtering(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(), "seed000")
    view = window.graph_panel.view
    window.resize(1400, 900)
    qtbot.waitUntil(lambda: view.layout_result is not None)
    view.fit()
    log = _log(window)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "tools"))
    assert view.selected_node == "tools"
    qtbot.keyClick(view, Qt.Key.Key_F9)
    assert "tools" in view.state.breakpoints
    assert log.filter_bar.node_combo.currentIndex() == 0 and not log.tree.filter.active
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "tools"))
    assert log.filter_bar.node_combo.currentText() == "tools"
    assert log.tree.filter.node == "tools"
