"""Screenshots of the real studio on a laptop-sized and a desktop-sized screen (not collected).

    Xvfb :15 -screen 0 1366x768x24 &
    DISPLAY=:15 STEPWISE_CONFIG_DIR=$(mktemp -d) .venv/bin/python -m tests.e2e.screenshot_laptop OUT

Runs ``studio.app.entry`` as ``stepwise demo`` does on a fresh configuration (the window opens as a
new user's would), runs seed 000 to its end, picks a checkpoint on the Timeline and an event in
the Events dock, then grabs the whole screen and every dock; then the approval scenario's
dialog, the shortcuts dialog, About, and the plan scenario's Plan dock.  File names carry the
screen size (``1366x768-window.png``...).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QWidget


def _screen() -> str:
    size = QApplication.primaryScreen().size()
    return f"{size.width()}x{size.height()}"


def grab_screen(out: Path, name: str) -> None:
    path = out / f"{_screen()}-{name}.png"
    QApplication.primaryScreen().grabWindow(0).save(str(path))
    print(path, flush=True)


def grab(out: Path, widget: QWidget, name: str) -> None:
    path = out / f"{_screen()}-{name}.png"
    widget.grab().save(str(path))
    print(path, f"{widget.width()}x{widget.height()}", flush=True)


async def until(predicate: Any, timeout: float = 30.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)


async def drive(window: Any, out: Path) -> None:
    from studio.run.interrupts import dialog_opened

    hub, ctl = window.hub, window.controller
    if (
        not window.isMaximized()
        or window.height() < window.screen().availableGeometry().height() - 60
    ):
        # Xvfb has no window manager to honour "maximized": do what one would
        window.setGeometry(window.screen().availableGeometry())
    await until(lambda: ctl.graph is not None)
    await asyncio.sleep(0.5)
    grab_screen(out, "window-loaded")
    window.actions_.run.trigger()
    await until(lambda: hub.status == "done" and not ctl.busy)
    await asyncio.sleep(0.5)
    grab_screen(out, "window-done")
    events = window.docks["events"].widget()
    tool = next(r for r in events.tree.rows if r.kind == "tool.started")
    events.select_seq(tool.seq)
    step3 = next(e for e in hub.events if e.kind == "checkpoint.saved" and e.step == 3)
    hub.select_checkpoint(step3.checkpoint_id)
    await asyncio.sleep(0.6)
    grab_screen(out, "window-time-travel")
    for key in ("events", "timeline", "state", "messages", "breakpoints", "todos", "diff"):
        dock = window.docks[key]
        dock.show()
        dock.raise_()
        await asyncio.sleep(0.3)
        grab(out, dock, f"dock-{key}")
    hub.select_checkpoint(None)

    window.menus.show_shortcuts()
    await asyncio.sleep(0.4)
    grab(out, window.menus.shortcuts_dialog, "dialog-shortcuts")
    window.menus.shortcuts_dialog.close_button.click()
    window.menus.show_about()
    await asyncio.sleep(0.3)
    grab(out, window.menus.about_dialog, "dialog-about")
    window.menus.about_dialog.close_button.click()

    window.load_scenario("plan_retry")
    await until(lambda: ctl.graph is not None and hub.status == "idle")
    window.actions_.run.trigger()
    await until(lambda: hub.status in ("done", "error", "interrupted") and not ctl.busy, 60)
    plan = window.docks["plan"]
    plan.show()
    plan.raise_()
    await asyncio.sleep(0.6)
    grab(out, plan, "dock-plan")
    grab_screen(out, "window-plan")

    shots: list[Any] = []

    def on_dialog(dialog: Any) -> None:
        shots.append(dialog)

    disconnect = dialog_opened.connect(on_dialog)
    window.load_scenario("approval")
    await until(lambda: ctl.graph is not None and hub.status == "idle")
    window.actions_.run.trigger()
    await until(lambda: bool(shots), 60)
    await asyncio.sleep(0.8)
    grab_screen(out, "window-approval")
    grab(out, shots[0], "dialog-approval")
    disconnect()
    shots[0].reject()
    await asyncio.sleep(0.3)
    window.close()


def main(out: Path) -> int:
    import qasync

    from studio.app import entry as studio_app

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    args = studio_app.parse_args([])
    return qasync.run(studio_app._run(args, lambda window: drive(window, out)))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-laptop-shots")))
