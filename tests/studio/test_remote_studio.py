"""The studio on a graph running on a real ``langgraph dev`` server: File > Connect to
Server..., a run paused at a breakpoint (the server waits), the answer dialog resuming an
interrupt, what a server cannot do greyed out with the reason, the Timeline read from the
server, and the run recorded for offline replay."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog

from engine.events import EventBase
from engine.recording import Session
from tests.fixtures.langgraph_server import FULL_KEY
from tests.studio.app_agents import click, make_window, run_until

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LANGGRAPH_API_KEY", FULL_KEY)
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    return FULL_KEY


def _connect(window: Any, qtbot: Any, qloop: Any, url: str, assistant: str) -> None:
    """File > Connect to Server...: URL, Connect, the assistant, Open (a new thread)."""
    window.menus.connect_action.trigger()
    dialog = window.menus.server_dialog
    dialog.url_edit.setText(url)
    click(qtbot, qloop, dialog.connect_button)
    run_until(qloop, lambda: (dialog.target is not None and dialog.open_button.isEnabled()) or dialog.error_label.isVisible())
    assert not dialog.error_label.isVisible(), dialog.error_label.text()
    labels = [dialog.assistant_combo.itemText(i) for i in range(dialog.assistant_combo.count())]
    qloop.run_until_complete(dialog.pick_assistant(labels.index(assistant)))
    assert dialog.target.name == assistant
    dialog.thread_list.setCurrentRow(-1)
    click(qtbot, qloop, dialog.open_button)
    run_until(qloop, lambda: window.controller.target is dialog.target)


def _wait(qloop: Any, ctl: Any, predicate: Any) -> None:
    """``run_until``, saying where the window stands when it does not come."""
    try:
        run_until(qloop, predicate, timeout=60)
    except TimeoutError:
        hub = ctl.hub
        tail = [f"{e.kind} {e.__dict__.get('node', '')}" for e in hub.events[-6:]]
        raise AssertionError(f"{hub.status} busy={ctl.busy} {ctl.last_error} {tail}") from None


def test_connect_pause_at_a_breakpoint_answer_the_interrupt(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    from studio.run.interrupts import dialog_opened

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "probe")
    ctl, hub = window.controller, window.hub
    assert ctl.target.kind == "remote" and {"plan", "work", "think"} <= set(hub.drawable.nodes)
    assert window.actions_.run.isEnabled()
    # what a server cannot do is greyed out, saying why
    panel = window.breakpoints_panel
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("tool"))
    assert not panel.add_button.isEnabled() and "between nodes" in panel.add_button.toolTip()
    assert not window.menus.model_timeout.isEnabled()
    assert "faults" in window.menus.model_timeout.toolTip()
    ctl.debugger.break_before("think")
    hub.breakpoints_changed()
    opened: list[QDialog] = []
    disconnect = dialog_opened.connect(opened.append)
    try:
        window.input_bar.message_edit.setText("hi")
        click(qtbot, qloop, window.input_bar.send_button)
        _wait(qloop, ctl, lambda: hub.status == "paused")
        current = ctl.debugger.current_event
        assert current is not None and current.__dict__["node"] == "think"
        snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
        assert snap is not None and snap.next == ("think",)  # the server waits too
        window.actions_.run.trigger()  # Continue
        _wait(qloop, ctl, lambda: len(opened) == 1)
        dialog = opened[0]
        dialog.editor.setPlainText('"ship it"')
        click(qtbot, qloop, dialog.resume_button)
        _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    finally:
        disconnect()
    kinds = [e.kind for e in hub.events]
    assert "debug.paused" in kinds and "interrupt.resumed" in kinds and "model.token" in kinds
    snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
    assert snap is not None and snap.values["approved"] == "ship it"
    # the Timeline lists the server's checkpoints
    timeline = window.docks["timeline"].widget()
    run_until(qloop, lambda: len(timeline.timeline) >= 6, timeout=30)
    # recorded: the session replays offline
    ctl.recorder.flush()
    with Session.open(ctl.session_path) as session:
        assert [r.status for r in session.runs()] == ["interrupted", "done"]
        assert session.state(hub.thread_id)["approved"] == "ship it"
    assert FULL_KEY.encode() not in Path(ctl.session_path).read_bytes()


def test_stop_cancels_and_a_joined_run_is_watched(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    from tests.engine.remote.helpers import another_client

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "slow")
    ctl, hub = window.controller, window.hub
    seen: list[EventBase] = []
    hub.subscribe("events", seen.extend)
    ctl.start({"ticks": 3000})
    run_until(
        qloop,
        lambda: any(e.kind == "custom" and e.__dict__["node"] == "tick" for e in seen),
        timeout=60,
    )
    window.actions_.stop.trigger()
    run_until(qloop, lambda: hub.status == "cancelled" and not ctl.busy, timeout=30)
    # another client starts a run on a thread; the window joins it
    client = another_client(langgraph_server)

    async def start_elsewhere() -> str:
        thread = (await client.threads.create())["thread_id"]
        await client.runs.create(
            thread, "slow", input={"ticks": 10}, stream_mode=["debug", "events", "custom"],
            stream_resumable=True,
        )  # fmt: skip
        return str(thread)

    thread = qloop.run_until_complete(start_elsewhere())
    ctl.switch_thread(thread)
    seen.clear()
    qloop.run_until_complete(ctl.join())
    assert hub.status == "done"
    ticks = [
        e.__dict__["data"]["tick"]
        for e in seen
        if e.kind == "custom" and e.__dict__["node"] == "tick"
    ]
    assert ticks == list(range(10))


def test_a_connection_problem_is_one_line_in_the_dialog(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("LANGGRAPH_API_KEY", "a-wrong-key-1234567")
    window = make_window(qtbot, tmp_path)
    window.menus.connect_action.trigger()
    dialog = window.menus.server_dialog
    dialog.url_edit.setText(langgraph_server.url)
    click(qtbot, qloop, dialog.connect_button)
    run_until(qloop, lambda: dialog.error_label.isVisible())
    text = dialog.error_label.text()
    assert "(401)" in text and "\n" not in text and "a-wrong-key-1234567" not in text
    assert not dialog.open_button.isEnabled()
    dialog.reject()
    qloop.run_until_complete(asyncio.sleep(0))
