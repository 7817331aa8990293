"""Item 4 of the first-use report: an agent file with no input of its own.

The status bar asks for the first message; typing it and pressing Run (not only Send) runs it;
Restart runs the same first message again instead of failing with "NeedsInput".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.messages import HumanMessage
from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until


def _no_input_agent() -> tuple[Any, Any]:
    return app_agents.build(), None  # like a user's file without INPUT


def _click(qtbot: Any, qloop: Any, window: Any, action: Any) -> None:
    click(qtbot, qloop, window.debug_toolbar.widgetForAction(action))


def _human_texts(qloop: Any, window: Any) -> list[str]:
    state = qloop.run_until_complete(window.controller.graph.aget_state(window.hub.config()))
    return [m.content for m in state.values["messages"] if isinstance(m, HumanMessage)]


def test_run_uses_the_typed_first_message_and_restart_keeps_it(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(_no_input_agent, "my_agent.py")
    _click(qtbot, qloop, window, window.actions_.run)  # nothing typed yet: asked for it
    assert "Type the first message" in window.status.message_label.full_text()
    assert window.controller.status == "idle"

    qtbot.keyClicks(window.input_bar.message_edit, "Create login.tsx and register.tsx")
    _click(qtbot, qloop, window, window.actions_.run)
    run_until(qloop, lambda: window.controller.status == "done")
    assert _human_texts(qloop, window) == ["Create login.tsx and register.tsx"]
    assert window.input_bar.message_edit.text() == ""  # sent, as with Send
    first_thread = window.hub.thread_id

    _click(qtbot, qloop, window, window.actions_.restart)
    run_until(qloop, lambda: window.hub.thread_id != first_thread)
    run_until(
        qloop,
        lambda: (
            not window.controller.busy
            and window.controller.status in ("done", "error", "cancelled")
        ),
    )
    assert window.controller.status == "done", window.controller.last_error
    assert window.error_dialog is None  # no "Something went wrong: NeedsInput"
    assert _human_texts(qloop, window) == ["Create login.tsx and register.tsx"]


def test_restart_before_any_message_asks_instead_of_failing(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(_no_input_agent, "my_agent.py")
    window.actions_.restart.trigger()
    run_until(qloop, lambda: not window.controller.busy)
    assert window.error_dialog is None
    assert "Type the first message" in window.status.message_label.full_text()
