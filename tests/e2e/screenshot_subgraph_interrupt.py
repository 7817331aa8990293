"""Screenshots of a subgraph's interrupt in the real studio (not collected).

    Xvfb :15 -screen 0 1366x768x24 &
    DISPLAY=:15 STEPWISE_CONFIG_DIR=$(mktemp -d) .venv/bin/python \\
        -m tests.e2e.screenshot_subgraph_interrupt OUT

Opens the docs-style app whose compiled subgraph's node calls ``interrupt()``
(``SUBGRAPH_INTERRUPT_APP``) as ``stepwise open`` does, runs it: the screen and the Events dock
(every row expanded) while the resume dialog asks, then after the answer.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from tests.e2e.screenshot_laptop import grab, grab_screen, until


async def drive(window: Any, out: Path) -> None:
    from studio.run.interrupts import dialog_opened

    hub, ctl = window.hub, window.controller
    window.setGeometry(window.screen().availableGeometry())  # Xvfb has no window manager
    await until(lambda: ctl.graph is not None)
    events = window.docks["events"]
    events.show()
    events.setFloating(True)  # large enough to show the whole run
    events.setGeometry(0, 0, 1000, 740)
    dialogs: list[Any] = []
    disconnect = dialog_opened.connect(dialogs.append)
    window.actions_.run.trigger()
    await until(lambda: bool(dialogs), 60)
    events.widget().flush()
    events.widget().view.expandAll()
    _select_interrupt(events.widget().view)
    await asyncio.sleep(0.8)
    grab_screen(out, "subgraph-interrupt-asked")
    grab(out, events, "subgraph-interrupt-events")
    dialogs[0].editor.setPlainText('"approved"')
    dialogs[0].resume_button.click()
    await until(lambda: hub.status == "done" and not ctl.busy, 60)
    disconnect()
    events.widget().flush()
    events.widget().view.expandAll()
    await asyncio.sleep(0.8)
    grab(out, events, "subgraph-interrupt-events-answered")
    window.close()


def _select_interrupt(view: Any) -> None:
    """Select the interrupt's row (its payload shows under the tree)."""
    from PySide6.QtCore import QModelIndex

    model = view.model()
    stack = [QModelIndex()]
    while stack:
        parent = stack.pop()
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            if str(index.data()).startswith("interrupt"):
                view.setCurrentIndex(index)
                view.scrollTo(index)
                return
            stack.append(index)


def main(out: Path) -> int:
    from studio.app import entry as studio_app
    from tests.fixtures.docs_app_sources import SUBGRAPH_INTERRUPT_APP
    from tests.fixtures.docs_apps import write_app

    out.mkdir(parents=True, exist_ok=True)
    folder = out / "apps"
    folder.mkdir(exist_ok=True)
    app_file = write_app(folder, SUBGRAPH_INTERRUPT_APP, "review")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    args = studio_app.parse_args(["open", app_file.spec])

    async def guarded(window: Any) -> None:
        try:
            await drive(window, out)
        except BaseException:
            import traceback

            traceback.print_exc()
            window.close()

    return studio_app.run_on_qt(app, studio_app._run(args, guarded))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-subgraph-shots")))
