"""A LangGraph project whose ``langgraph.json`` names a graph factory (a context manager that
opens the app's own SQLite checkpointer), opened in the window by its folder and run with the
Run action: the run opens the factory with its context and ``configurable`` keys, the thread
reads back with plain LangGraph, and the app's database being written in the project folder
does not make the window reload the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")
pytest.importorskip("langgraph_sdk.runtime")

from langgraph.checkpoint.sqlite import SqliteSaver

from tests.engine.attach.test_attach_factory import _project
from tests.studio.app_agents import make_window, run_until


def test_a_factory_project_runs_in_the_window_on_its_own_database(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    spec, db = _project(tmp_path)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(spec)
    ctl = window.controller
    module = ctl._factory.module
    assert module.LOG == [("open", "assistants.read", None, None)]
    ctl.context = {"user": "ada"}
    ctl.configurable = {"tone": "bold"}

    window.actions_.run.trigger()
    run_until(qloop, lambda: ctl.status == "done" and not ctl.busy)

    assert module.LOG[1:] == [
        ("open", "threads.create_run", "bold", {"user": "ada"}),
        ("close", "threads.create_run"),
    ]
    thread = window.hub.thread_id
    with SqliteSaver.from_conn_string(str(db)) as saver:
        saved = saver.get_tuple({"configurable": {"thread_id": thread}})
    assert saved is not None
    assert saved.checkpoint["channel_values"]["line"] == "bold cats for ada"
    assert str(tmp_path) not in window.reloader.watcher.files()  # the folder is not a file
    assert not window.reloader.pending and not window.reloader.changed_files()
