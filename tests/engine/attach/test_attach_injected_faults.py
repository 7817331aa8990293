"""A fault the debugger injects into an attached run is the debugger's failure, not the app's:
LangGraph would save its error into the app's thread (an ``__error__`` write naming Stepwise);
attach mode leaves it out, so the app's database holds only what the app did, and plain
LangGraph continues the thread as after any failure.  The app's own errors are still saved."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")
pytest.importorskip("langgraph.checkpoint.sqlite")

from langgraph.checkpoint.sqlite import SqliteSaver

from engine.attach import attach
from engine.attach.confirm import _the_apps
from engine.debug import Debugger
from engine.observe.faults import injected
from engine.targets import AttachTarget, RunRequest
from tests.fixtures.docs_apps import agent_app
from tests.fixtures.plain_langgraph import plain_module


async def _run(target: AttachTarget, request: RunRequest, debugger: Debugger) -> Any:
    run = target.run(request, debugger)
    async for _ev in run:
        pass
    return run.outcome


def test_an_injected_tool_failure_is_not_saved_into_the_apps_sqlite_thread(
    tmp_path: Path,
) -> None:
    app = agent_app(tmp_path, "sync", "sqlite")
    module = plain_module(app)
    target = AttachTarget(attach(module.graph))
    debugger = Debugger()
    debugger.inject_tool_error("get_weather")

    outcome = asyncio.run(_run(target, RunRequest(module.INPUT, "t1"), debugger))

    assert outcome.status == "error"
    assert outcome.error is not None and "Injected failure of tool 'get_weather'" in outcome.error
    assert app.db is not None
    rows = sqlite3.connect(app.db).execute(
        "SELECT channel, value FROM writes WHERE thread_id = 't1'"
    )
    written = [(channel, bytes(value or b"")) for channel, value in rows]
    assert written  # the run's real writes are there
    assert all(channel != "__error__" for channel, _ in written)
    assert not any(b"Stepwise" in value for _, value in written)

    saver = SqliteSaver(sqlite3.connect(app.db, check_same_thread=False))
    plain = plain_module(app).graph.copy(update={"checkpointer": saver})  # no Stepwise
    config = {"configurable": {"thread_id": "t1"}}
    snap = plain.get_state(config)
    assert snap.next == ("tools",)
    assert all(task.error is None for task in snap.tasks)
    plain.invoke(None, config)  # the failed task runs again
    tool_replies = [
        m.content for m in plain.get_state(config).values["messages"] if m.type == "tool"
    ]
    assert tool_replies[:1] == ["It's always sunny in sf!"]


def test_only_the_debuggers_errors_are_left_out() -> None:
    apps = OSError("the disk is full")
    ours = injected(OSError("Injected failure of tool 'x' (Stepwise debugger)"))
    writes = [("messages", ["hi"]), ("__error__", ours), ("__error__", apps)]
    assert _the_apps(writes) == [("messages", ["hi"]), ("__error__", apps)]
