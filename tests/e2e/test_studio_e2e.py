"""The real main window, driven like a user: toolbar, keys, menus, dialogs (offscreen).

The default scenario (seed 000, ``resources/scenarios/retry_todos.py``) is loaded through the
loader and rebuilt with zero retry delays, so nothing here waits on a clock.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from engine.loader import load_target
from studio.app.main_window import MainWindow
from studio.app.scenarios import find_scenario
from studio.app.settings_store import StudioSettings
from studio.models.hub import Hub
from studio.run.controller import RunController, user_message

SEED = find_scenario("retry_todos")


def _seed_factory(**kwargs: Any) -> Any:
    assert SEED is not None, "resources/scenarios/retry_todos.py is missing"
    kwargs.setdefault("initial_delay", 0.0)

    def make() -> tuple[Any, Any]:
        loaded = load_target(SEED.spec)
        return loaded.module.build_agent(**kwargs), user_message(loaded.module.INPUT)

    return make


@pytest.fixture
def window(qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path) -> Iterator[MainWindow]:
    hub = Hub()
    controller = RunController(hub, session_dir=tmp_path / "sessions")
    win = MainWindow(hub, controller, StudioSettings(), save_settings=False)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    controller.load_factory(_seed_factory(), "retry_todos")
    yield win
    win.close()


def run_until(loop: asyncio.AbstractEventLoop, predicate: Any, timeout: float = 20.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    loop.run_until_complete(asyncio.wait_for(poll(), timeout))


def press(
    qtbot: Any,
    window: MainWindow,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """A key press on the window, as a user at the keyboard (the window active first)."""
    if not window.isActiveWindow():
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    qtbot.keyClick(window, key, modifier)


def _attempts(hub: Hub, middleware: str) -> list[str]:
    return [
        e.outcome for e in hub.events if e.kind == "attempt.finished" and e.middleware == middleware
    ]  # type: ignore[attr-defined]


def test_seed000_runs_to_completion_from_the_toolbar(
    qtbot: Any, qloop: Any, window: MainWindow
) -> None:
    hub = window.hub
    button = window.debug_toolbar.widgetForAction(window.actions_.run)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: hub.status == "done" and window.actions_.run.isEnabled())
    state = window.graph_panel.state
    started = Counter(e.node for e in hub.events if e.kind == "node.started")  # type: ignore[attr-defined]
    assert state.visits("model") == started["model"] == 4
    assert state.visits("tools") == started["tools"] == 3
    assert state.failed_nodes == []
    # both retries: a failed then a successful attempt, for the model and for the tool
    assert _attempts(hub, "ModelRetryMiddleware")[:2] == ["error", "ok"]
    assert "error" in _attempts(hub, "ToolRetryMiddleware")
    tool_attempts = [
        e
        for e in hub.events
        if e.kind == "attempt.finished" and e.middleware == "ToolRetryMiddleware"
    ]  # type: ignore[attr-defined]
    failed = next(i for i, e in enumerate(tool_attempts) if e.outcome == "error")  # type: ignore[attr-defined]
    assert tool_attempts[failed + 1].outcome == "ok" and tool_attempts[failed + 1].attempt == 2  # type: ignore[attr-defined]
    # the Events dock holds the failed and the successful attempt of both retries
    log = window.docks["events"].widget()
    log.flush()
    for middleware in ("ModelRetryMiddleware", "ToolRetryMiddleware"):
        outcomes = []
        for ev in hub.events:
            if ev.kind == "attempt.started" and ev.middleware == middleware:  # type: ignore[attr-defined]
                row = log.tree.find(ev.seq, ev.run_id)
                assert row is not None and row.end is not None, (
                    f"attempt {ev.seq} is not in the log"
                )
                outcomes.append((row.end.attempt, row.end.outcome))
        assert (1, "error") in outcomes and (2, "ok") in outcomes, (middleware, outcomes)
    # the Messages dock shows the 8 messages of the conversation
    entries = window.docks["messages"].widget().entries
    roles = [e.role for e in entries]
    assert len(entries) == 8 and roles.count("tool") == 3, roles
    snapshot = hub.snapshot()
    assert snapshot is not None and len(snapshot.values["messages"]) == 8
    assert window.status.state_label.text() == "Done"
    assert window.status.fields["models"].text() == "5 model calls"
    assert window.actions_.run.isEnabled() and not window.actions_.stop.isEnabled()
    assert not window.actions_.pause.isEnabled() and not window.actions_.step_out.isEnabled()


def test_breakpoint_on_tools_then_f10_then_shift_f5(
    qtbot: Any, qloop: Any, window: MainWindow
) -> None:
    hub, dbg = window.hub, window.controller.debugger
    window.graph_panel.view.select_node("tools")
    press(qtbot, window, Qt.Key.Key_F9)
    assert [b.describe() for b in dbg.breakpoints] == ["before node tools"]
    assert "tools" in window.graph_panel.state.breakpoints
    assert window.breakpoints_panel.tree.topLevelItemCount() == 1
    press(qtbot, window, Qt.Key.Key_F5)
    run_until(qloop, lambda: hub.status == "paused")
    assert dbg.current_event.kind == "node.started" and dbg.current_event.node == "tools"  # type: ignore[union-attr]
    assert window.actions_.run.text() == "Continue" and window.actions_.step_out.isEnabled()
    assert window.status.state_label.text() == "Paused: before node tools"
    assert window.breakpoints_panel.tree.topLevelItem(0).text(1) == "1", "the hit is counted"
    pauses = sum(e.kind == "debug.paused" for e in hub.events)
    press(qtbot, window, Qt.Key.Key_F10)
    run_until(
        qloop,
        lambda: (
            hub.status == "paused" and sum(e.kind == "debug.paused" for e in hub.events) > pauses
        ),
    )
    assert dbg.current_event.kind == "node.started" and dbg.current_event.node == "model"  # type: ignore[union-attr]
    press(qtbot, window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    run_until(qloop, lambda: not window.controller.busy)
    assert hub.status == "cancelled" and not dbg.paused
    assert hub.events[-1].kind == "run.finished" and hub.events[-1].status == "cancelled"  # type: ignore[attr-defined]
    assert hub.snapshot() is not None, "the last checkpoint stays inspectable"


def test_a_broken_agent_file_opens_a_dialog_with_the_reason(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    broken = tmp_path / "broken_agent.py"
    broken.write_text("from engine.agents import create_agent\n\nagent = create_agent(\n")
    loaded = window.controller.label
    window.open_agent_file(str(broken))
    dialog = window.error_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.message.startswith(f"{broken}:") and "syntax error" in dialog.message
    assert "\n" not in dialog.message
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert window.controller.label == loaded, "the previous agent stays loaded"


def test_the_faults_menu_makes_the_model_retry(qloop: Any, window: MainWindow) -> None:
    hub = window.hub
    window.controller.load_factory(_seed_factory(model_timeouts=0, disk_full=0), "no faults")
    window.menus.model_timeout.trigger()
    window.menus.tool_fault_actions["create_file"].trigger()
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not window.controller.busy)
    model = [
        e
        for e in hub.events
        if e.kind == "attempt.finished" and e.middleware == "ModelRetryMiddleware"
    ]  # type: ignore[attr-defined]
    assert [a.outcome for a in model[:2]] == ["error", "ok"]  # type: ignore[attr-defined]
    assert "Injected model timeout" in model[0].error.message  # type: ignore[attr-defined]
    tools = [
        e
        for e in hub.events
        if e.kind == "attempt.finished" and e.middleware == "ToolRetryMiddleware"
    ]  # type: ignore[attr-defined]
    assert "error" in [a.outcome for a in tools]  # type: ignore[attr-defined]
    assert len(hub.snapshot().values["messages"]) == 8  # type: ignore[union-attr]


def test_send_a_message_on_a_new_thread(qtbot: Any, qloop: Any, window: MainWindow) -> None:
    hub = window.hub
    assert (
        window.input_bar.send_button.isEnabled() and window.input_bar.new_thread_button.isEnabled()
    )
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not window.controller.busy)
    qtbot.mouseClick(window.input_bar.new_thread_button, Qt.MouseButton.LeftButton)
    assert hub.thread_id == "thread-2" and window.input_bar.thread_box.currentText() == "thread-2"
    qtbot.keyClicks(window.input_bar.message_edit, "Create about.tsx")
    qtbot.keyClick(window.input_bar.message_edit, Qt.Key.Key_Return)
    run_until(qloop, lambda: hub.status in ("done", "error") and not window.controller.busy)
    first = hub.snapshot().values["messages"][0]  # type: ignore[union-attr]
    assert first.text == "Create about.tsx"
    assert window.input_bar.message_edit.text() == ""


def test_a_run_error_marks_the_node_and_keeps_the_state(qloop: Any, window: MainWindow) -> None:
    hub = window.hub
    window.controller.load_factory(
        _seed_factory(model_timeouts=3, model_on_failure="error"), "failing"
    )
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "error" and window.actions_.run.isEnabled())
    assert window.graph_panel.state.failed_nodes == ["model"]
    assert "TimeoutError" in window.status.message_label.text()
    assert window.status.state_label.text() == "Error"
    finished = [e for e in hub.events if e.kind == "run.finished"]
    assert finished[-1].status == "error" and finished[-1].error.type == "TimeoutError"  # type: ignore[attr-defined]
    snapshot = hub.snapshot()
    assert snapshot is not None and snapshot.values["messages"][0].text  # the input is still there
    assert window.error_dialog is None, "a run error is shown in place, not in a dialog"


def test_step_into_step_out_and_restart(qtbot: Any, qloop: Any, window: MainWindow) -> None:
    hub, ctl = window.hub, window.controller
    pauses = lambda: sum(e.kind == "debug.paused" for e in hub.events)  # noqa: E731
    press(qtbot, window, Qt.Key.Key_F11)  # from a stopped state: start and stop at the first event
    run_until(qloop, lambda: hub.status == "paused")
    assert ctl.debugger.current_event.kind == "run.started"  # type: ignore[union-attr]
    for _ in range(30):  # event by event, into the first node
        n = pauses()
        press(qtbot, window, Qt.Key.Key_F11)
        run_until(qloop, lambda n=n: pauses() > n and hub.status == "paused")
        if ctl.debugger.current_event.kind == "node.started":  # type: ignore[union-attr]
            break
    inside = ctl.debugger.current_event
    assert inside is not None and inside.kind == "node.started"
    n = pauses()
    press(qtbot, window, Qt.Key.Key_F11, Qt.KeyboardModifier.ShiftModifier)  # step out of the node
    run_until(qloop, lambda: pauses() > n and hub.status == "paused")
    out = ctl.debugger.current_event
    assert out is not None and out.kind == "node.finished" and out.span_id == inside.span_id
    ctl.debugger.break_on_tool("create_file")
    press(qtbot, window, Qt.Key.Key_F5)
    run_until(
        qloop, lambda: hub.status == "paused" and ctl.debugger.current_event.kind == "tool.started"
    )  # type: ignore[union-attr]
    ctl.debugger.breakpoints.clear()
    first_session = ctl.session_path
    press(
        qtbot,
        window,
        Qt.Key.Key_F5,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    run_until(qloop, lambda: hub.status == "done" and window.actions_.run.isEnabled())
    assert hub.thread_id == "thread-2" and ctl.session_path != first_session
    assert [e.kind for e in hub.events].count("run.started") == 1, "a restart clears the views"


def test_pause_during_a_retry_backoff(qtbot: Any, qloop: Any, window: MainWindow) -> None:
    hub, ctl = window.hub, window.controller
    # a backoff long enough that F6 lands inside it however busy the machine is
    window.controller.load_factory(_seed_factory(initial_delay=3.0), "slow retry")
    press(qtbot, window, Qt.Key.Key_F5)

    def failed() -> bool:
        return any(e.kind == "attempt.finished" and e.outcome == "error" for e in hub.events)  # type: ignore[attr-defined]

    run_until(qloop, failed)
    assert hub.status == "running" and window.actions_.pause.isEnabled()
    press(qtbot, window, Qt.Key.Key_F6)  # the model call is waiting out its backoff: pause next
    run_until(qloop, lambda: hub.status == "paused")
    assert ctl.debugger.pause_reason == "pause"
    assert ctl.debugger.current_event.kind == "attempt.started"  # type: ignore[union-attr]
    assert ctl.debugger.current_event.attempt == 2  # type: ignore[union-attr]
    press(qtbot, window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    run_until(qloop, lambda: hub.status == "cancelled" and window.actions_.run.isEnabled())
