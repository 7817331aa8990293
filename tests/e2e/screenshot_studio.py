"""Take screenshots of the real studio under Xvfb, mid-run (for the README and for review).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m tests.e2e.screenshot_studio OUT_DIR

Runs ``studio.app.entry`` exactly as ``stepwise demo`` does, then drives it like a user: a breakpoint
on ``tools``, Run, and a grab of the whole X screen when the run pauses there during the retry of
the disk-full tool call (the attempt badge is visible), then the end of the run, then dark.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication


def grab(path: Path) -> None:
    screen = QApplication.primaryScreen()
    screen.grabWindow(0).save(str(path))
    print(f"saved {path}", flush=True)


async def until(predicate: Any, timeout: float = 30.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)


async def drive(window: Any, out: Path) -> None:
    hub, ctl = window.hub, window.controller
    window.setGeometry(QApplication.primaryScreen().availableGeometry())
    await asyncio.sleep(0.1)
    window.apply_default_sizes()
    await until(lambda: ctl.graph is not None)
    await asyncio.sleep(0.3)
    grab(out / "studio_loaded.png")

    await dialogs(window, out)

    def pauses() -> int:
        return sum(1 for e in hub.events if e.kind == "debug.paused")

    ctl.debugger.break_before("tools")
    hub.breakpoints_changed()
    window.actions_.run.trigger()
    # pause 1 and 2: write_todos and create_file("login.tsx"); then break on the disk-full failure
    for n in (1, 2):
        await until(lambda n=n: pauses() >= n and hub.status == "paused")
        await asyncio.sleep(0.2)
        if n == 2:
            ctl.debugger.break_on_failure()
            hub.breakpoints_changed()
        window.actions_.run.trigger()
    await until(lambda: pauses() >= 3 and hub.status == "paused")
    # step past the failed attempt: the attempt badge shows the retry and its delay
    tools = window.graph_panel.state
    while tools.node("tools").badge is None:
        n = pauses()
        window.actions_.step_into.trigger()
        await until(lambda n=n: pauses() > n and hub.status == "paused")
    await asyncio.sleep(0.4)
    grab(out / "studio_midrun.png")
    ctl.debugger.breakpoints.clear()
    hub.breakpoints_changed()
    window.actions_.run.trigger()
    await until(lambda: hub.status in ("done", "error"))
    await asyncio.sleep(0.4)
    grab(out / "studio_done.png")
    hub.set_theme("dark")
    await asyncio.sleep(0.4)
    grab(out / "studio_done_dark.png")
    hub.set_theme("light")
    window.close()


async def dialogs(window: Any, out: Path) -> None:
    """The scenario picker, the settings and an error dialog, each over the window."""
    window.menus.pick_scenario()
    await asyncio.sleep(0.3)
    grab(out / "dialog_scenarios.png")
    window.menus.scenario_picker.reject()
    window.menus.open_settings()
    await asyncio.sleep(0.3)
    grab(out / "dialog_settings.png")
    window.menus.settings_dialog.reject()
    broken = out / "broken_agent.py"
    broken.write_text("from engine.agents import create_agent\n\nagent = create_agent(\n")
    window.open_agent_file(str(broken))
    await asyncio.sleep(0.3)
    grab(out / "dialog_error.png")
    window.error_dialog.accept()
    await asyncio.sleep(0.1)


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise_shots")
    out.mkdir(parents=True, exist_ok=True)
    import qasync

    from studio.app import entry as studio_app

    qapp = QApplication.instance() or QApplication(sys.argv[:1])
    qapp.setQuitOnLastWindowClosed(False)
    args = studio_app.parse_args(["demo", "--theme", "light"])

    async def guarded(window: Any) -> None:
        try:
            await drive(window, out)
        except BaseException:
            import traceback

            traceback.print_exc()
            print("status:", window.hub.status, window.controller.last_error, flush=True)
            window.close()

    return qasync.run(studio_app._run(args, guarded))


if __name__ == "__main__":
    sys.exit(main())
