"""Attach mode through the real window on app shapes the matrix does not cover
(``tests.fixtures.probe_apps``), each compared with the same steps on plain LangGraph: a user's
own middleware class with async tools (breakpoints and stepping through its layers), a tool
that calls ``interrupt()`` itself, a functional-API task that interrupts, ``Command`` from a
tool and ``Send`` to a subgraph, two interrupts pending at once, Stop inside a tool, and an
edit while a tool waits for its answer.  Faults injected from the Faults menu are
``test_attach_fault_probes``.
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
