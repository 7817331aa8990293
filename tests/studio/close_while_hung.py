"""Open the real studio on a graph whose sync node hangs, run it, stop the run once the node
is running, close the window; the process must end without waiting for the stuck thread.

    python -m tests.studio.close_while_hung FILE.py:ATTR SESSION_DIR [--runtime langgraph]

Prints ``running``, ``stopped STATUS``, ``closing`` as it goes (the test reads them)."""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


async def _drive(window: Any) -> None:
    try:
        await _stop_then_close(window)
    except BaseException:  # the test reads it; a silent driver would leave the window open
        traceback.print_exc()
        window.close()


async def _stop_then_close(window: Any) -> None:
    controller = window.controller
    controller.start({})  # the graph takes an empty state
    while not any(getattr(e, "node", None) == "stuck" for e in window.hub.events):
        await asyncio.sleep(0.02)
    print("running", flush=True)
    await controller.stop_and_wait()
    print("stopped", controller.status, flush=True)
    print("closing", flush=True)
    window.close()


def main(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from studio.app import entry

    spec, folder, *rest = argv
    os.environ["STEPWISE_SESSION_DIR"] = folder
    args = entry.parse_args(["open", spec, *rest])
    app = QApplication(sys.argv[:1])
    QApplication.setQuitOnLastWindowClosed(False)
    return entry.run_on_qt(app, entry._run(args, _drive), quit_if_stuck=entry.CLOSE_GRACE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
