"""Docks the user cannot see take in no events; they catch up when their tab is picked.

The real main window, shown, runs the seed-000 agent: the Waterfall (behind the Timeline tab)
and the Diff (behind the State tab) hold the run's events and do nothing with them; a click on
their tab shows everything, as if they had followed the run all along.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabBar

from studio.widgets.catch_up import CatchUp
from tests.studio.app_agents import factory, make_window, run_until


def _tab(window: Any, title: str) -> tuple[QTabBar, int]:
    """The tab bar a click on the tab ``title`` reaches (the window may keep older bars under
    it), and the tab's index."""
    for bar in window.findChildren(QTabBar):
        if not bar.isVisible():
            continue
        for i in range(bar.count()):
            if bar.tabText(i) != title:
                continue
            at = bar.mapTo(window, bar.tabRect(i).center())
            top = window.childAt(at)
            if (
                isinstance(top, QTabBar)
                and top.tabText(top.tabAt(top.mapFrom(window, at))) == title
            ):
                return top, top.tabAt(top.mapFrom(window, at))
    raise AssertionError(f"no {title} tab")


def _click_tab(qtbot: Any, window: Any, title: str) -> None:
    qtbot.waitUntil(lambda: _has_tab(window, title))  # the window laid out its docks
    bar, i = _tab(window, title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
    qtbot.waitUntil(lambda: bar.currentIndex() == i)


def _has_tab(window: Any, title: str) -> bool:
    try:
        _tab(window, title)
    except AssertionError:
        return False
    return True


def _gate(dock: Any) -> CatchUp:
    gate = dock.findChild(CatchUp)
    assert gate is not None
    return gate


def _run(qloop: Any, window: Any) -> None:
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())


def test_a_dock_behind_a_tab_catches_up_when_its_tab_is_clicked(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(factory(), "seed000")
    waterfall = window.docks["waterfall"].widget()
    diff = window.docks["diff"].widget()
    _run(qloop, window)
    run_until(qloop, lambda: window.hub.snapshots.idle)
    events = len(window.hub.events)
    assert _gate(waterfall).held == events and waterfall.lanes is None  # nothing laid out
    assert _gate(diff).held > 0 and diff.diff is None  # nothing read, nothing compared
    assert window.docks["events"].widget().tree.event_count == events  # the shown dock is live

    _click_tab(qtbot, window, "Waterfall")
    run_until(qloop, lambda: waterfall.lanes is not None)
    assert _gate(waterfall).held == 0 and waterfall.run_box.count() == 1
    run_id = window.hub.events[-1].run_id
    assert waterfall.lanes.run_id == run_id  # type: ignore[union-attr]
    assert waterfall.summary.text().startswith(f"{len(waterfall.lanes.bars)} spans")  # type: ignore[union-attr]

    _click_tab(qtbot, window, "Diff")
    run_until(qloop, lambda: diff.diff is not None and window.hub.snapshots.idle)
    assert _gate(diff).held == 0
    assert diff.target_id == window.hub.events[-1].checkpoint_id or diff.target_id in {
        e.checkpoint_id for e in window.hub.events if e.kind == "checkpoint.saved"
    }


def test_a_shown_dock_follows_live_and_a_reset_forgets_what_a_hidden_one_held(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(factory(), "seed000")
    waterfall = window.docks["waterfall"].widget()
    _click_tab(qtbot, window, "Waterfall")
    _run(qloop, window)  # shown: it follows the run as it goes, nothing is held
    assert _gate(waterfall).held == 0 and waterfall.run_box.count() == 1
    first = waterfall.lanes.run_id  # type: ignore[union-attr]

    _click_tab(qtbot, window, "Timeline")
    window.actions_.restart.trigger()  # a new thread: every view is reset
    run_until(qloop, lambda: window.hub.thread_id != "thread-1")
    _run(qloop, window)
    assert _gate(waterfall).held > 0
    _click_tab(qtbot, window, "Waterfall")
    run_until(qloop, lambda: _gate(waterfall).held == 0 and waterfall.lanes is not None)
    # only the new thread's run: the first run's held events were dropped with the reset
    assert waterfall.run_box.count() == 1
    assert waterfall.lanes.run_id != first  # type: ignore[union-attr]
    assert waterfall.lanes.run_id == window.hub.events[-1].run_id  # type: ignore[union-attr]
