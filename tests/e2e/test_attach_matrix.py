"""Attach mode through the real window, on apps written as the docs write them, read back
through plain LangGraph: after each step (run with a breakpoint, step, approve / edit /
reject, edit state, fork, replay, resume a saved thread) the app's own database holds exactly
what the same steps without Stepwise leave (``thread_digest``).

The docs' agent (``create_agent``, retry, human-in-the-loop and summarization middleware) runs
in six variants: {sync, async} tools on {InMemorySaver, SqliteSaver, AsyncSqliteSaver,
PostgresSaver (a throwaway server)}, less the two a plain app cannot run (async tools on a
sync-only saver); each answers the approval differently.  Then a non-chat StateGraph with a
conditional edge and a compiled subgraph, a functional-API entrypoint, and agents invoked
inside nodes with handoffs.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from langgraph.types import Command as LGCommand

from tests.e2e.attach_window import (
    Plain,
    Studio,
    decide,
    resume_fork_like_plain,
    saver_url,
    studio_digest,
)
from tests.fixtures.docs_app_sources import FUNCTIONAL_APP, HANDOFF_APP, STATEGRAPH_APP
from tests.fixtures.docs_apps import agent_app, write_app
from tests.fixtures.plain_langgraph import plain_module
from tests.fixtures.postgres import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]

AGENT_CASES = [
    ("sync", "memory", "approve"),
    ("sync", "sqlite", "edit"),
    ("sync", "aiosqlite", "reject"),
    ("sync", "postgres", "approve"),
    ("async", "memory", "reject"),
    ("async", "aiosqlite", "edit"),
]


def resumed_value(studio: Studio) -> Any:
    values = [e.__dict__["value"] for e in studio.events("interrupt.resumed")]
    assert values, "no interrupt was answered"
    return values[-1]


@pytest.mark.parametrize(("tools", "saver", "decision"), AGENT_CASES)
def test_a_docs_agent_through_the_window(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    tools: Any,
    saver: Any,
    decision: str,
) -> None:
    pg = saver_url(request, saver)
    app = agent_app(tmp_path, tools, saver, pg_url=pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        # run, paused by a breakpoint before the tools; step over; continue; the approval
        studio.window.graph_panel.breakpoints.set_node("tools", True)
        studio.answers.append(lambda dialog: decide(dialog, decision))
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "tools")
        assert studio.trigger("step_over") == "paused"
        studio.window.graph_panel.breakpoints.set_node("tools", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 1 and type(studio.dialogs[0]).__name__ == "ApprovalDialog"
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume=resumed_value(studio)))
        assert studio_digest(studio) == plain.digest()
        tokens = studio.events("model.token")
        assert tokens, "the studio streams the agent's tokens by default"

        # edit state: the newest message's text, in the Edit state dialog
        tip = studio.checkpoints()[-1]
        studio.select(tip.checkpoint_id)
        edited, as_node = studio.edit_last_message("Edited by hand.")

        def edit(graph: Any, config: dict[str, Any]) -> Any:
            last = plain_last_message(graph, config, app)
            return {"messages": [last.model_copy(update={"content": edited["content"]})]}

        plain.update(edit, as_node)
        assert studio_digest(studio) == plain.digest()

        # fork: "Resume from here" on the checkpoint after the weather tool answered
        resume_fork_like_plain(studio, plain, "tools")
    finally:
        studio.close()


def plain_last_message(graph: Any, config: dict[str, Any], app: Any) -> Any:
    from tests.fixtures.plain_langgraph import reader

    return reader(app, graph).get_state(config).values["messages"][-1]


def test_replay_from_a_checkpoint_serves_the_recorded_replies(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from langchain_core.messages import AIMessage

    app = agent_app(tmp_path, "sync", "sqlite")
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.answers.append(lambda dialog: decide(dialog, "approve"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume=resumed_value(studio)))
        # "Re-run with replay" on the checkpoint after the weather tool: the model's next
        # reply comes from the recording; the approval is asked again, and the run it
        # resumes is the app's own (RunDriver drops the replay when it answers an interrupt)
        fork = studio.select_written_by("tools")
        studio.answers.append(lambda dialog: decide(dialog, "approve"))
        before = len(studio.window.hub.events)
        assert studio.click(studio.timeline.rerun_button) == "done", studio.ctl.last_error
        rerun = studio.window.hub.events[before:]
        served = [
            e.__dict__["message"]
            for e in rerun
            if e.kind == "model.response"
            and (e.__dict__.get("message") or {}).get("response_metadata", {}).get("replayed")
        ]
        assert len(served) == 1 and served[0]["tool_calls"][0]["name"] == "send_email"
        assert not [e for e in rerun if e.__dict__.get("action") == "replay_diverged"]
        # the same branch without Stepwise: a model that answers what was served, then goes
        # on with its own script
        recorded = [
            AIMessage(
                m["content"],
                tool_calls=[
                    {"name": c["name"], "args": c["args"], "id": c["id"]}
                    for c in m.get("tool_calls") or []
                ],
            )
            for m in served
        ]
        plain.module.model.messages = itertools.chain(recorded, plain.module.model.messages)
        plain.call(None, checkpoint_index=fork)
        plain.call(LGCommand(resume=resumed_value(studio)))
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


@pytest.mark.parametrize("saver", ["sqlite", "aiosqlite", "postgres"])
def test_a_saved_thread_is_opened_and_resumed(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = saver_url(request, saver)
    app = agent_app(tmp_path, "sync", saver, pg_url=pg)
    Plain(app, "T").call(plain_module(app).INPUT)  # production: waits for the approval
    Plain(app, "P").call(plain_module(app).INPUT)
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        from studio.run.saved_threads import open_in_window

        summary = qloop.run_until_complete(open_in_window(studio.window, "T"))
        assert summary is not None and summary.interrupts
        pane = studio.window.docks["messages"].widget()
        studio.until(lambda: len(pane.live_entries) == 4)
        # F5 answers the approval; the app's model, loaded afresh, starts its script again:
        # it asks for the weather, then for the email once more
        studio.answers += [lambda d: decide(d, "approve"), lambda d: decide(d, "approve")]
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert studio.thread == "T"
        # a new process resuming the same way without Stepwise
        resuming = Plain(app, "P")
        for value in [e.__dict__["value"] for e in studio.events("interrupt.resumed")]:
            resuming.call(LGCommand(resume=value))
        assert studio_digest(studio) == resuming.digest()
    finally:
        studio.close()


def test_a_stategraph_with_a_subgraph_through_the_window(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, STATEGRAPH_APP)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.window.graph_panel.breakpoints.set_node("review", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "review")
        assert studio.trigger("step_into") == "paused"  # into the subgraph's own steps
        studio.window.graph_panel.breakpoints.set_node("review", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert any(e.ns for e in studio.events("node.started"))  # the subgraph's nodes
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        # edit state: a value, in the Edit state dialog's JSON
        tip = studio.checkpoints()[-1]
        studio.select(tip.checkpoint_id)
        dialog = studio.timeline.open_edit_dialog()
        values = __import__("json").loads(dialog.values_edit.toPlainText())
        values["topic"] = "dogs"
        dialog.values_edit.setPlainText(__import__("json").dumps(values))
        as_node = dialog.as_node_combo.currentData()
        dialog.apply_button.click()
        studio.until(lambda: dialog.new_checkpoint_id is not None)
        plain.update(lambda _g, _c: {"topic": "dogs"}, as_node)
        assert studio_digest(studio) == plain.digest()
        # fork from before the first review
        nodes = [n for n in studio.checkpoints() if n.next == ("review",)]
        index = studio.checkpoints().index(nodes[0])
        studio.select(nodes[0].checkpoint_id)
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        plain.call(None, checkpoint_index=index)
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


def test_a_functional_api_entrypoint_through_the_window(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, FUNCTIONAL_APP)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)

    def answer(dialog: Any) -> None:
        dialog.editor.setPlainText('"yes"')
        dialog.resume_button.click()

    try:
        studio.answers.append(answer)
        # a breakpoint on a task: the run pauses inside the entrypoint, before its first task
        studio.window.graph_panel.breakpoints.set_node("forecast", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "forecast")
        assert studio.trigger("step_over") == "paused"
        studio.window.graph_panel.breakpoints.set_node("forecast", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert type(studio.dialogs[0]).__name__ == "ResumeValueDialog"
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == plain.digest()
        tasks = [e.__dict__["node"] for e in studio.events("node.finished") if e.ns]
        assert tasks.count("forecast") == 2
        # fork: "Resume from here" on the entrypoint's first checkpoint, as plain LangGraph
        # does with invoke(None, that checkpoint's config)
        studio.answers.append(answer)  # should the fork ask again
        first = studio.select_first_waiting()
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        plain.call(None, checkpoint_index=first)
        if len(studio.dialogs) == 2:  # it asked again: answered the same on both sides
            plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


def test_agents_inside_nodes_hand_off_through_the_window(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, HANDOFF_APP)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        # run, paused before bob; step into bob's agent; continue
        studio.window.graph_panel.breakpoints.set_node("bob", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "bob")
        assert studio.trigger("step_into") == "paused"
        studio.window.graph_panel.breakpoints.set_node("bob", False)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        routes = [e for e in studio.events("route") if e.__dict__["reason"] == "command"]
        assert [(r.__dict__["from_node"], r.__dict__["to"]) for r in routes] == [("alice", ["bob"])]
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()

        # edit state: Bob's answer, in the Edit state dialog
        tip = studio.checkpoints()[-1]
        studio.select(tip.checkpoint_id)
        edited, as_node = studio.edit_last_message("Bob, edited.")

        def edit(graph: Any, config: dict[str, Any]) -> Any:
            last = plain_last_message(graph, config, app)
            return {"messages": [last.model_copy(update={"content": edited["content"]})]}

        plain.update(edit, as_node)
        assert studio_digest(studio) == plain.digest()

        # fork: "Resume from here" on the checkpoint after alice handed off
        resume_fork_like_plain(studio, plain, "alice")
    finally:
        studio.close()
