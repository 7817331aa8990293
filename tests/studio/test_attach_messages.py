"""Messages of an attached docs-style agent, in the window: the live pane shows the whole
conversation (attach reports each turn as messages appended, not as a replacement list), a
saved thread opens with its messages, and the Diff dock diffs them message by message."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from engine.attach.options import AttachOptions
from engine.types import Command
from studio.run.saved_threads import open_in_window
from tests.fixtures.docs_apps import APPROVE, agent_app
from tests.fixtures.plain_langgraph import plain_module
from tests.studio.app_agents import make_window, run_until


def approving(window: Any) -> None:
    async def answer(_interrupts: Any) -> Any:
        return Command(resume=APPROVE)

    window.controller.interrupt_handler = answer


def test_the_live_pane_shows_every_message_of_an_attached_agent(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = agent_app(tmp_path, "sync", "memory")
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(app.spec)
    approving(window)
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    pane = window.docks["messages"].widget()
    texts = [e.text for e in pane.live_entries]
    assert len(texts) == 6, texts
    assert texts[0] == "What is the weather in sf? Tell my boss."
    assert texts[-1] == "It is sunny in sf, and your boss knows."
    assert pane.where.text() == "Live · 6 messages"
    # the newest checkpoint against its parent: one message appended, shown as a message
    diff = window.docks["diff"].widget()
    tip = [e for e in window.hub.events if e.kind == "checkpoint.saved" and not e.ns]
    with_reply = next(e for e in reversed(tip) if e.__dict__["writer_nodes"] == ["model"])
    result = diff.set_pair(with_reply.__dict__["parent_id"], with_reply.checkpoint_id)
    assert result is not None and result.summary() == "1 message appended"
    assert "additional_kwargs" not in diff.browser.toPlainText()  # a message, not a raw dict


def test_a_saved_thread_opens_with_its_messages(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = agent_app(tmp_path, "sync", "sqlite")
    plain = plain_module(app)  # production: the thread waits for the approval of send_email
    plain.graph.invoke(plain.INPUT, {"configurable": {"thread_id": "T"}})
    window = make_window(qtbot, tmp_path)
    window.controller.attach = AttachOptions(checkpointer=f"sqlite:///{app.db}")
    assert window.load_spec(app.spec)
    summary = qloop.run_until_complete(open_in_window(window, "T"))
    assert summary is not None and summary.interrupts
    pane = window.docks["messages"].widget()
    run_until(qloop, lambda: len(pane.live_entries) == 4)
    assert pane.where.text() == "Live · 4 messages"
    assert [e.text for e in pane.live_entries][:1] == ["What is the weather in sf? Tell my boss."]
