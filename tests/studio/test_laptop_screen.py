"""Issue 28 item 7: the studio on a 1366x768 laptop screen.

The window opens inside the available screen (maximized on a laptop, the preferred size centred
on a desktop), remembers its geometry, maximized state and docks, and restores them safely when
the screen changed; Timeline and State are seen side by side; the graph's fit never shrinks
text below a readable size (it scrolls instead); the Events payload pane shows more than three
lines; the Timeline's buttons all sit inside the dock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QDockWidget

from studio.docks.graph.view import MIN_FIT_SCALE, GraphView
from studio.models.graph_state import GraphStateModel
from studio.models.window_fit import PREFERRED, Rect, clamp, first_placement, fits
from tests.studio.app_agents import make_window
from tests.studio.graph_samples import twelve_middleware_graph

LAPTOP = Rect(0, 0, 1366, 768)
DESKTOP = Rect(0, 0, 1920, 1080)


def test_a_laptop_opens_maximized_and_a_desktop_at_the_preferred_size() -> None:
    laptop = first_placement(LAPTOP)
    assert laptop.maximized and fits(laptop.rect, LAPTOP)
    desktop = first_placement(DESKTOP)
    assert not desktop.maximized and (desktop.rect.w, desktop.rect.h) == PREFERRED
    assert fits(desktop.rect, DESKTOP)
    assert desktop.rect.x == (1920 - PREFERRED[0]) // 2  # centred
    side = Rect(1920, 0, 1366, 768)  # a second screen to the right of the first
    assert fits(first_placement(side).rect, side)


def test_a_geometry_from_a_larger_screen_is_brought_back_inside() -> None:
    saved = Rect(300, 200, 1700, 1000)  # closed on a 1920x1200 monitor
    assert not fits(saved, LAPTOP)
    inside = clamp(saved, LAPTOP)
    assert fits(inside, LAPTOP) and inside.w < 1366 and inside.h < 768
    kept = Rect(10, 10, 800, 600)
    assert clamp(kept, LAPTOP) == kept


def _window(qtbot: Any, tmp_path: Path, layout: str = "") -> Any:
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.models.hub import Hub
    from studio.run.controller import RunController

    hub = Hub()
    controller = RunController(hub, session_dir=tmp_path / "sessions")
    window = MainWindow(hub, controller, StudioSettings(layout=layout), save_settings=False)
    qtbot.addWidget(window)
    return window


def test_the_window_opens_inside_a_laptop_screen(qtbot: Any, tmp_path: Path) -> None:
    window = _window(qtbot, tmp_path)
    window.open_on_screen(QRect(0, 0, 1366, 768))
    qtbot.waitExposed(window)
    assert window.isMaximized()
    normal = window.normalGeometry()
    assert fits(Rect(normal.x(), normal.y(), normal.width(), normal.height()), LAPTOP)


def _probe(tmp_path: Path, screen: tuple[int, int], *args: str) -> dict[str, Any]:
    """The real window opened on a screen of ``screen`` size (a subprocess: Qt fixes its
    screens at start-up), with the settings in ``tmp_path/config``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / f"screen-{screen[0]}x{screen[1]}.json"
    config.write_text(
        json.dumps(
            {"screens": [{"name": "s", "x": 0, "y": 0, "width": screen[0], "height": screen[1]}]}
        )
    )
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
        "STEPWISE_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.studio.screen_probe", *args],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("{"))
    return json.loads(line)


def _fits(rect: list[int], screen: list[int]) -> bool:
    return fits(Rect(*rect), Rect(*screen))


def test_geometry_and_maximized_state_are_remembered_and_fit_a_changed_screen(
    tmp_path: Path,
) -> None:
    fresh = _probe(tmp_path / "new", (1366, 768))  # a laptop, first launch: maximized
    assert fresh["maximized"] and _fits(fresh["normal"], fresh["screen"])
    assert fresh["timeline_and_state"]

    first = _probe(tmp_path, (2560, 1440), "--geometry", "100,80,2000,1300")  # a monitor
    assert not first["maximized"] and first["geometry"][2:] == list(PREFERRED)
    again = _probe(tmp_path, (2560, 1440), "--maximize")  # reopened as it was left
    assert not again["maximized"] and again["geometry"][2:] == [2000, 1300]
    maximized = _probe(tmp_path, (2560, 1440), "--geometry", "100,80,2000,1300")
    assert maximized["maximized"]  # closed maximized: opens maximized
    laptop = _probe(tmp_path, (1366, 768))  # the laptop alone now: inside its screen
    assert _fits(laptop["normal"], laptop["screen"])
    assert laptop["maximized"] or _fits(laptop["frame"], laptop["screen"])


def _laptop_window(qtbot: Any, tmp_path: Path) -> Any:
    window = make_window(qtbot, tmp_path)
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.setGeometry(QRect(0, 0, 1366, 768))
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1366, 768))
    window.apply_default_sizes()
    QApplication.processEvents()
    return window


def _inside(dock: QDockWidget, window: Any) -> QRect:
    top_left = dock.mapTo(window, QPoint(0, 0))
    return QRect(top_left, dock.size())


def test_timeline_and_state_are_seen_at_once(qtbot: Any, tmp_path: Path) -> None:
    window = _laptop_window(qtbot, tmp_path)
    timeline, state = window.docks["timeline"], window.docks["state"]
    assert state not in window.tabifiedDockWidgets(timeline)
    assert timeline.isVisible() and state.isVisible()
    assert not timeline.visibleRegion().isEmpty() and not state.visibleRegion().isEmpty()
    a, b = _inside(timeline, window), _inside(state, window)
    assert not a.intersects(b)
    assert a.width() >= 300 and b.width() >= 300 and a.height() >= 200
    assert window.rect().contains(a) and window.rect().contains(b)


def test_the_timeline_buttons_and_payload_pane_fit_a_laptop(qtbot: Any, tmp_path: Path) -> None:
    window = _laptop_window(qtbot, tmp_path)
    timeline = window.docks["timeline"].widget()
    right_edge = timeline.mapTo(window, QPoint(timeline.width(), 0)).x()
    for button in (
        timeline.live_button,
        timeline.resume_button,
        timeline.rerun_button,
        timeline.edit_button,
        timeline.compare_button,
    ):
        assert button.isVisible()
        assert button.mapTo(window, QPoint(button.width(), 0)).x() <= right_edge
        assert button.width() >= button.minimumSizeHint().width()
    details = window.docks["events"].widget().details
    lines = details.height() / details.fontMetrics().lineSpacing()
    assert lines > 3.5, f"the payload pane shows {lines:.1f} lines"


def test_fitting_a_tall_graph_keeps_text_readable_and_scrolls(qtbot: Any) -> None:
    view = GraphView(GraphStateModel(twelve_middleware_graph()))
    qtbot.addWidget(view)
    view.resize(500, 260)  # far smaller than the graph
    view.show()
    qtbot.waitExposed(view)
    view.fit()
    assert view.zoom >= MIN_FIT_SCALE
    assert not view.fits_whole_graph
    before = view.mapToScene(view.viewport().rect().center())
    center = QPointF(view.viewport().rect().center())
    wheel = QWheelEvent(
        center,
        view.viewport().mapToGlobal(center),
        QPoint(0, 0),
        QPoint(0, -120),  # one notch down
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), wheel)
    after = view.mapToScene(view.viewport().rect().center())
    assert after.y() > before.y()
    assert view.zoom >= MIN_FIT_SCALE  # scrolling does not zoom

    view.resize(1400, 1400)  # room for all of it: fitted whole again
    view.fit()
    qtbot.waitUntil(lambda: view.fits_whole_graph)
