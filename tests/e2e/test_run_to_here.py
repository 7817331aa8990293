""" "Run to here" on a graph node, through the real window on a user's attached agent: the run
starts (or a paused one goes on) and stops once, before that node; the one-shot breakpoint is
then gone (no red dot, nothing left in the Breakpoints dock), and F5 runs to the end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
from tests.e2e.test_newuser_apps import CHAT_APP
from tests.fixtures.docs_apps import write_app


def _run_to(studio: Studio, node: str) -> str:
    panel = studio.window.graph_panel
    menu = panel.view.node_menu(node)
    action = next(a for a in menu.actions() if a.text() == "Run to here")
    action.trigger()
    studio.window.controller.batcher.flush()
    return studio.until_rest()


def test_run_to_here_stops_once_before_the_node(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, CHAT_APP, "chat_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    panel = studio.window.graph_panel
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Where is A17?"}]}
        assert _run_to(studio, "tools") == "paused"
        assert studio.paused_at() == ("node.started", "tools")
        state = studio.window.status.state_label
        qtbot.waitUntil(lambda: state.text() == "Paused: run to node tools")
        assert studio.ctl.debugger.breakpoints == []  # it has done its job
        assert studio.window.breakpoints_panel.tree.topLevelItemCount() == 0
        assert "tools" not in panel.state.breakpoints
        assert studio.trigger("run") == "done", studio.ctl.last_error  # no second stop

        # paused elsewhere (a breakpoint before the model), "Run to here" goes on to the node
        panel.breakpoints.set_node("model", True)
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "And B2?"}]}
        assert studio.trigger("restart") == "paused"
        assert studio.paused_at() == ("node.started", "model")
        panel.breakpoints.set_node("model", False)
        assert _run_to(studio, "tools") == "paused"
        assert studio.paused_at() == ("node.started", "tools")
        assert studio.trigger("run") == "done", studio.ctl.last_error
    finally:
        studio.close()
