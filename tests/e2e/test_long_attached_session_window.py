"""A long chat with an attached app, through the real window: the Events tree folds its older
runs and the Timeline its oldest checkpoints (``studio.qtmodels.event_fold`` /
``timeline_fold``, made small here so a few turns reach them), every run and checkpoint stays
reachable in the docks, and plain LangGraph reads from the app's SQLite database exactly the
checkpoints the Timeline shows.

The app is written the way the docs write one: ``create_agent`` with a sync ``@tool``, a
``@before_model`` middleware hook and a ``SqliteSaver``; the messages are typed into the chat
box and sent with its button."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("langgraph.checkpoint.sqlite")
pytest.importorskip("langchain.agents")

from studio.models.timeline import CheckpointNode, iter_tree
from studio.qtmodels.event_fold import RootFold
from studio.qtmodels.timeline_fold import TimelineFold
from tests.e2e.attach_window import Studio
from tests.engine.attach.test_attach_saver_truth import saved_ids
from tests.fixtures.docs_apps import AppFile, write_app
from tests.fixtures.plain_langgraph import plain_module

CHAT_APP = '''
"""A chat agent that writes files, as the docs write one."""
import itertools
import sqlite3

from langchain.agents import create_agent
from langchain.agents.middleware import before_model
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def replies():
    for i in itertools.count():
        yield AIMessage(
            "", tool_calls=[{"name": "create_file", "args": {"path": f"f{i}.py"}, "id": f"c{i}"}]
        )
        yield AIMessage(f"Created f{i}.py.")


@tool
def create_file(path: str) -> str:
    """Create an empty file."""
    return f"created {path}"


@before_model
def note_length(state, runtime):
    return None


checkpointer = SqliteSaver(sqlite3.connect(DB, check_same_thread=False))
graph = create_agent(
    ScriptedModel(messages=replies()),
    [create_file],
    middleware=[note_length],
    checkpointer=checkpointer,
)
'''

TURNS = 12


def test_a_long_attached_chat_folds_both_docks_and_the_database_agrees(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(RootFold, "KEEP", 3)
    monkeypatch.setattr(RootFold, "STEP", 2)
    monkeypatch.setattr(TimelineFold, "KEEP", 10)
    monkeypatch.setattr(TimelineFold, "STEP", 6)
    db = tmp_path / "app.sqlite"
    written = write_app(tmp_path, CHAT_APP.replace("DB,", f"{str(db)!r},"), "chat_app")
    app = AppFile(written.path, db=str(db), saver="sqlite")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        bar = studio.window.input_bar
        for i in range(TURNS):
            qtbot.waitUntil(bar.send_button.isEnabled)
            bar.message_edit.setText(f"Please create file {i}.")
            qtbot.mouseClick(bar.send_button, Qt.MouseButton.LeftButton)
            assert studio.until_rest() == "done", studio.ctl.last_error
        studio.window.controller.batcher.flush()

        events = studio.window.docks["events"].widget()
        events.flush()
        model = events.model
        runs = model.tree.children(model.tree.root)
        assert len(runs) == TURNS
        assert model.fold.on and model.rowCount() <= 1 + 3 + 2
        assert model.index(0, 0).data() == f"{model.fold.count} earlier runs"
        for run in runs:  # each run reachable, under the fold or not, and shown as done
            index = model.index_of(run)
            assert model.row_at(index) is run and "done" in index.data()

        timeline = studio.window.docks["timeline"].widget()
        studio.until(lambda: timeline.item_model.fold.row is not None)
        shown = [
            item.checkpoint_id
            for _depth, item in iter_tree(timeline.timeline)
            if isinstance(item, CheckpointNode)
        ]
        for cid in shown:
            node = timeline.timeline.get(cid)
            assert timeline.item_model.item(timeline.item_model.index_of(node)) is node
        assert timeline.item_model.rowCount() <= 1 + 10 + 6

        # plain LangGraph, on a fresh import of the app, reads the same checkpoints
        in_db = saved_ids(app, plain_module(app).graph, studio.thread)
        assert len(in_db) >= TURNS * 3
        assert sorted(shown) == sorted(in_db)
    finally:
        studio.close()
