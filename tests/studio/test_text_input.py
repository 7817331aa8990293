"""A graph whose input is a plain string (a functional ``@entrypoint`` of ``topic: str``) gets
that string, not a chat message made of it: typed into the input form or given as the file's
``INPUT``, on the real LangGraph (attached, its own SQLite checkpointer read back by plain
LangGraph) and on the engine."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

from PySide6.QtCore import Qt

from tests.studio.app_agents import make_window, run_until

ATTACHED = """
import sqlite3
from langgraph.func import entrypoint, task
from langgraph.checkpoint.sqlite import SqliteSaver


@task
def write_essay(topic: str) -> str:
    return f"An essay about {{topic}}"


conn = sqlite3.connect({db!r}, check_same_thread=False)


@entrypoint(checkpointer=SqliteSaver(conn))
def workflow(topic: str) -> dict:
    return {{"essay": write_essay(topic).result()}}
"""

ENGINE = """
from engine import entrypoint
from engine.checkpoint import InMemorySaver


@entrypoint(checkpointer=InMemorySaver())
def workflow(topic: str) -> str:
    return f"An essay about {topic}"


INPUT = "cats"
"""


def test_a_string_typed_into_the_form_reaches_the_app_as_a_string(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    db = tmp_path / "app.db"
    path = tmp_path / "essay_app.py"
    path.write_text(ATTACHED.format(db=str(db)))
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{path}:workflow")
    window.actions_.run.trigger()
    dialog = window.input_form_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.json_edit is not None
    dialog.tabs.setCurrentWidget(dialog.json_edit)
    dialog.json_edit.setPlainText('"cats"')
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    thread = window.hub.thread_id

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.func import entrypoint

    conn = sqlite3.connect(db, check_same_thread=False)
    try:  # the app's own database, read back by plain LangGraph

        @entrypoint(checkpointer=SqliteSaver(conn))
        def workflow(topic: str) -> dict[str, str]:
            raise AssertionError("only read")

        state = workflow.get_state({"configurable": {"thread_id": thread}})
    finally:
        conn.close()
    assert state.values == {"essay": "An essay about cats"}


def test_a_files_string_input_runs_as_given_on_the_engine(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    path = tmp_path / "essay_engine.py"
    path.write_text(ENGINE)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{path}:workflow")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    snap = window.hub.snapshot()
    assert snap is not None and snap.values == "An essay about cats"
