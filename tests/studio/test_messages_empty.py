"""An empty Messages dock says why it is empty: nothing loaded, a graph whose state has no
messages channel (its values are in the State dock), or a conversation not started yet; the
transcript takes its place once there is a message."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.studio.app_agents import factory, make_window, run_until

COUNTER = """
from typing import TypedDict

from engine.graph import END, START, StateGraph


class State(TypedDict):
    n: int


def bump(state: State) -> dict:
    return {"n": state["n"] + 1}


builder = StateGraph(State)
builder.add_node("bump", bump)
builder.add_edge(START, "bump")
builder.add_edge("bump", END)
graph = builder.compile()
"""


def _dock(window: Any) -> Any:
    return window.docks["messages"].widget()


def test_a_graph_without_messages_is_explained_not_shown_as_an_empty_list(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    dock = _dock(window)
    assert dock.pages.currentWidget() is dock.empty_label
    assert "Load an agent" in dock.empty_label.text()

    app = tmp_path / "counter.py"
    app.write_text(textwrap.dedent(COUNTER))
    window.controller.load(f"{app}:graph")
    qtbot.waitUntil(lambda: "no messages channel" in dock.empty_label.text())
    window.controller.start({"n": 1})
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    assert window.hub.snapshot().values == {"n": 2}
    assert dock.pages.currentWidget() is dock.empty_label
    assert "State dock" in dock.empty_label.text()


def test_a_chat_agent_shows_its_conversation_once_it_has_one(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    dock = _dock(window)
    window.controller.load_factory(factory(), "seed000")
    qtbot.waitUntil(lambda: "No messages yet" in dock.empty_label.text())
    assert dock.pages.currentWidget() is dock.empty_label
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    qtbot.waitUntil(lambda: dock.pages.currentWidget() is dock.view)
    assert dock.entries
    window.hub.reset()
    qtbot.waitUntil(lambda: dock.pages.currentWidget() is dock.empty_label)
