"""Open the studio's main window on a configured offscreen screen and report where it is.

    QT_QPA_PLATFORM=offscreen:configfile=SCREEN.json STEPWISE_CONFIG_DIR=DIR \\
        python -m tests.studio.screen_probe [--geometry X,Y,W,H | --maximize]

Builds the window as ``studio.app.entry`` does (settings from ``STEPWISE_CONFIG_DIR``, then
``open_on_screen``), prints one JSON line (screen, geometry, normal geometry, maximized), then
applies the requested change and closes the window, which saves the layout to the settings as
on a real quit.  ``test_laptop_screen`` runs it in a subprocess: a screen's size is fixed when
the QApplication starts.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication


def _rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main(argv: list[str]) -> int:
    app = QApplication(sys.argv[:1])
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings

    window = MainWindow(settings=StudioSettings.load())
    window.open_on_screen()
    for _ in range(5):
        app.processEvents()
    report = {
        "screen": _rect(window.screen().availableGeometry()),
        "geometry": _rect(window.geometry()),
        "frame": _rect(window.frameGeometry()),
        "normal": _rect(window.normalGeometry()),
        "maximized": window.isMaximized(),
        "timeline_and_state": window.docks["state"]
        not in window.tabifiedDockWidgets(window.docks["timeline"]),
    }
    print(json.dumps(report), flush=True)
    if "--maximize" in argv:
        window.showMaximized()
    elif "--geometry" in argv:
        x, y, w, h = (int(v) for v in argv[argv.index("--geometry") + 1].split(","))
        window.showNormal()
        window.setGeometry(QRect(x, y, w, h))
    for _ in range(5):
        app.processEvents()
    window.close()  # saves the layout, as quitting the studio does
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
