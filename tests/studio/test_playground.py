"""The what-if playground: a model call's exact request, edited and sent again (the agent's
model, Settings' model over HTTP, a scripted answer), answers side by side, "continue from
here" forking the thread, "re-run from here" with another model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from engine.messages import AIMessage
from resources.scenarios.retry_todos import INPUT, build_agent
from studio.run.agent_source import user_message
from tests.fixtures.openai_server import FakeOpenAIServer, openai_server
from tests.studio.app_agents import click, make_window, run_until

__all__ = ["openai_server"]


def _window(qtbot: Any, qloop: Any, tmp_path: Path) -> Any:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(
        lambda: (build_agent(initial_delay=0.001, model_timeouts=0), user_message(INPUT)),
        "seed",
    )
    window.controller.start()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    return window


def _model_calls(window: Any) -> list[Any]:
    return [e for e in window.hub.events if e.kind == "model.request"]


def _open(qtbot: Any, qloop: Any, window: Any, call: Any) -> Any:
    log = window.docks["events"].widget()
    assert log.select_seq(call.seq, call.run_id)
    assert log.whatif_button.isEnabled()
    click(qtbot, qloop, log.whatif_button)
    dialog = window.playground
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def _pick(dialog: Any, kind: str) -> None:
    index = next(i for i, t in enumerate(dialog.targets) if t.kind == kind)
    dialog.target_combo.setCurrentIndex(index)


def test_the_request_is_the_calls_exact_request(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    calls = _model_calls(window)
    third = calls[2]  # after write_todos and the login.tsx write
    log = window.docks["events"].widget()
    log.select_seq(calls[0].seq, calls[0].run_id)
    assert log.whatif_button.isEnabled()
    log.select_seq(calls[0].seq - 1, calls[0].run_id)  # not a model call
    assert not log.whatif_button.isEnabled()
    dialog = _open(qtbot, qloop, window, third)
    data = json.loads(dialog.editor.toPlainText())
    assert data["model"] == "scripted-coder"
    assert data["system_prompt"].startswith("You are a coding assistant")
    types = [m["type"] for m in data["messages"]]
    assert types == ["human", "ai", "tool", "ai", "tool"]  # the whole history, not the tail
    assert data["messages"][0]["content"] == INPUT
    assert sorted(t["name"] for t in data["tools"]) == ["create_file", "write_todos"]
    create = next(t for t in data["tools"] if t["name"] == "create_file")
    assert create["parameters"]["properties"]["path"]["type"] == "string"  # schemas, not names
    assert not dialog.note.isVisible()
    # the original answer is the first card
    assert dialog.cards[0].answer.source == "Original"
    assert dialog.cards[0].answer.message.tool_calls[0]["args"]["path"] == "register.tsx"
    assert dialog.header.text() == (
        f"Model call · node model · step {third.step} · scripted-coder · event #{third.seq}"
    )


def test_bad_json_is_one_line_and_loses_nothing(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _open(qtbot, qloop, window, _model_calls(window)[0])
    broken = dialog.editor.toPlainText()[:-3] + ",,"
    dialog.editor.setPlainText(broken)
    _pick(dialog, "agent")
    click(qtbot, qloop, dialog.send_button)
    assert dialog.error_label.text().startswith("The request is not valid JSON")
    assert "\n" not in dialog.error_label.text()
    assert dialog.editor.toPlainText() == broken
    assert len(dialog.cards) == 1  # nothing was sent
    _pick(dialog, "scripted")
    dialog.scripted_edit.setPlainText('{"content": "x", "tool_calls": [')
    dialog.editor.setPlainText(dialog.request.to_text())
    click(qtbot, qloop, dialog.send_button)
    assert dialog.status.text().startswith("The answer looks like JSON but is not valid")
    assert dialog.scripted_edit.toPlainText() == '{"content": "x", "tool_calls": ['


def test_the_agents_model_answers_an_edited_request(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _open(qtbot, qloop, window, _model_calls(window)[0])
    data = json.loads(dialog.editor.toPlainText())
    data["messages"] = [{"type": "human", "content": "hello"}]  # the edit reaches the model
    dialog.editor.setPlainText(json.dumps(data))
    _pick(dialog, "agent")
    assert dialog.send_button.isEnabled()
    task = dialog.send()
    assert task is not None and not dialog.send_button.isEnabled()  # one call at a time
    qloop.run_until_complete(task)
    assert len(dialog.cards) == 2
    answer = dialog.cards[1].answer
    assert answer.source.startswith("Agent's model") and answer.error is None
    # the scripted policy plans with write_todos for a human message
    assert answer.message.tool_calls[0]["name"] == "write_todos"


def test_continue_from_here_forks_the_thread_with_a_scripted_answer(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = _window(qtbot, qloop, tmp_path)
    calls = _model_calls(window)
    runs_before = {e.run_id for e in window.hub.events}
    tip_before = window.hub.snapshot().values["messages"]
    dialog = _open(qtbot, qloop, window, calls[1])  # the call that wrote login.tsx
    _pick(dialog, "scripted")
    qtbot.keyClicks(dialog.scripted_edit, "Nothing more to do.")
    click(qtbot, qloop, dialog.send_button)
    assert [c.answer.source for c in dialog.cards] == ["Original", "Scripted answer"]
    card = dialog.cards[1]
    assert card.continue_button.isEnabled()
    click(qtbot, qloop, card.continue_button)
    run_until(qloop, lambda: not window.controller.busy)
    assert window.hub.status == "done"
    new_runs = {e.run_id for e in window.hub.events} - runs_before
    assert len([r for r in new_runs if r.startswith("run-")]) == 1  # (and the update's events)
    messages = window.hub.snapshot().values["messages"]
    assert messages[-1].text == "Nothing more to do."
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    # the old branch stays: its tip still ends with the original answer
    history = list(window.hub.graph.get_state_history(window.hub.config()))
    finals = {tuple(m.text for m in h.values.get("messages", [])[-1:]) for h in history}
    assert (tip_before[-1].text,) in finals


def test_settings_model_answers_and_reruns_the_rest(
    qtbot: Any,
    qloop: Any,
    tmp_path: Path,
    openai_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-playground")
    window = _window(qtbot, qloop, tmp_path)
    window.settings.provider = "openai"
    window.settings.model = "test-model"
    window.settings.base_url = openai_server.base_url
    calls = _model_calls(window)
    dialog = _open(qtbot, qloop, window, calls[-1])  # the final answer
    _pick(dialog, "settings")
    openai_server.reply_text("Both files exist now.")
    task = dialog.send()
    qloop.run_until_complete(task)
    answer = dialog.cards[1].answer
    assert answer.error is None and answer.message.text == "Both files exist now."
    sent = openai_server.requests[0]
    assert sent["model"] == "test-model"
    assert sent["messages"][0]["role"] == "system"
    assert {t["function"]["name"] for t in sent["tools"]} == {"create_file", "write_todos"}
    # re-run from here: the rest of the run on Settings' model
    openai_server.reply_text("Done, on the other model.")
    assert dialog.rerun_button.isEnabled()
    click(qtbot, qloop, dialog.rerun_button)
    run_until(qloop, lambda: not window.controller.busy)
    assert window.hub.status == "done"
    last = [e for e in window.hub.events if e.kind == "model.response"][-1]
    assert last.model == "test-model"
    assert window.hub.snapshot().values["messages"][-1].text == "Done, on the other model."


def test_an_unreachable_model_is_one_line(
    qtbot: Any, qloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures.openai_server import unused_port

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-playground")
    window = _window(qtbot, qloop, tmp_path)
    window.settings.provider = "openai"
    window.settings.model = "test-model"
    window.settings.base_url = f"http://127.0.0.1:{unused_port()}/v1"
    dialog = _open(qtbot, qloop, window, _model_calls(window)[0])
    _pick(dialog, "settings")
    text = dialog.editor.toPlainText()
    qloop.run_until_complete(dialog.send())
    answer = dialog.cards[1].answer
    assert answer.message is None and answer.error and "\n" not in answer.error
    assert not dialog.cards[1].continue_button.isEnabled()
    assert dialog.status.text().startswith("Settings' model (test-model): ")
    assert dialog.editor.toPlainText() == text
    assert dialog.send_button.isEnabled()  # ready for another try


def test_without_a_settings_model_its_target_says_why(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _open(qtbot, qloop, window, _model_calls(window)[0])
    settings = next(t for t in dialog.targets if t.kind == "settings")
    assert settings.why_not and "Settings" in settings.why_not
    assert dialog.target().kind == "agent"  # the first usable target is chosen
    assert dialog.continue_blocker() is None
    assert isinstance(dialog.cards[0].answer.message, AIMessage)
    assert dialog.cards[0].continue_button.text() == "Resume (the original)"
    assert dialog.width() <= 1366
    _ = Qt
