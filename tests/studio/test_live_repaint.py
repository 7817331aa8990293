"""What a live run's small changes cost the window (issue 26): a change inside a dock repaints
that dock's content, not the dock's frame and title bar."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QDockWidget

from tests.studio.app_agents import make_window


class _Paints(QObject):
    """Counts the Paint events each watched widget gets."""

    def __init__(self, widgets: list[Any]) -> None:
        super().__init__()
        self.counts: Counter[int] = Counter()
        self._ids = {id(w): w for w in widgets}
        for w in widgets:
            w.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.counts[id(watched)] += 1
        return False


def _settle(qtbot: Any) -> None:
    """Let every posted layout and paint happen."""
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(20)


def test_a_text_changing_inside_a_dock_does_not_repaint_the_dock_frames(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.resize(1366, 768)
    _settle(qtbot)
    dock = window.docks["events"]
    status = dock.widget().status  # the "N events · N rows" line under the log
    assert status.isVisible()
    frames = [d for d in window.findChildren(QDockWidget) if d.isVisible()]
    paints = _Paints([*frames, status])
    for n in range(1, 4):
        status.setText(f"{n:,} events · {n:,} rows")
        qtbot.waitUntil(lambda n=n: paints.counts[id(status)] >= n)
        _settle(qtbot)
    assert paints.counts[id(status)] >= 3
    assert paints.counts[id(dock)] == 0, "the Events dock's frame and title were repainted"
    assert all(paints.counts[id(d)] == 0 for d in frames)
    # the content of every dock in sight paints its own background (in the window's colour,
    # or from its own style sheet)
    for d in frames:
        content = d.widget()
        if "background" in content.styleSheet():
            continue
        assert content.autoFillBackground(), d.objectName()
        assert content.palette().window().color() == window.palette().window().color()


class _Layouts(QObject):
    """Counts the LayoutRequest events a widget gets (its layout re-runs)."""

    def __init__(self, widget: Any) -> None:
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def test_a_new_figure_of_the_same_width_does_not_re_lay_out_the_window(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.resize(1366, 768)
    step = window.statusBar().fields["step"]
    count = window.docks["events"].widget().status
    step.setText("Step 3")
    count.setText("10 events · 10 rows")
    _settle(qtbot)
    layouts = _Layouts(window)
    for n in (4, 5, 6):  # digits are as wide as each other
        step.setText(f"Step {n}")
        count.setText(f"1{n} events · 1{n} rows")
        _settle(qtbot)
    assert (step.text(), count.text()) == ("Step 6", "16 events · 16 rows")
    assert layouts.count == 0, "the main window was laid out again for texts of the same size"
    # a wider text still gets its room
    step.setText("Step 1,000,000")
    qtbot.waitUntil(lambda: step.width() >= step.sizeHint().width())
    assert layouts.count == 0  # the status bar's own row made it room (StatusRow)
