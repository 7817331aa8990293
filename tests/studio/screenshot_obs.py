"""Screenshots of the cost badges and status bar, the Waterfall and the Request view (not
collected by pytest).

    DISPLAY=:14 .venv/bin/python -m tests.studio.screenshot_obs OUT_DIR

Runs ``obs_agents.priced_agent`` (a retried model call, two parallel tool calls, usage reported
by a priced model) in the real main window, then a breakpoint pause so the waterfall has paused
time, and grabs the whole window at 1366x768 and 1920x1080 with the Waterfall and the Request
dock raised and a model call selected; then the looping agent with its loop flagged.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-obs-shots")


async def until(predicate: Any, timeout: float = 20.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def settle(app: QApplication, rounds: int = 8) -> None:
    for _ in range(rounds):  # the qasync loop handles Qt's events meanwhile
        await asyncio.sleep(0.03)


def grab(window: Any, name: str) -> None:
    path = OUT / name
    window.grab().save(str(path))
    print(path)


async def priced_window(app: QApplication, width: int, height: int, theme: str) -> None:
    """The priced agent's run with a pause at a breakpoint, a model call selected."""
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.look.theme import apply_theme
    from studio.models.hub import Hub
    from studio.run.controller import RunController
    from tests.studio import obs_agents

    apply_theme(app, theme)  # one process, several windows: the app's style follows each
    hub = Hub()
    hub.theme = theme
    ctl = RunController(hub, session_dir=OUT / "sessions")
    window = MainWindow(hub, ctl, StudioSettings(theme=theme), save_settings=False)
    window.resize(width, height)
    window.show()
    await settle(app)
    ctl.load_factory(
        lambda: (obs_agents.priced_agent(delay=0.15), obs_agents.first_input()),
        "places (gpt-4o-mini)",
    )
    ctl.debugger.break_before("tools")
    window.run_or_continue()
    await until(lambda: ctl.debugger.paused)
    await asyncio.sleep(0.4)  # a visible pause at the breakpoint
    ctl.debugger.clear()
    ctl.debugger.continue_()  # both parallel "tools" tasks stopped there: go on
    await until(lambda: not ctl.busy or ctl.debugger.paused)
    while ctl.debugger.paused:
        ctl.debugger.continue_()
        await until(lambda: not ctl.busy or ctl.debugger.paused)
    await settle(app)
    window.docks["waterfall"].raise_()
    window.docks["request"].raise_()
    log = window.docks["events"].widget()
    log.flush()
    last = [r for r in log.tree.rows if r.kind == "model.request"][-1]
    log.select_seq(last.seq, last.event.run_id)
    await settle(app)
    grab(window, f"obs-{width}x{height}-{theme}.png")
    waterfall = window.docks["waterfall"].widget()
    waterfall.collapse_box.setChecked(False)
    await settle(app)
    grab(waterfall, f"obs-waterfall-wallclock-{width}x{height}-{theme}.png")
    grab(window.graph_panel, f"obs-graph-badges-{width}x{height}-{theme}.png")
    if width == 1366:
        window.menus.open_settings()
        await settle(app)
        grab(window.menus.settings_dialog, f"obs-settings-prices-{theme}.png")
        window.menus.settings_dialog.reject()
    window.close()
    await settle(app, 3)


async def loop_window(app: QApplication) -> None:
    """The looping agent under Debug > Break on Loop, paused at the loop."""
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.look.theme import apply_theme
    from studio.models.hub import Hub
    from studio.run.controller import RunController
    from tests.studio import obs_agents

    apply_theme(app, "light")
    hub = Hub()
    ctl = RunController(hub, session_dir=OUT / "sessions")
    window = MainWindow(hub, ctl, StudioSettings(), save_settings=False)
    window.resize(1366, 768)
    window.show()
    await settle(app)
    ctl.load_factory(lambda: (obs_agents.looping_agent(), obs_agents.first_input()), "looper")
    window.menus.break_on_loop.setChecked(True)
    window.run_or_continue()
    await until(lambda: ctl.debugger.paused)
    await settle(app)
    window.docks["events"].widget().flush()
    await settle(app)
    grab(window, "obs-loop-1366x768.png")
    ctl.stop()
    await until(lambda: not ctl.busy)
    window.close()


async def shots(app: QApplication) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for width, height in ((1366, 768), (1920, 1080)):
        for theme in ("light", "dark"):
            await priced_window(app, width, height, theme)
    await loop_window(app)


def main() -> None:
    import qasync

    app = QApplication.instance() or QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)  # type: ignore[union-attr]
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shots(app))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
