"""Screenshots of the real studio in attach mode, on the docs-style apps (not collected).

    Xvfb :15 -screen 0 1366x768x24 &
    DISPLAY=:15 STEPWISE_CONFIG_DIR=$(mktemp -d) .venv/bin/python -m tests.e2e.screenshot_attach OUT

Writes the docs' agent (sync tools, a SqliteSaver) and the docs' StateGraph with a compiled
subgraph into OUT/apps, opens the agent as ``stepwise open OUT/apps/agent.py:graph`` does, runs
it: the approval dialog, then the finished run, a checkpoint picked on the Timeline with its
State, Diff and Messages docks; then the StateGraph: its input form (it has no messages), the
run, its subgraph opened by a double-click, and a breakpoint set on a node there (F9).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from tests.e2e.screenshot_laptop import grab, grab_screen, until


async def drive(window: Any, out: Path, apps: Any) -> None:
    from studio.run.interrupts import dialog_opened

    hub, ctl = window.hub, window.controller
    window.setGeometry(window.screen().availableGeometry())  # Xvfb has no window manager
    await until(lambda: ctl.graph is not None)
    await asyncio.sleep(0.5)
    grab_screen(out, "attach-loaded")

    dialogs: list[Any] = []
    disconnect = dialog_opened.connect(dialogs.append)
    window.actions_.run.trigger()
    await until(lambda: bool(dialogs), 60)
    await asyncio.sleep(0.8)
    grab_screen(out, "attach-approval")
    grab(out, dialogs[0], "attach-dialog-approval")
    card = dialogs[0].cards[0]
    card.buttons["approve"].click()
    dialogs[0].submit_button.click()
    await until(lambda: hub.status == "done" and not ctl.busy, 60)
    disconnect()
    await asyncio.sleep(0.8)
    grab_screen(out, "attach-done")
    saved = [e for e in hub.events if e.kind == "checkpoint.saved" and not e.ns]
    model_turn = next(e for e in saved if e.step == 2)
    hub.select_checkpoint(model_turn.checkpoint_id)
    await asyncio.sleep(0.8)
    grab_screen(out, "attach-time-travel")
    for key in ("state", "diff", "messages", "timeline", "events"):
        dock = window.docks[key]
        dock.show()
        dock.raise_()
        await asyncio.sleep(0.3)
        grab(out, dock, f"attach-dock-{key}")
    hub.select_checkpoint(None)

    # the StateGraph: no messages, so Run asks for its input in a form
    assert window.load_spec(apps.stategraph.spec)
    await until(lambda: ctl.graph is not None and hub.status == "idle")
    window.actions_.run.trigger()
    await until(lambda: getattr(window, "input_form_dialog", None) is not None, 30)
    form = window.input_form_dialog
    form.form_page.editors["topic"].setText("cats")
    await asyncio.sleep(0.6)
    grab(out, form, "attach-dialog-input-form")
    grab_screen(out, "attach-input-form")
    form.run_button.click()
    await until(lambda: hub.status in ("done", "error", "interrupted") and not ctl.busy, 60)
    await asyncio.sleep(0.6)
    grab_screen(out, "attach-stategraph-done")
    panel = window.graph_panel
    panel.open_subgraph("review")
    await asyncio.sleep(0.8)
    grab_screen(out, "attach-subgraph")
    grab(out, panel, "attach-graph-subgraph")
    # F9 on a node of the opened subgraph: a breakpoint in that subgraph only
    inner = next(n for n, d in panel.state.graph.nodes.items() if d.kind not in ("start", "end"))
    panel.view.select_node(inner)
    panel.toggle_selected_breakpoint()
    dock = window.docks["breakpoints"]
    dock.show()
    dock.raise_()
    await asyncio.sleep(0.6)
    grab_screen(out, "attach-subgraph-breakpoint")
    grab(out, dock, "attach-dock-breakpoints")
    window.close()


def main(out: Path) -> int:
    from studio.app import entry as studio_app
    from tests.fixtures.docs_app_sources import STATEGRAPH_APP
    from tests.fixtures.docs_apps import agent_app, write_app

    out.mkdir(parents=True, exist_ok=True)
    folder = out / "apps"
    folder.mkdir(exist_ok=True)
    agent = agent_app(folder, "sync", "sqlite")

    class Apps:
        # without the INPUT the fixture names, as a user's file: Run asks for the input
        stategraph = write_app(folder, STATEGRAPH_APP.replace("\nINPUT =", "\n_INPUT ="), "sg")

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    args = studio_app.parse_args(
        ["open", agent.spec, "--input", "What is the weather in sf? Tell my boss."]
    )

    async def guarded(window: Any) -> None:
        try:
            await drive(window, out, Apps)
        except BaseException:
            import traceback

            traceback.print_exc()
            window.close()

    return studio_app.run_on_qt(app, studio_app._run(args, guarded))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-attach-shots")))
