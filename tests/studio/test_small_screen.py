"""Item 2 of the first-use report: the window works at 1024x700 and never resizes itself.

Drives the real main window: resize to a small laptop screen, click Run on seed 000, show a
long status message, then check that nothing forced the window wider and that the bottom row's
controls (Timeline buttons, Events filter) sit side by side without overlapping or clipping.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget

from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until

SMALL = (1024, 700)


def _global_rect(w: QWidget) -> tuple[int, int]:
    left = w.mapTo(w.window(), QPoint(0, 0)).x()
    return left, left + w.width()


def test_the_window_fits_a_small_screen_and_never_grows(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QApplication

    from studio.look.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")  # measured as the app shows it (the theme's paddings count)
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(), "seed000")
    assert window.minimumSizeHint().width() <= SMALL[0]
    window.resize(*SMALL)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == SMALL)

    click(qtbot, qloop, window.debug_toolbar.widgetForAction(window.actions_.run))
    run_until(qloop, lambda: window.controller.status == "done")
    window.status.show_message("a status note far longer than the window is wide " * 10)
    qtbot.wait(50)  # let queued layout requests land (not waiting for a result)
    assert (window.width(), window.height()) == SMALL
    assert window.minimumSizeHint().width() <= SMALL[0]

    timeline = window.docks["timeline"].widget()
    events = window.docks["events"].widget()
    bar = events.filter_bar
    for button in (
        timeline.live_button,
        timeline.resume_button,
        timeline.rerun_button,
        timeline.edit_button,
        timeline.compare_button,
    ):
        assert button.isVisible() and button.width() >= button.minimumSizeHint().width()
    assert timeline.live_button.text() == "● Live"
    # the Timeline's buttons start right of the Events dock's Follow button and filter box
    follow_right = _global_rect(bar.follow_button)[1]
    assert _global_rect(timeline.live_button)[0] >= follow_right
    assert _global_rect(timeline.compare_button)[1] <= _global_rect(timeline)[1]
    assert bar.text_edit.width() >= bar.text_edit.minimumWidth() > 0
    # the Duration column is inside the visible part of the event table
    view = events.view
    header = view.header()
    duration = next(
        i
        for i in range(header.count())
        if view.model().headerData(i, Qt.Orientation.Horizontal) == "Duration"
    )
    assert header.sectionViewportPosition(duration) + header.sectionSize(duration) <= (
        view.viewport().width() + 1
    )
    # the long note is elided in place, the whole text is in the tooltip
    note = window.status.message_label
    assert note.shown_text().endswith("…") and note.toolTip().startswith("a status note")
