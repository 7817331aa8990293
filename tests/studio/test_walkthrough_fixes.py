"""Issue 28 item 8: what a new user's walkthrough found, each driven through the real widgets.

The model node's retry note after a run whose first visit retried; Break on any failure /
on interrupts as checkable toggles; a stale expression error under the breakpoint field; the
shortcuts dialog listing each key once and fitting the screen; Help > About and Documentation;
a user's Stop shown as stopped, not failed; a tool call's time without the pause inside it;
pauses as marks on the row they happened at; whole names in the Open Session dialog.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTreeView

from engine.events import EventBase
from engine.messages import HumanMessage
from studio.models.event_tree import EventTree
from studio.models.graph_state import GraphStateModel
from studio.qtmodels.event_tree import EventTreeModel
from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until


def _seed_events() -> tuple[Any, list[EventBase]]:
    agent = app_agents.build()
    events: list[EventBase] = []

    async def run() -> None:
        with agent.subscribe(events.append):
            await agent.ainvoke(
                {"messages": [HumanMessage(app_agents.REQUEST)]},
                {"configurable": {"thread_id": "t"}},
            )

    asyncio.run(run())
    return agent, events


def test_the_model_node_remembers_the_retry_of_its_first_visit(qtbot: Any) -> None:
    from studio.docks.graph.view import GraphView
    from studio.run.drawables import drawable_for

    agent, events = _seed_events()
    state = GraphStateModel(drawable_for(agent))
    state.apply_all(events)
    model = state.node("model")
    assert model.visits == 4 and model.badge is None  # the last visit had no retry
    assert model.retried_visits == (1,)
    assert model.retry_note == "1 retry (visit 1)"
    view = GraphView(state)
    qtbot.addWidget(view)
    item = view.node_item("model")
    assert item is not None
    assert item._status_lines(1) == [("1 retry (visit 1)", "interrupted")]
    assert state.node("after_model" if "after_model" in state.graph.nodes else "model")


def test_break_on_failure_and_interrupts_are_toggles(qtbot: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    menus, dbg = window.menus, window.controller.debugger
    fail, interrupt = menus.break_on_failure, menus.break_on_interrupt
    assert fail.isCheckable() and interrupt.isCheckable() and not fail.isChecked()

    def kinds() -> list[str]:
        return [b.kind for b in dbg.breakpoints]

    fail.trigger()
    fail.trigger()  # off again, not a second entry
    assert kinds() == [] and not fail.isChecked()
    fail.trigger()
    interrupt.trigger()
    assert sorted(kinds()) == ["failure", "interrupt"]
    assert fail.isChecked() and interrupt.isChecked()
    panel = window.breakpoints_panel
    assert panel.tree.topLevelItemCount() == 2
    # removed in the Breakpoints dock: the menu follows
    failure_item = next(
        panel.tree.topLevelItem(i)
        for i in range(2)
        if "fail" in panel.tree.topLevelItem(i).text(0).lower()
    )
    failure_item.setSelected(True)
    panel.remove_button.click()
    assert kinds() == ["interrupt"] and not fail.isChecked() and interrupt.isChecked()
    # disabled in the dock: unchecked in the menu; the menu turns the same one back on
    item = panel.tree.topLevelItem(0)
    item.setCheckState(0, Qt.CheckState.Unchecked)
    assert not interrupt.isChecked()
    interrupt.trigger()
    assert kinds() == ["interrupt"] and dbg.breakpoints[0].enabled


def test_the_expression_error_goes_when_the_expression_is_edited(
    qtbot: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    panel = window.breakpoints_panel
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("state"))
    edit = panel.target_box.lineEdit()
    qtbot.keyClicks(edit, "len(messages >")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert panel.error_label.isVisible() and "not valid Python" in panel.error_label.text()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    assert not panel.error_label.isVisible()


def test_shortcuts_are_listed_once_and_the_dialog_fits_the_screen(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    future = window.menus.show_shortcuts()
    dialog = window.menus.shortcuts_dialog
    text = dialog.table_label.text()
    for key in ("F5", "F10", "F11", "Shift+F11", "F9"):
        assert text.count(f"<b>{key}</b>") == 1, key
    screen = dialog.screen().availableGeometry()
    assert dialog.height() <= screen.height() and dialog.maximumHeight() <= screen.height()
    assert dialog.scroll_area.widget() is dialog.table_label
    dialog.close_button.click()
    assert qloop.run_until_complete(future) == 0


def test_help_has_about_with_the_version_and_the_documentation(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from studio.dialogs.about import stepwise_version

    window = make_window(qtbot, tmp_path)
    texts = [a.text() for a in window.menus.help.actions()]
    assert "About Stepwise" in texts and "Documentation" in texts
    future = window.menus.show_about()
    about = window.menus.about_dialog
    assert stepwise_version() in about.version_label.text()
    assert stepwise_version()[0].isdigit()
    about.close_button.click()
    assert qloop.run_until_complete(future) == 0
    future = window.menus.show_docs()
    docs = window.menus.docs_dialog
    assert "Stepwise" in docs.browser.toPlainText()
    assert docs.height() <= docs.screen().availableGeometry().height()
    docs.close_button.click()
    qloop.run_until_complete(future)


def test_a_stop_is_shown_as_stopped_not_as_a_failure(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(delay=5.0), "seed000")
    hub = window.hub
    window.actions_.run.trigger()
    # the model's first call times out; its retry waits 5 s: Stop there
    run_until(qloop, lambda: any(e.kind == "attempt.finished" for e in hub.events))
    click(qtbot, qloop, window.debug_toolbar.widgetForAction(window.actions_.stop))
    run_until(qloop, lambda: hub.status == "cancelled" and not window.controller.busy)
    assert window.graph_panel.state.node("model").status != "failed"
    tree = EventTree()
    tree.add_batch(hub.events)
    failed = [r for r in tree.rows if r.failed]
    assert failed and all("TimeoutError" in r.summary() for r in failed)  # not the stop
    node = next(r for r in tree.rows if r.kind == "node.started" and r.node == "model")
    assert not node.failed and "stopped" in node.summary()
    assert "✗" not in node.summary()
    assert window.status.state_label.text() == "Stopped"


def test_a_paused_tool_call_shows_its_own_time_and_pauses_are_marks(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    ctl, hub = window.controller, window.hub
    ctl.load_factory(app_agents.factory(), "seed000")
    ctl.debugger.break_on_tool("write_todos")
    hub.breakpoints_changed()
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "paused")
    paused = next(e for e in reversed(hub.events) if e.kind == "debug.paused")
    assert paused.at_kind == "tool.started"
    # hold the pause a while, as a user reading the state does (the run waits, no clock)
    hold = asyncio.Event()
    qloop.call_later(0.3, hold.set)
    qloop.run_until_complete(hold.wait())
    ctl.debugger.clear()
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not ctl.busy)

    tree = EventTree()
    tree.add_batch(hub.events)
    assert not any(r.kind.startswith("debug.") for r in tree.rows)  # no paused/resumed rows
    tool = next(r for r in tree.rows if r.kind == "tool.started")
    assert tool.pauses and tool.pause_note() == "▮▮"
    assert tool.paused_ms >= 300
    wall = tool.end.__dict__["duration_ms"]
    assert wall >= 300 and tool.duration_ms() < 300
    assert "0.3" not in tool.summary() and " s" not in tool.summary().rsplit("✓", 1)[-1]
    # the Events dock: the mark is on the tool's row; selecting it says how long it took
    events = window.docks["events"].widget()
    events.flush()
    model = events.view.model()
    assert isinstance(model, EventTreeModel) or model is not None
    events.select_seq(tool.seq)
    header = events.details.toPlainText().splitlines()[1]
    assert "into the run" in header and "took" in header and "paused" in header


def test_the_open_session_dialog_shows_whole_names(qtbot: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    folder = window.controller.recordings_folder()
    folder.mkdir(parents=True, exist_ok=True)
    long_name = "20250101-120000-a_rather_long_agent_name_for_a_project.stepwise"
    (folder / long_name).write_bytes(b"")
    window.menus.choose_session_file()
    dialog = window.menus.file_dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    tree = next(v for v in dialog.findChildren(QTreeView) if v.isVisible())
    model = tree.model()
    qtbot.waitUntil(lambda: model.rowCount(tree.rootIndex()) > 0, timeout=5000)
    index = next(
        model.index(r, 0, tree.rootIndex())
        for r in range(model.rowCount(tree.rootIndex()))
        if model.index(r, 0, tree.rootIndex()).data() == long_name
    )
    assert index.data(Qt.ItemDataRole.ToolTipRole) == long_name
    assert tree.textElideMode() == Qt.TextElideMode.ElideRight
    width = tree.fontMetrics().horizontalAdvance(long_name)
    QApplication.processEvents()
    assert tree.columnWidth(0) >= width  # the whole name, not "2025…project.stepwise"
    dialog.reject()


def test_run_times_start_afresh_for_a_new_run_and_end_at_the_last_event() -> None:
    from engine.events import DebugPaused, DebugResumed, RunFinished, RunStarted
    from studio.models.run_stats import RunStats

    s = 1_000_000_000
    stats = RunStats()
    stats.apply(
        [
            RunStarted(run_id="a", mono_ns=1 * s),
            DebugPaused(run_id="a", mono_ns=2 * s),
            DebugResumed(run_id="a", mono_ns=9 * s),  # 7 s at a breakpoint
            RunFinished(run_id="a", mono_ns=10 * s),
        ]
    )
    assert stats.elapsed(None) == 2.0 and stats.paused(10 * s) == 7.0
    stats.apply([RunStarted(run_id="b", mono_ns=20 * s)])  # a new message: a new run
    assert stats.paused(20 * s) == 0.0  # nothing of the first run's pause carried over
    stats.apply([DebugPaused(run_id="b", mono_ns=21 * s, reason="step")])
    # not live (a past moment, a recorded session): it ends at its last event, not "now"
    assert stats.elapsed(None) == 1.0
    assert stats.text_parts("done", None)["elapsed"] == "1.0 s"


def test_time_travel_shows_the_run_time_up_to_the_checkpoint(
    qtbot: Any, qloop: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    import time as clock

    window = make_window(qtbot, tmp_path)
    ctl, hub = window.controller, window.hub
    ctl.load_factory(app_agents.factory(), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not ctl.busy)
    run = next(e for e in hub.events if e.kind == "run.finished")
    total = run.duration_ms / 1000
    step3 = next(e for e in hub.events if e.kind == "checkpoint.saved" and e.step == 3)
    later = clock.monotonic_ns() + 3600 * 1_000_000_000  # an hour after the run
    monkeypatch.setattr("studio.app.status_bar.time.monotonic_ns", lambda: later)
    hub.select_checkpoint(step3.checkpoint_id)
    text = window.status.fields["elapsed"].text()
    assert ":" not in text, text  # not an hour, not minutes
    shown = float(text.split()[0])
    start = next(e for e in hub.events if e.kind == "run.started")
    assert shown <= round((step3.mono_ns - start.mono_ns) / 1e9, 1) + 0.05 <= total + 0.1
    assert window.status.fields["step"].text() == "Step 3"
    hub.select_checkpoint(None)
    assert float(window.status.fields["elapsed"].text().split()[0]) <= total + 0.05


def test_step_into_after_the_run_ended_asks_before_starting_a_new_run(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    ctl, hub = window.controller, window.hub
    ctl.load_factory(app_agents.factory(), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not ctl.busy)
    thread, events = hub.thread_id, len(hub.events)

    window.actions_.step_into.trigger()
    dialog = window.confirm_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert thread in dialog.message_label.text() and "new thread" in dialog.message_label.text()
    assert hub.thread_id == thread and len(hub.events) == events  # nothing started yet
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    run_until(qloop, lambda: "Nothing started" in window.status.message_label.text())
    assert not ctl.busy and hub.thread_id == thread and len(hub.events) == events

    window.actions_.step_into.trigger()
    dialog = window.confirm_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.accept_button.click()
    run_until(qloop, lambda: hub.status == "paused")
    assert hub.thread_id != thread and thread in ctl.threads
    assert "is kept" in window.status.message_label.text()
    window.actions_.stop.trigger()
    run_until(qloop, lambda: not ctl.busy)


def test_a_replayed_branch_that_stops_at_an_approval_can_be_answered(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from engine.recording import Session
    from studio.app.scenarios import find_scenario
    from studio.run.interrupts import dialog_opened

    scenario = find_scenario("approval")
    assert scenario is not None
    window = make_window(qtbot, tmp_path)
    answered: list[int] = []

    def approve_all(dialog: Any) -> None:
        answered.append(len(dialog.cards))
        for card in dialog.cards:
            card.buttons["approve"].click()
        dialog.submit_button.click()

    disconnect = dialog_opened.connect(approve_all)
    try:
        assert window.load_spec(scenario.spec, "approval")
        window.actions_.run.trigger()
        run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
        assert answered == [3]  # the live run's approval
        saved = tmp_path / "approval.stepwise"
        window.menus.save_session(str(saved))

        fresh = make_window(qtbot, tmp_path)
        assert fresh.open_session(str(saved))
        if fresh.opened_session.task is not None:
            qloop.run_until_complete(fresh.opened_session.task)
        dock = fresh.docks["timeline"].widget()
        run_until(qloop, lambda: any(n.step == 1 for n in dock.timeline.ordered()))
        before_approval = next(n for n in dock.timeline.ordered() if n.step == 1)
        dock.rerunRequested.emit(before_approval.checkpoint_id)
        fresh.confirm_dialog.accept_button.click()
        # the re-run reaches the approval again: the dialog opens and its answer resumes it
        run_until(qloop, lambda: len(answered) == 2, timeout=30)
        run_until(qloop, lambda: "replayed" in fresh.status.message_label.text(), timeout=30)
    finally:
        disconnect()
    with Session.open(saved) as session:
        runs = session.runs(session.threads()[0])
    resumed = [e for e in fresh.hub.events if e.kind == "run.started" and e.resumed]  # type: ignore[attr-defined]
    assert resumed, "the branch was resumed with the answer"
    finals = [
        e for e in fresh.hub.events if e.kind == "run.finished" and e.run_id == resumed[-1].run_id
    ]
    assert finals and finals[-1].status == "done"  # type: ignore[attr-defined]
    assert len(runs) >= 3
