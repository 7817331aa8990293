"""The Request dock shows what the selected model call sent: messages, tools with their JSON
schemas, tool choice, parameters (no credentials), live and from a recorded session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from engine.events import ModelRequest
from studio.models.hub import Hub
from studio.models.request_view import RequestIndex, document
from tests.studio import obs_agents
from tests.studio.app_agents import make_window, run_until


def _run(qloop: Any, window: Any) -> Any:
    window.controller.load_factory(
        lambda: (obs_agents.priced_agent(delay=0.0), obs_agents.first_input()), "places"
    )
    window.run_or_continue()
    run_until(qloop, lambda: window.hub.status == "done")
    log = window.docks["events"].widget()
    log.flush()
    return log


def _click_row(qtbot: Any, log: Any, row: Any) -> None:
    """Reveal ``row`` (its parents expanded, scrolled to), deselect, then click it."""
    log.select_seq(row.seq, row.event.run_id)
    log.view.selectionModel().clearCurrentIndex()
    log.hub.select_event(None)
    rect = log.view.visualRect(log.model.index_of(row))
    qtbot.mouseClick(log.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_selected_model_call_shows_its_whole_request(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    log = _run(qloop, window)
    dock = window.docks["request"].widget()
    assert dock.doc is None and "Select a model call" in dock.placeholder.text()
    last_call = [r for r in log.tree.rows if r.kind == "model.request"][-1]
    _click_row(qtbot, log, last_call)
    assert window.hub.selected_event is last_call.event
    qtbot.waitUntil(lambda: dock.request is last_call.event)
    assert dock.title.text().startswith("model gpt-4o-mini · 5 messages · 2 tools")
    text = dock.text_view.toPlainText()
    assert "── system ──\nYou answer questions about places. Use the tools." in text
    assert '→ weather({"city": "Oslo"})  [call_w]' in text
    assert "── tool weather [call_w] ──\nSunny in Oslo, 21 °C" in text
    assert '"city": {' in text and "the city's name" in text  # the tool's JSON schema
    assert "temperature=0.2" in text
    assert "sk-test-not-shown" not in text and 'api_key="[redacted]"' in text
    # the JSON tab: the same document as a tree; Copy gives it whole
    dock.tabs.setCurrentWidget(dock.tree)
    keys = [dock.tree.topLevelItem(i).text(0) for i in range(dock.tree.topLevelItemCount())]
    assert keys[:5] == ["model", "parameters", "tool_choice", "messages", "tools"]
    messages = next(dock.tree.topLevelItem(i) for i in range(len(keys)) if keys[i] == "messages")
    assert [messages.child(i).text(0) for i in range(messages.childCount())] == [
        "0 system",
        "1 human",
        "2 ai places",
        "3 tool weather",
        "4 tool local_time",
    ]
    dock.copy_button.click()
    copied = json.loads(QApplication.clipboard().text())
    assert len(copied["messages"]) == 5 and copied["tools"][0]["name"] == "weather"
    assert copied["parameters"]["api_key"] == "[redacted]"


def test_an_attempt_stands_for_its_call_and_other_rows_keep_the_request(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    log = _run(qloop, window)
    dock = window.docks["request"].widget()
    attempts = [r for r in log.tree.rows if r.kind == "attempt.started"]
    _click_row(qtbot, log, attempts[1])  # the retry: one call inside it
    qtbot.waitUntil(lambda: dock.request is not None)
    call = attempts[1].children[0]
    assert call.kind == "model.request" and dock.request is call.event
    assert dock.title.text().startswith("model gpt-4o-mini · 2 messages · 2 tools")
    route = next(r for r in log.tree.rows if r.kind == "route")
    _click_row(qtbot, log, route)
    assert window.hub.selected_event is route.event
    assert dock.request is call.event  # a route is no model call: the request stays


def test_a_recorded_session_shows_the_same_request(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    _run(qloop, window)
    live = window.docks["request"].widget()
    last = [e for e in window.hub.events if e.kind == "model.request"][-1]
    window.hub.select_event(last)
    live_text = live.text_view.toPlainText()
    session = window.controller.session_path
    window.controller.close()
    assert window.open_session(str(session))
    run_until(qloop, lambda: any(e.kind == "run.finished" for e in window.hub.events))
    replayed = [e for e in window.hub.events if e.kind == "model.request"][-1]
    window.hub.select_event(replayed)
    dock = window.docks["request"].widget()
    qtbot.waitUntil(lambda: dock.request is replayed)
    assert dock.text_view.toPlainText() == live_text


def test_a_session_recorded_before_full_requests_says_what_it_lacks() -> None:
    old = ModelRequest(
        run_id="r",
        seq=3,
        model="gpt-4o",
        messages_count=12,
        last_messages=[{"type": "human", "content": "hi"}],
        tools=["search"],
    )
    index = RequestIndex()
    index.add_all([old])
    doc = document(old, index)
    assert doc["complete"] is False
    assert doc["messages"] == [{"type": "human", "content": "hi"}]
    assert doc["tools"] == [{"name": "search"}]
    assert "last 1 of 12 messages" in doc["note"]


def test_the_dock_alone_follows_the_hub(qtbot: Any) -> None:
    from studio.docks.request import RequestDock

    hub = Hub()
    dock = RequestDock(hub)
    qtbot.addWidget(dock)
    req = ModelRequest(
        run_id="r",
        seq=1,
        span_id="s1",
        model="m",
        messages=[{"type": "system", "content": "<b>not bold</b>"}],
        tool_schemas=[],
    )
    hub.add_events([req])
    hub.select_event(req)
    assert "<b>not bold</b>" in dock.text_view.toPlainText()  # shown as typed, never as HTML
    hub.reset()
    assert dock.doc is None and dock.stack.currentWidget() is dock.placeholder


UNBOUND_APP = '''
from langchain.agents import create_agent
from langchain.tools import tool
MODEL_IMPORTS

SCRIPTED_MODEL


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


@tool
def get_time(city: str) -> str:
    """The time in a city."""
    return "noon"


graph = create_agent(
    ScriptedModel(messages=iter([AIMessage("Sunny, at noon.")])), tools=[get_weather, get_time]
)
INPUT = {"messages": [{"role": "user", "content": "Weather and time in Oslo?"}]}
'''


def test_an_attached_agent_whose_model_kept_no_tools_says_it_has_them(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    """LangChain's fake chat models return themselves from ``bind_tools``: the call reaches the
    model without tools, and the dock says so beside the agent's own tools."""
    import pytest

    pytest.importorskip("langchain.agents")
    from tests.fixtures.docs_apps import _MODEL_IMPORTS, SCRIPTED_MODEL, write_app

    source = UNBOUND_APP.replace("MODEL_IMPORTS", _MODEL_IMPORTS)
    app = write_app(tmp_path, source.replace("SCRIPTED_MODEL", SCRIPTED_MODEL.strip()))
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(app.spec)
    window.run_or_continue()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    request = next(e for e in window.hub.events if e.kind == "model.request")
    dock = window.docks["request"].widget()
    window.hub.select_event(request)
    qtbot.waitUntil(lambda: dock.request is request)
    assert "· 0 of the agent's 2 tools ·" in dock.title.text()
    assert "get_weather, get_time" in dock.title.toolTip()
    assert "the agent's tool node has get_weather, get_time" in dock.text_view.toPlainText()
    assert dock.doc is not None and dock.doc["tools"] == []  # what was sent, unchanged
