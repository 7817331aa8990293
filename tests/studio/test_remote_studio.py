"""The studio on a graph running on a real ``langgraph dev`` server: File > Connect to
Server..., a run paused at a breakpoint (the server waits), the answer dialog resuming an
interrupt, what a server cannot do greyed out with the reason, the Timeline read from the
server, and the run recorded for offline replay."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog

from engine.events import EventBase
from engine.recording import Session
from engine.remote.run import server_thread_id
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
    run_until(
        qloop,
        lambda: (
            (dialog.target is not None and dialog.open_button.isEnabled())
            or dialog.error_label.isVisible()
        ),
    )
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
        runs = qloop.run_until_complete(ctl.target.client.runs(server_thread_id(hub.thread_id)))
        server = [(r.get("status"), r.get("created_at")) for r in runs]
        raise AssertionError(
            f"{hub.status} busy={ctl.busy} {ctl.last_error} {tail}; server runs: {server}"
        ) from None


def test_connect_pause_at_a_breakpoint_answer_the_interrupt(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    from studio.run.interrupts import dialog_opened

    window = make_window(qtbot, tmp_path)
    assert not window.menus.join_action.isEnabled()  # only a server's runs can be joined
    assert "LangGraph server" in window.menus.join_action.toolTip()
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
    # a loop is seen at tool calls inside a node, where a server never stops
    assert not window.menus.break_on_loop.isEnabled()
    assert "between nodes" in window.menus.break_on_loop.toolTip()
    # a failure stops the run where a node fails, not at a failed call inside a node
    tip = window.menus.break_on_failure.toolTip()
    assert window.menus.break_on_failure.isEnabled()
    assert "where a node fails" in tip and "no stop" in tip and "between nodes" in tip
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
    # the window joins a thread; another client starts a run there, and the window watches it
    client = another_client(langgraph_server)
    thread = str(qloop.run_until_complete(client.threads.create())["thread_id"])
    ctl.switch_thread(thread)
    seen.clear()
    assert window.menus.join_action.isEnabled()
    window.menus.join_action.trigger()
    joining = window.menus.joining
    assert joining is not None
    qloop.run_until_complete(
        client.runs.create(
            thread, "slow", input={"ticks": 10}, stream_mode=["debug", "events", "custom"],
            stream_resumable=True,
        )
    )  # fmt: skip
    qloop.run_until_complete(asyncio.wait_for(joining, 60))
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


def test_edit_state_and_resume_from_here_fork_on_the_server(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    import json

    from studio.run.controller import STAY

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "probe")
    ctl, hub = window.controller, window.hub

    async def leave_waiting(_interrupts: Any) -> Any:
        return STAY

    ctl.interrupt_handler = leave_waiting
    window.input_bar.message_edit.setText("hi")
    click(qtbot, qloop, window.input_bar.send_button)
    _wait(qloop, ctl, lambda: hub.status == "interrupted" and not ctl.busy)
    history = qloop.run_until_complete(ctl.target.history(hub.thread_id))
    before_think = next(s for s in history if s.next == ("think",))
    cid = before_think.config["configurable"]["checkpoint_id"]
    timeline = window.docks["timeline"].widget()
    run_until(qloop, lambda: timeline.timeline.get(cid) is not None, timeout=30)
    timeline.select(cid)
    assert timeline.edit_button.isEnabled() and timeline.resume_button.isEnabled()
    assert not timeline.rerun_button.isEnabled()
    assert "recorded model responses" in timeline.rerun_button.toolTip()
    dialog = timeline.open_edit_dialog()
    combo = dialog.as_node_combo
    assert {"plan", "work", "think", "review"} <= {combo.itemData(i) for i in range(combo.count())}
    combo.setCurrentIndex(combo.findData("work"))
    values = json.loads(dialog.values_edit.toPlainText())
    dialog.values_edit.setPlainText(json.dumps({**values, "mode": "quick"}))
    seen: list[EventBase] = []
    hub.subscribe("events", seen.extend)
    click(qtbot, qloop, dialog.apply_resume_button)
    _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    assert [e.__dict__["node"] for e in seen if e.kind == "node.started" and not e.ns] == ["think"]
    fork = dialog.new_checkpoint_id
    after = qloop.run_until_complete(ctl.target.history(hub.thread_id))
    parents = {s.config["configurable"]["checkpoint_id"]: s.parent_config for s in after}
    assert parents[fork]["configurable"]["checkpoint_id"] == cid  # the branch point
    # the Timeline shows the fork beside the old branch, read from the server
    run_until(qloop, lambda: timeline.timeline.get(fork) is not None, timeout=30)
    assert timeline.timeline.get(cid).forks


def test_step_over_walks_node_by_node_and_what_cannot_be_is_greyed(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    from studio.run.controller import STAY

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "probe")
    ctl, hub, actions = window.controller, window.hub, window.actions_
    uuid.UUID(hub.thread_id)  # a server's thread is new for every window: never "thread-1"
    assert not actions.step_into.isEnabled() and "between nodes" in actions.step_into.toolTip()
    assert actions.step_over.isEnabled()

    async def leave_waiting(_interrupts: Any) -> Any:
        return STAY

    ctl.interrupt_handler = leave_waiting
    ctl.debugger.break_before("plan")
    hub.breakpoints_changed()
    window.input_bar.message_edit.setText("hi")
    click(qtbot, qloop, window.input_bar.send_button)

    def paused_at() -> str:
        _wait(qloop, ctl, lambda: hub.status == "paused")
        current = ctl.debugger.current_event
        assert current is not None
        assert not actions.pause.isEnabled() and "between nodes" in actions.pause.toolTip()
        return str(current.__dict__["node"])

    assert paused_at() == "plan"
    actions.step_over.trigger()
    run_until(
        qloop,
        lambda: hub.status != "paused" or ctl.debugger.current_event.__dict__["node"] != "plan",
    )
    assert paused_at() == "work"
    actions.step_over.trigger()
    run_until(
        qloop,
        lambda: hub.status != "paused" or ctl.debugger.current_event.__dict__["node"] != "work",
    )
    assert paused_at() == "think"
    snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
    assert snap is not None and snap.next == ("think",)
    actions.run.trigger()  # Continue: on to the interrupt in review
    _wait(qloop, ctl, lambda: hub.status == "interrupted" and not ctl.busy)


def test_the_docks_show_a_remote_run_as_they_do_in_process(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    from tests.studio.tt_studio import state_dump

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "agent")
    ctl, hub = window.controller, window.hub
    window.input_bar.message_edit.setText("Weather in Paris?")
    click(qtbot, qloop, window.input_bar.send_button)
    _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    kinds = {e.kind for e in hub.events}
    assert {"model.request", "model.response", "tool.started", "tool.finished"} <= kinds
    # Graph: the model ran twice, the tools once
    graph = window.graph_panel
    run_until(qloop, lambda: graph.state.visits("model") == 2 and graph.state.visits("tools") == 1)
    # Messages: the conversation, the tool call and the answer
    messages = window.docks["messages"].widget()
    entries = messages.entries
    texts = [str(e.message.get("content") or "") for e in entries]
    assert any("It is sunny in Paris." in t for t in texts), texts
    assert any(e.tool_name == "lookup" for e in entries), [e.role for e in entries]
    # Timeline + State + Diff at a past checkpoint, read from the server
    timeline = window.docks["timeline"].widget()
    run_until(qloop, lambda: len(timeline.timeline.ordered()) >= 4, timeout=30)
    ids = [n.checkpoint_id for n in timeline.timeline.ordered()]
    hub.select_checkpoint(ids[-1])
    state = window.docks["state"].widget()
    run_until(qloop, lambda: any("It is sunny in Paris." in r for r in state_dump(state)))
    hub.select_checkpoint(ids[2])  # after the model's first turn: the tool call, no answer yet
    run_until(qloop, lambda: not any("It is sunny in Paris." in r for r in state_dump(state)))
    diff = window.docks["diff"].widget()
    run_until(qloop, lambda: "lookup" in diff.browser.toPlainText())


def test_a_subgraph_opens_from_the_servers_x_ray_drawing(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "probe")
    graph = window.graph_panel
    assert graph.subgraph_of("plan") is None
    assert graph.subgraph_of("work") is not None
    graph.open_subgraph("work")
    assert "inner" in graph.state.graph.nodes and "plan" not in graph.state.graph.nodes
    assert graph.crumb_bar.isVisibleTo(graph)
    graph.close_subgraph()
    assert {"plan", "work", "think"} <= set(graph.state.graph.nodes)


def test_the_store_dock_reads_the_servers_store(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    """The Store dock browses a server's long-term memory through its store API (namespaces,
    items, search and filter), paged, off the UI thread."""
    from engine.remote.client import RemoteClient
    from engine.remote.credentials import Credentials
    from engine.remote.store import PAGE

    user = f"u-{uuid.uuid4().hex[:8]}"
    items = {f"note{i:03d}": {"text": f"note {i}", "even": i % 2 == 0} for i in range(PAGE + 5)}

    async def seed() -> None:
        client = RemoteClient(langgraph_server.url, Credentials())
        try:
            for key, value in items.items():
                await client.sdk.store.put_item(["memories", user], key=key, value=value)
            await client.sdk.store.put_item(["profiles", user], key="me", value={"name": "Ada"})
        finally:
            await client.aclose()

    qloop.run_until_complete(seed())
    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "probe")
    window.docks["store"].raise_()
    dock = window.docks["store"].widget()
    dock.reload()
    shown = f"note000@memories/{user}"
    run_until(
        qloop, lambda: dock.items.topLevelItemCount() > 0 and not dock.error_label.isVisible()
    )
    assert dock.source_label.text().startswith("RemoteStore")
    # the namespace of this test, with all its items (more than one page of the store API)
    top = dock.ns_tree.topLevelItem(0)
    assert top.text(0).startswith("(all)")
    tree = [top.child(i).text(0) for i in range(top.childCount())]
    assert any(label.startswith("memories ·") for label in tree), tree
    dock.filter_edit.setText('{"even": true}')
    dock.search_edit.setText("")
    reads = dock.reads
    dock.reload()
    run_until(qloop, lambda: dock.reads > reads)

    def rows() -> set[str]:
        return {
            f"{dock.items.topLevelItem(i).text(0)}@{dock.items.topLevelItem(i).text(1)}"
            for i in range(dock.items.topLevelItemCount())
        }

    run_until(qloop, lambda: shown in rows())
    mine = {r for r in rows() if r.endswith(f"/{user}")}
    assert mine == {f"{k}@memories/{user}" for k, v in items.items() if v["even"]}
    window.close()


def test_run_asks_for_input_and_context_when_the_server_has_no_schemas(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    """The server cannot give the schemas of a graph (500: a context schema pydantic cannot
    read): Run opens the form with the input and the context as JSON, rather than starting a
    run with no input, which the server refuses ("Received no input for __start__")."""
    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "opaque")
    ctl, hub = window.controller, window.hub
    window.actions_.run.trigger()
    run_until(qloop, lambda: getattr(window, "input_form_dialog", None) is not None)
    form = window.input_form_dialog
    assert form.json_edit is not None and form.context_json is not None
    assert "JSON" in form.context_json.placeholderText()
    form.json_edit.setPlainText("{}")
    form.context_json.setPlainText('{"user": "ada"}')
    click(qtbot, qloop, form.run_button)
    _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
    assert snap is not None and snap.values == {"greeting": "hello ada"}
    assert ctl.context == {"user": "ada"}


def test_an_interrupt_in_a_subgraph_names_the_node_that_called_it(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    """A ``Send`` fan-out, then a subgraph whose node ``check`` calls ``interrupt()``: the
    answer dialog names ``check`` (not ``publish``, the node running the subgraph, where the
    root graph reports it again), and the answer resumes the run on the server."""
    from studio.run.interrupts import dialog_opened

    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "pipeline")
    ctl, hub = window.controller, window.hub
    ctl.typed_input = {"topics": ["x", "y"]}
    opened: list[QDialog] = []
    disconnect = dialog_opened.connect(opened.append)
    try:
        window.actions_.run.trigger()  # with the input typed before: no form
        _wait(qloop, ctl, lambda: len(opened) == 1)
        dialog = opened[0]
        assert dialog.request.node == "check"
        dialog.editor.setPlainText('"yes"')
        click(qtbot, qloop, dialog.resume_button)
        _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    finally:
        disconnect()
    snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
    assert snap is not None and snap.values["approved"] == "yes"
    assert snap.values["notes"].count("note on x") == 2  # the subgraph returns them again


def test_the_input_and_context_given_once_are_kept_for_the_assistant(
    qtbot: Any, qloop: Any, tmp_path: Path, langgraph_server: Any, api_key: str
) -> None:
    """Without the server's schemas, Run asks for the input and the context as JSON once: what
    the form was given (an empty context too: "no context") starts the later runs without
    asking, also after connecting to the same assistant again; *Debug > Run with Input...*
    opens the form filled with it, to change it; another assistant is asked for its own."""
    window = make_window(qtbot, tmp_path)
    _connect(window, qtbot, qloop, langgraph_server.url, "anyone")
    ctl, hub = window.controller, window.hub

    def greeting() -> Any:
        snap = qloop.run_until_complete(ctl.target.state(hub.thread_id))
        return None if snap is None else snap.values.get("greeting")

    def run(expect_form: bool) -> Any:
        window.input_form_dialog = None
        window.actions_.run.trigger()
        if expect_form:
            run_until(qloop, lambda: window.input_form_dialog is not None)
            return window.input_form_dialog
        _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
        assert window.input_form_dialog is None  # not asked again
        return None

    form = run(expect_form=True)
    assert form.json_edit is not None and form.context_json is not None
    form.json_edit.setPlainText("{}")
    form.context_json.setPlainText("")  # the graph may have no context: none
    click(qtbot, qloop, form.run_button)
    _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    assert greeting() == "hello stranger"

    window.new_thread()
    run(expect_form=False)
    assert greeting() == "hello stranger"

    _connect(window, qtbot, qloop, langgraph_server.url, "anyone")  # the same one, again
    run(expect_form=False)
    assert greeting() == "hello stranger"

    window.menus.run_input_action.trigger()
    form = window.input_form_dialog
    assert form is not None and form.context_json is not None and form.json_edit is not None
    assert form.json_edit.toPlainText().strip() == "{}"
    assert form.context_json.toPlainText() == ""
    form.context_json.setPlainText('{"user": "ada"}')
    click(qtbot, qloop, form.run_button)
    _wait(qloop, ctl, lambda: hub.status == "done" and not ctl.busy)
    assert greeting() == "hello ada" and ctl.context == {"user": "ada"}
    window.new_thread()
    run(expect_form=False)
    assert greeting() == "hello ada"

    _connect(window, qtbot, qloop, langgraph_server.url, "opaque")  # another assistant
    form = run(expect_form=True)
    assert form.context_json is not None and form.context_json.toPlainText() == ""
    form.reject()
    window.close()
