"""Attach mode through the real window on app shapes the matrix does not cover
(``tests.fixtures.probe_apps``), each compared with the same steps on plain LangGraph: a user's
own middleware class with async tools (breakpoints and stepping through its layers), a tool
that calls ``interrupt()`` itself, a functional-API task that interrupts, ``Command`` from a
tool and ``Send`` to a subgraph, and a fault injected from the Faults menu on a PostgresSaver
app (the database must hold what a plain failed run holds, less the injected error).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from langgraph.types import Command as LGCommand

from tests.e2e.attach_window import Plain, Studio, resume_fork_like_plain, saver_url, studio_digest
from tests.fixtures.postgres import postgres_server, postgres_url
from tests.fixtures.probe_apps import (
    command_send_app,
    custom_middleware_app,
    functional_app,
    tool_interrupt_app,
)

__all__ = ["postgres_server", "postgres_url"]


def _answer(value: str) -> Any:
    def answer(dialog: Any) -> None:
        dialog.editor.setPlainText(f'"{value}"')
        dialog.resume_button.click()

    return answer


def test_a_users_middleware_class_is_stepped_through_its_layers(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = custom_middleware_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)

    def _at() -> tuple[str, Any]:
        ev = studio.ctl.debugger.current_event
        assert ev is not None
        return ev.kind, ev.__dict__.get("middleware")

    try:
        bps = studio.window.graph_panel.breakpoints
        bp = bps.add("wrapper", "Outer", "wrap_model_call")
        assert studio.trigger("run") == "paused"
        assert _at() == ("wrapper.started", "Outer")
        # step into: the inner layer, then the model call inside it
        assert studio.trigger("step_into") == "paused"
        assert _at() == ("wrapper.started", "Audit")
        assert studio.trigger("step_into") == "paused"
        assert _at()[0] in ("model.request", "model.started"), _at()
        # step out, layer by layer: the model call, Audit's span, Outer's span
        assert studio.trigger("step_out") == "paused"
        assert _at()[0] == "model.response"
        assert studio.trigger("step_out") == "paused"
        assert _at() == ("wrapper.finished", "Audit")
        assert studio.trigger("step_out") == "paused"
        assert _at() == ("wrapper.finished", "Outer")
        bps.remove(bp.id)
        # a breakpoint on the async tool wrapper
        bp = bps.add("wrapper", "Audit", "wrap_tool_call")
        assert studio.trigger("run") == "paused"
        ev = studio.ctl.debugger.current_event
        assert ev.kind == "wrapper.started" and ev.__dict__["wrapper"] == "wrap_tool_call", ev
        assert studio.trigger("step_into") == "paused"
        assert studio.ctl.debugger.current_event.kind == "tool.started"
        bps.remove(bp.id)
        # a breakpoint on the class's before_model hook (the next model call's)
        bp = bps.add("hook", "Audit", "before_model")
        assert studio.trigger("run") == "paused"
        assert _at() == ("hook.started", "Audit")
        bps.remove(bp.id)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        wrappers = {
            (e.__dict__["middleware"], e.__dict__["wrapper"])
            for e in studio.events("wrapper.started")
        }
        assert wrappers == {
            ("Outer", "wrap_model_call"),
            ("Audit", "wrap_model_call"),
            ("Audit", "wrap_tool_call"),
        }
        hooks = {
            (e.__dict__["middleware"], e.__dict__["hook"]) for e in studio.events("hook.started")
        }
        assert ("Audit", "before_model") in hooks

        # fork from the checkpoint after the first tool answered
        resume_fork_like_plain(studio, plain, "tools")
    finally:
        studio.close()


@pytest.mark.parametrize("saver", ["sqlite", "postgres"])
def test_a_tool_that_interrupts_itself_is_answered_in_the_dialog(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = saver_url(request, saver)
    app = tool_interrupt_app(tmp_path, saver, pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.window.graph_panel.breakpoints.add("tool", "book_flight")
        studio.answers.append(_answer("yes"))
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("tool.started", "book_flight")
        studio.window.graph_panel.breakpoints.clear()
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert [type(d).__name__ for d in studio.dialogs] == ["ResumeValueDialog"]
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == plain.digest()

        # fork from after the weather tool: the booking asks again, answered "no" this time
        studio.answers.append(_answer("no"))
        fork = studio.select_written_by("tools")
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 2
        plain.call(None, checkpoint_index=fork)
        plain.call(LGCommand(resume="no"))
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


def _failing(tool: Any, message: str) -> Any:
    """``tool`` (a plain module's ``@tool``) made to raise once, as the injected fault does."""
    original = tool.func
    calls = iter([True])

    def func(*args: Any, **kwargs: Any) -> Any:
        if next(calls, False):
            raise OSError(message)
        return original(*args, **kwargs)

    object.__setattr__(tool, "func", func)
    return tool


@pytest.mark.parametrize("saver", ["sqlite", "postgres"])
def test_a_tool_fault_from_the_menu_fails_the_run_as_a_plain_failure(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = saver_url(request, saver)
    app = tool_interrupt_app(tmp_path, saver, pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        assert "get_weather" in menus.tool_fault_actions, list(menus.tool_fault_actions)
        menus.tool_fault_actions["get_weather"].trigger()
        status = studio.trigger("run")
        assert status == "error", (status, studio.ctl.last_error)
        faults = [
            e for e in studio.window.hub.events if e.__dict__.get("action") == "fault_injected"
        ]
        assert len(faults) == 1
        _failing(plain.module.get_weather, "Injected failure of get_weather (Stepwise debugger)")
        with pytest.raises(OSError):
            plain.call(plain.module.INPUT)
        # the app's database holds what the plain failed run holds, less the injected error
        # (the debugger's failure is never saved: the task stays pending, without an error)
        assert studio_digest(studio) == _no_errors(plain.digest())
        studio_rows, plain_rows = _write_rows(app, studio.thread), _write_rows(app, "plain")
        assert plain_rows.pop("__error__") == 1 and studio_rows == plain_rows
        # F5: the pending tool runs again, and the run goes on to the booking
        studio.answers.append(_answer("yes"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(None)  # LangGraph keeps its failed task's error in that checkpoint's writes
        plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == _no_errors(plain.digest())
    finally:
        studio.close()


def _write_rows(app: Any, thread: str) -> dict[str, int]:
    """How many pending writes of each channel the app's database holds for ``thread``, read
    with SQL (what no digest can hide)."""
    from collections import Counter

    if app.saver == "sqlite":
        import sqlite3

        with sqlite3.connect(app.db) as conn:
            rows = conn.execute("SELECT channel FROM writes WHERE thread_id = ?", (thread,))
            return dict(Counter(r[0] for r in rows))
    import psycopg

    with psycopg.connect(app.db) as conn:
        rows = conn.execute(
            "SELECT channel FROM checkpoint_writes WHERE thread_id = %s", (thread,)
        ).fetchall()
        return dict(Counter(r[0] for r in rows))


def _no_errors(digest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for snap in digest:
        snap["tasks"] = [(name, None, ints) for name, _err, ints in snap["tasks"]]
    return digest


def test_a_functional_task_that_interrupts_on_sqlite(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = functional_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        bps = studio.window.graph_panel.breakpoints
        bps.set_node("review", True)
        studio.answers.append(_answer("approved"))
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "review")
        assert studio.trigger("step_into") == "paused"
        bps.set_node("review", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert [type(d).__name__ for d in studio.dialogs] == ["ResumeValueDialog"]
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume="approved"))
        assert studio_digest(studio) == plain.digest()
        # the task ran twice (asked, then resumed), the draft once (its result was saved)
        finished = [e.__dict__["node"] for e in studio.events("node.finished") if e.ns]
        assert finished.count("draft") == 1, finished

        # fork: "Resume from here" on the entrypoint's first checkpoint: asks again
        studio.answers.append(_answer("rejected"))
        first = studio.select_first_waiting()
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 2
        plain.call(None, checkpoint_index=first)
        plain.call(LGCommand(resume="rejected"))
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


def test_a_tools_command_and_a_send_to_a_subgraph(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = command_send_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        bps = studio.window.graph_panel.breakpoints
        bps.set_node("per_city", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "per_city")
        assert studio.trigger("step_into") == "paused"  # into the subgraph's own steps
        bps.set_node("per_city", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        top = [e for e in studio.events("node.started") if not e.ns]
        assert [e.__dict__["node"] for e in top].count("per_city") == 2
        routes = [
            (r.__dict__["from_node"], r.__dict__["to"], r.__dict__["reason"])
            for r in studio.events("route")
            if not r.ns
        ]
        assert ("tools", ["fan_out"], "command") in routes, routes
        assert ("fan_out", ["per_city", "per_city"], "conditional") in routes, routes

        # fork from the checkpoint after the tool's Command
        resume_fork_like_plain(studio, plain, "tools")
    finally:
        studio.close()


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_fault_recorded_then_replayed_offline(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, saver: Any
) -> None:
    from tests.e2e.attach_window import decide
    from tests.fixtures.docs_apps import agent_app
    from tests.studio.app_agents import make_window

    app = agent_app(tmp_path, "sync", saver)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        menus.model_timeout.trigger()  # on top of the app's own first timeout: retried twice
        studio.answers.append(lambda dialog: decide(dialog, "approve"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        faults = [
            e for e in studio.window.hub.events if e.__dict__.get("action") == "fault_injected"
        ]
        assert len(faults) == 1
        plain.module.model.timeouts = 2
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume={"decisions": [{"type": "approve"}]}))
        assert studio_digest(studio) == plain.digest()
        live = [(e.kind, e.ns) for e in studio.window.hub.events]
        saved = tmp_path / "recorded.stepwise"
        menus.save_session(str(saved))
    finally:
        studio.close()

    # offline: the recording alone, every event and checkpoint as it was live
    fresh = make_window(qtbot, tmp_path)
    assert fresh.open_session(str(saved))
    if fresh.opened_session.task is not None:
        qloop.run_until_complete(fresh.opened_session.task)
    assert [(e.kind, e.ns) for e in fresh.hub.events] == live
    timeline = fresh.docks["timeline"].widget()
    studio.until(lambda: bool(timeline.timeline.ordered()))
    nodes = timeline.timeline.ordered()
    after_weather = next(n for n in nodes if n.record.writers == ("tools",))
    # "Re-run from here" on it: the recorded replies, no model call; the approval asked again
    answered: list[Any] = []

    def approve(dialog: Any) -> None:
        answered.append(dialog)
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, lambda: decide(dialog, "approve"))

    from studio.run.interrupts import dialog_opened

    disconnect = dialog_opened.connect(approve)
    try:
        before = len(fresh.hub.events)
        timeline.rerunRequested.emit(after_weather.checkpoint_id)
        fresh.confirm_dialog.accept_button.click()
        if saver == "memory":  # the app's saver is new and empty: said, nothing runs
            studio.until(lambda: fresh.error_dialog is not None, 30)
            assert "does not hold this checkpoint" in fresh.error_dialog.message_label.text()
            assert not [e for e in fresh.hub.events[before:] if e.kind == "run.started"]
            return
        studio.until(lambda: "replayed" in fresh.status.message_label.text(), 60)
    finally:
        disconnect()
    assert "no divergence" in fresh.status.message_label.text()
    rerun = fresh.hub.events[before:]
    responses = [e for e in rerun if e.kind == "model.response"]
    assert len(responses) == 2 and all(e.__dict__["replayed"] for e in responses)
    # the Timeline marks the branch's checkpoints as replayed
    studio.until(lambda: any(n.marker("replayed") for n in timeline.timeline.ordered()))
    assert len(answered) == 1  # the approval, asked again and answered: the branch resumed
    # the branch is a fork of the app's thread, as the same fork without Stepwise makes it
    from langchain_core.messages import AIMessage

    from tests.fixtures.plain_langgraph import reader, thread_digest

    served = [
        AIMessage(
            m["content"],
            tool_calls=[
                {"name": c["name"], "args": c["args"], "id": c["id"]}
                for c in m.get("tool_calls") or []
            ],
        )
        for m in (e.__dict__["message"] for e in responses)
    ]
    plain.module.model.messages = iter(served)
    plain.call(None, checkpoint_index=nodes.index(after_weather))
    plain.call(LGCommand(resume={"decisions": [{"type": "approve"}]}))
    thread = fresh.opened_session.thread_id
    assert thread_digest(reader(app, plain.module.graph), thread) == plain.digest()


def test_a_tool_fault_under_an_async_tool_wrapper_pauses_at_the_failure(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = custom_middleware_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        menus.break_on_failure.trigger()  # Debug > Break on Any Failure
        assert studio.window.graph_panel.breakpoints.is_on("failure")
        menus.tool_fault_actions["get_time"].trigger()
        assert studio.trigger("run") == "paused"
        ev = studio.ctl.debugger.current_event
        assert ev is not None and "Injected failure of get_time" in str(ev.__dict__), ev
        menus.break_on_failure.trigger()
        status = studio.trigger("run")
        assert status == "error", (status, studio.ctl.last_error)
        func = plain.module.get_time.coroutine
        calls = iter([True])

        async def failing(city: str) -> str:
            if next(calls, False):
                raise OSError("Injected failure of get_time (Stepwise debugger)")
            return await func(city)

        object.__setattr__(plain.module.get_time, "coroutine", failing)
        with pytest.raises(OSError):
            plain.call(plain.module.INPUT)
        assert studio_digest(studio) == _no_errors(plain.digest())
        # Continue after the failure: the pending tool call runs again, as plain does
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(None)
        assert studio_digest(studio) == _no_errors(plain.digest())
    finally:
        studio.close()


def test_two_interrupts_pending_at_once_from_sends_to_a_subgraph(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from tests.fixtures.probe_apps import parallel_interrupts_app

    app = parallel_interrupts_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    asked: list[Any] = []

    def answer(dialog: Any) -> None:
        # each pending interrupt asked in turn: the city it names gets its own verdict
        asked.append(dialog.value_view.toPlainText())
        value = "no" if "nyc" in asked[-1] else "yes"
        dialog.editor.setPlainText(f'"{value}"')
        dialog.resume_button.click()

    try:
        studio.answers += [answer, answer]
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 2
        assert sorted("nyc" in a for a in asked) == [False, True]  # each city asked once
        plain.call(plain.module.INPUT)
        graph = plain.module.graph
        pending = graph.get_state(plain.config).interrupts
        plain.call(
            LGCommand(
                resume={i.id: "no" if i.value["publish"] == "nyc" else "yes" for i in pending}
            )
        )
        assert studio_digest(studio) == plain.digest()
        values = studio.ctl.graph.real.get_state({"configurable": {"thread_id": studio.thread}})
        assert sorted(values.values["verdicts"]) == ["nyc: no", "sf: yes"]
    finally:
        studio.close()


@pytest.mark.parametrize("saver", ["sqlite", "postgres"])
def test_stop_inside_a_tool_leaves_the_thread_as_a_pause_before_it(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = saver_url(request, saver)
    app = tool_interrupt_app(tmp_path, saver, pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.window.graph_panel.breakpoints.add("tool", "get_weather")
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("tool.started", "get_weather")
        status = studio.trigger("stop")
        assert status in ("cancelled", "stopped"), (status, studio.ctl.last_error)
        # a plain run paused before the tools (interrupt_before) holds the same thread
        module = plain.module
        stopped = module.graph.copy(update={"interrupt_before_nodes": ["tools"]})
        stopped.invoke(module.INPUT, plain.config)
        assert studio_digest(studio) == plain.digest()
        assert _write_rows(app, studio.thread) == _write_rows(app, "plain")
    finally:
        studio.close()


def test_editing_state_while_a_tool_waits_for_an_answer(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = tool_interrupt_app(tmp_path, "sqlite")
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.answers.append(lambda dialog: dialog.cancel_button.click())  # "Answer later"
        status = studio.trigger("run")
        assert status == "interrupted", (status, studio.ctl.last_error)
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        # edit the model's tool-call message while the booking waits: its text
        tip = studio.checkpoints()[-1]
        studio.select(tip.checkpoint_id)
        edited, as_node = studio.edit_last_message("Booking, if you agree.")

        def edit(graph: Any, config: dict[str, Any]) -> Any:
            from tests.fixtures.plain_langgraph import reader

            last = reader(app, graph).get_state(config).values["messages"][-1]
            return {"messages": [last.model_copy(update={"content": edited["content"]})]}

        plain.update(edit, as_node)
        assert studio_digest(studio) == plain.digest()
        # F5: runs on from the edit; the booking asks again, answered "yes"
        studio.answers.append(_answer("yes"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(None)
        plain.call(LGCommand(resume="yes"))
        # the edited tip is run on (the booking asks anew, its interrupt saved where plain
        # LangGraph saves it), not answered with the question asked before the edit
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()
