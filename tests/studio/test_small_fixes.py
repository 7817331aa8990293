"""Item 10 of the first-use report: the smaller things, each through the real widgets.

Open Session starts where the studio records; in replay Send is off and says why; the State
dock's rows are tall enough for its text; the shortcuts help lists every key of the window; the
plan drawing keeps a readable size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from studio.app.input_bar import REPLAY_HINT
from tests.studio import app_agents
from tests.studio.app_agents import make_window, run_until


def _run_seed(qtbot: Any, qloop: Any, window: Any) -> None:
    window.controller.load_factory(app_agents.factory(), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)


def test_open_session_starts_in_the_recordings_folder(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    _run_seed(qtbot, qloop, window)
    window.menus.open_session_action.trigger()
    dialog = window.menus.file_dialog
    assert Path(dialog.directory().absolutePath()) == (tmp_path / "sessions").resolve()
    recorded = window.controller.session_path
    assert recorded is not None and Path(recorded).parent == tmp_path / "sessions"
    dialog.reject()


def test_replay_turns_send_off_and_says_why(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    _run_seed(qtbot, qloop, window)
    path = str(window.controller.session_path)
    window.controller.close()
    assert window.open_session(path)
    bar = window.input_bar
    assert window.hub.status == "replay"
    assert not bar.send_button.isEnabled() and not bar.message_edit.isEnabled()
    assert bar.send_button.toolTip() == REPLAY_HINT
    assert bar.message_edit.placeholderText() == REPLAY_HINT


def test_state_rows_fit_their_text(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    _run_seed(qtbot, qloop, window)
    state = window.docks["state"].widget()
    window.docks["state"].raise_()
    qtbot.waitUntil(lambda: state.model.rowCount() > 0)
    first = state.model.index(0, 1)
    font = state.model.data(state.model.index(0, 1), Qt.ItemDataRole.FontRole)
    needed = QFontMetrics(font).height() if font is not None else 0
    assert state.tree.visualRect(first).height() >= needed + 2  # "_" below the baseline shows


def test_shortcuts_help_lists_menu_keys_and_mouse_gestures(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.menus.shortcuts_action.trigger()
    text = window.menus.shortcuts_dialog.table_label.text()
    for expected in ("F5", "F10", "F11", "Ctrl+Shift+S", "Open Session", "Settings", "Zoom In"):
        assert expected in text, expected
    assert "Double-click a graph node" in text
    window.menus.shortcuts_dialog.close_button.click()


def test_the_plan_drawing_keeps_a_readable_scale(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    window.resize(1024, 700)
    assert window.load_scenario("plan_retry")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    window.docks["plan"].raise_()
    canvas = window.docks["plan"].widget().canvas
    qtbot.waitUntil(lambda: canvas.isVisible() and bool(canvas.scene().items()))
    canvas.fit()
    assert canvas.transform().m11() >= 0.8
