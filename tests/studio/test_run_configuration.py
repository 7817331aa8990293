"""Run Configuration... (Debug menu): an app that reads ``config["configurable"]["user_id"]``,
as LangGraph's memory docs write it, runs in the window once the keys are given, on the real
LangGraph with its own SQLite checkpointer (read back by plain LangGraph); bad JSON in the
dialog is said in one line and loses nothing."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

from PySide6.QtCore import Qt

from studio.app.entry import parse_args
from tests.studio.app_agents import make_window, run_until

MEMORY_APP = """
import sqlite3
import uuid
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore


def call_model(state: MessagesState, config: RunnableConfig, *, store: BaseStore):
    user_id = config["configurable"]["user_id"]
    namespace = ("memories", user_id)
    memories = store.search(namespace)
    store.put(namespace, str(uuid.uuid4()), {{"data": state["messages"][-1].content}})
    return {{"messages": [AIMessage(f"{{len(memories)}} memories of {{user_id}}")]}}


builder = StateGraph(MessagesState)
builder.add_node("call_model", call_model)
builder.add_edge(START, "call_model")
conn = sqlite3.connect({db!r}, check_same_thread=False)
graph = builder.compile(checkpointer=SqliteSaver(conn), store=InMemoryStore())
"""


def test_the_apps_configurable_keys_from_the_dialog_reach_its_nodes(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    db = tmp_path / "memory.db"
    path = tmp_path / "memory_app.py"
    path.write_text(MEMORY_APP.format(db=str(db)))
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{path}:graph")
    window.menus.configurable_action.trigger()
    dialog = window.menus.configurable_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.editor.setPlainText('{"user_id": ada}')
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.error_label.text().startswith("Not valid JSON: ")
    assert dialog.editor.toPlainText() == '{"user_id": ada}'  # what was typed stays
    dialog.editor.setPlainText('{"thread_id": "t"}')
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.error_label.text() == "thread_id is set by Stepwise, not here"
    dialog.editor.setPlainText('{"user_id": "ada"}')
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: not dialog.isVisible())
    assert window.controller.configurable == {"user_id": "ada"}
    for text in ("I like tea", "and scones"):
        window.input_bar.message_edit.setText(text)
        window.send_message()
        run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    thread = window.hub.thread_id

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, MessagesState, StateGraph

    conn = sqlite3.connect(db, check_same_thread=False)
    try:  # the app's own database, read back by plain LangGraph
        plain = StateGraph(MessagesState).add_node("call_model", lambda s: {})
        plain = plain.add_edge(START, "call_model").compile(checkpointer=SqliteSaver(conn))
        values = plain.get_state({"configurable": {"thread_id": thread}}).values
    finally:
        conn.close()
    said = [m.content for m in values["messages"] if m.type == "ai"]
    assert said == ["0 memories of ada", "1 memories of ada"]


def test_stepwise_open_takes_the_configurable_keys_as_json() -> None:
    args = parse_args(["open", "app.py:graph", "--configurable-json", '{"user_id": "ada"}'])
    assert args.configurable_json == '{"user_id": "ada"}'
    with pytest.raises(SystemExit):
        parse_args(["open", "app.py:graph", "--configurable-json", '["ada"]'])
