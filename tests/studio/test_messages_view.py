"""The Messages dock: the transcript built from events (plain Python), and the real widget fed
by a real seed-000 run through the Hub (roles, statuses, streaming, checkpoint selection)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.events import (
    EventBase,
    ModelResponse,
    ModelToken,
    RunFinished,
    StateUpdated,
)
from engine.messages import HumanMessage
from studio.docks.messages.card import card_html
from studio.docks.messages.view import MessagesDock
from studio.look.tones import tones_for
from studio.models.hub import Hub
from studio.models.transcript import Transcript, messages_at
from tests.studio.event_samples import make_event


def ev(cls: type[EventBase], **fields: Any) -> EventBase:
    return make_event(cls, run_id="r", **fields)


def msg(kind: str, content: str, mid: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "content": content, "id": mid, **extra}


def change(op: str, **fields: Any) -> EventBase:
    return ev(StateUpdated, changes=[{"channel": "messages", "op": op, **fields}])


class Calls:
    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []

    def before_insert(self, first: int, last: int) -> None:
        self.log.append(("insert", first, last))

    def after_insert(self) -> None:
        pass

    def before_remove(self, first: int, last: int) -> None:
        self.log.append(("remove", first, last))

    def after_remove(self) -> None:
        pass

    def changed(self, first: int, last: int) -> None:
        self.log.append(("changed", first, last))


# -- the transcript (no Qt) -------------------------------------------------------------------------


def test_messages_channel_changes_append_replace_and_clear() -> None:
    calls = Calls()
    t = Transcript(calls)
    h, a = msg("human", "hi", "1"), msg("ai", "", "2", tool_calls=[{"name": "search", "id": "c1"}])
    tool = msg("tool", "found", "3", tool_call_id="c1")
    t.apply([change("append", appended=[h]), change("append", appended=[a, tool])])
    assert [e.role for e in t.rows] == ["human", "ai", "tool"]
    assert t.rows[2].tool_name == "search"  # looked up from the AI's call id
    assert calls.log == [("insert", 0, 0), ("insert", 1, 2)]
    edited = {**a, "content": "edited"}
    t.apply([change("replace", value=[h, edited])])  # an edit in place and a removal
    assert [e.text for e in t.rows] == ["hi", "edited"]
    assert calls.log[2:] == [("remove", 1, 2), ("insert", 1, 1)]
    t.apply([change("clear")])
    assert t.rows == [] and calls.log[-1] == ("remove", 0, 1)
    other = make_event(
        StateUpdated,
        run_id="r",
        ns="sub:1",
        changes=[{"channel": "messages", "op": "append", "appended": [h]}],
    )
    t.apply([other])  # a subgraph's messages are not this thread's
    assert t.rows == []


def test_streamed_reply_grows_then_is_replaced_by_the_message() -> None:
    calls = Calls()
    t = Transcript(calls)
    t.apply([change("append", appended=[msg("human", "hi", "1")])])
    t.apply([ev(ModelToken, model="m", text="Hel"), ev(ModelToken, model="m", text="lo")])
    tail = t.rows[-1]
    assert tail.streaming and tail.text == "Hello" and len(t) == 2
    assert calls.log[1:] == [("insert", 1, 1), ("changed", 1, 1)]  # one change per batch
    t.apply([ev(ModelToken, model="m", text=",")])
    assert calls.log[3:] == [("changed", 1, 1)] and tail.text == "Hello,"
    final = msg("ai", "Hello, world!", "2")
    t.apply([ev(ModelResponse, model="m", message=final)])
    assert not t.rows[-1].streaming and t.rows[-1].pending and t.rows[-1].text == "Hello, world!"
    t.apply([change("append", appended=[final])])
    assert [(e.text, e.pending) for e in t.rows] == [("hi", False), ("Hello, world!", False)]
    # a failed call drops its partial stream; an unfinished reply is dropped at the run's end
    t.apply([ev(ModelToken, model="m", text="par")])
    t.apply([ev(ModelResponse, model="m", error={"type": "TimeoutError", "message": "x"})])
    assert len(t) == 2
    t.apply(
        [
            ev(
                ModelToken,
                model="m",
                text="x",
                tool_call_chunks=[{"name": "f", "args": '{"a"', "index": 0}],
            )
        ]
    )
    assert t.rows[-1].chunks == {0: {"name": "f", "args": '{"a"'}}
    t.apply([ev(RunFinished, status="error")])
    assert len(t) == 2


def test_set_messages_keeps_the_common_prefix() -> None:
    calls = Calls()
    t = Transcript(calls)
    msgs = [msg("human", str(i), str(i)) for i in range(5)]
    t.set_messages(msgs)
    t.set_messages(msgs[:3])
    t.set_messages(msgs)
    assert calls.log == [("insert", 0, 4), ("remove", 3, 4), ("insert", 3, 4)]


# -- the real agent ---------------------------------------------------------------------------------


async def run_seed000(hub: Hub, **kw: Any) -> Any:
    from resources.scenarios.retry_todos import INPUT, build_agent

    agent = build_agent(initial_delay=0.01, **kw)
    hub.set_graph(agent, agent.get_graph(), "retry_todos")
    with agent.subscribe(lambda e: hub.add_events([e])):
        await agent.ainvoke({"messages": [HumanMessage(INPUT)]}, hub.config())
    return agent


@pytest.fixture
def dock(qtbot: Any) -> MessagesDock:
    widget = MessagesDock(Hub())
    qtbot.addWidget(widget)
    widget.resize(600, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_a_batch_after_a_quiet_spell_is_shown_as_the_hub_hands_it_out(
    dock: MessagesDock,
) -> None:
    """No timer between the hub and the transcript after a quiet spell: the messages are in the
    view's model in the event-loop pass that brought them (painted with the other views)."""
    hello = change("append", appended=[msg("human", "Hello", "h1")])
    dock.hub.add_events([hello])  # no event processed since: only what the call did
    assert [r.message["content"] for r in dock.model.transcript.rows] == ["Hello"]
    assert dock.where.text() == "Live · 1 message"


def test_a_real_run_shows_eight_messages_live(
    dock: MessagesDock, qtbot: Any, qloop: asyncio.AbstractEventLoop, qtmodeltester: Any
) -> None:
    qtmodeltester.check(dock.model)
    resets: list[int] = []
    inserted: list[tuple[int, int]] = []
    dock.model.modelReset.connect(lambda: resets.append(1))
    dock.model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    qloop.run_until_complete(run_seed000(dock.hub))
    qtbot.waitUntil(lambda: dock.pending == 0)
    entries = dock.entries
    assert [e.role for e in entries] == ["human", "ai", "tool", "ai", "tool", "ai", "tool", "ai"]
    assert [e.tool_name for e in entries if e.role == "tool"] == [
        "write_todos",
        "create_file",
        "create_file",
    ]
    assert [e.status for e in entries if e.role == "tool"] == ["success"] * 3
    assert [c["name"] for e in entries for c in e.tool_calls] == [
        "write_todos",
        "create_file",
        "create_file",
    ]
    assert entries[-1].text == "已完成 login.tsx 和 register.tsx 两个文件的创建。"
    assert not any(e.streaming or e.pending for e in entries)
    assert resets == []  # appended, never rebuilt
    assert sum(b - a + 1 for a, b in inserted) >= 8
    assert dock.where.text() == "Live · 8 messages"
    tones = tones_for(dock.palette())
    html = card_html(entries[3], tones, "monospace")
    assert "create_file" in html and "login.tsx" in html and "color:" in html
    assert dock.view.verticalScrollBar().value() == dock.view.verticalScrollBar().maximum()


def test_a_tool_that_keeps_failing_shows_its_error_in_red(
    dock: MessagesDock, qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    qloop.run_until_complete(run_seed000(dock.hub, disk_full=2))
    qtbot.waitUntil(lambda: dock.pending == 0)
    tools = [e for e in dock.entries if e.role == "tool"]
    failed = [e for e in tools if e.failed]
    assert len(failed) == 1 and failed[0].status == "error" and "Disk full" in failed[0].text
    tones = tones_for(dock.palette())
    assert tones.failed.name() in card_html(failed[0], tones, "monospace")
    assert "✗ error" in card_html(failed[0], tones, "monospace")


def test_a_reply_cut_off_at_the_token_limit_says_so_in_its_card_and_row(
    dock: MessagesDock, qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    """A provider that stops a reply at its token limit says so in the reply's metadata: the
    card and the model's row in the Events tree say it, since the text reads as if the model
    had simply said less."""
    from engine.agents import create_agent
    from engine.messages import AIMessage
    from engine.models import ScriptedChatModel
    from studio.models.event_tree import EventTree

    cut = AIMessage("The steps are: first", response_metadata={"finish_reason": "length"})
    agent = create_agent(ScriptedChatModel([cut]), tools=[])
    hub, events = dock.hub, []
    hub.set_graph(agent, agent.get_graph(), "cut")

    def seen(ev: Any) -> None:
        events.append(ev)
        hub.add_events([ev])

    with agent.subscribe(seen):
        qloop.run_until_complete(agent.ainvoke({"messages": [HumanMessage("go")]}, hub.config()))
    qtbot.waitUntil(lambda: dock.pending == 0 and len(dock.entries) == 2)
    reply = dock.entries[-1]
    tones = tones_for(dock.palette())
    html = card_html(reply, tones, "monospace")
    assert "The steps are: first" in html
    assert "⚠ cut off at its token limit (finish_reason: length)" in html
    assert "cut off" not in card_html(dock.entries[0], tones, "monospace")
    tree = EventTree()
    tree.add_batch(events)
    (row,) = [r for r in tree.rows if r.kind == "model.request"]
    assert row.summary() == (
        "model scripted ✓ “The steps are: first” (4 tokens)"
        " ⚠ cut off at its token limit (finish_reason: length)"
    )


def test_tokens_stream_in_then_are_replaced_by_the_final_message(
    dock: MessagesDock, qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    recorder = Hub()
    qloop.run_until_complete(run_seed000(recorder))
    events = recorder.events
    tokens = [i for i, e in enumerate(events) if e.kind == "model.token"]
    cut = tokens[-2]  # the final answer, half streamed
    dock.hub.add_events(events[:cut])
    qtbot.waitUntil(lambda: dock.pending == 0)
    last = dock.entries[-1]
    assert last.streaming and last.role == "ai" and len(dock.entries) == 8
    assert "已完成 login.tsx 和 register.tsx 两个文件的创建。".startswith(last.text) and last.text
    removed: list[tuple[int, int]] = []
    dock.model.rowsRemoved.connect(lambda _p, a, b: removed.append((a, b)))
    dock.hub.add_events(events[cut:])
    qtbot.waitUntil(lambda: dock.pending == 0)
    entries = dock.entries
    assert len(entries) == 8 and not entries[-1].streaming
    assert entries[-1].text == "已完成 login.tsx 和 register.tsx 两个文件的创建。"
    assert removed == [(7, 7)]


def test_selection_shows_a_checkpoints_messages_then_back_to_live(
    dock: MessagesDock, qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    hub = dock.hub
    qloop.run_until_complete(run_seed000(hub))
    qtbot.waitUntil(lambda: dock.pending == 0)
    saved = [e for e in hub.events if e.kind == "checkpoint.saved"]
    step3 = next(e for e in saved if e.step == 3)
    with qtbot.waitSignal(dock.checkpointShown):
        hub.select_checkpoint(step3.checkpoint_id)
    assert [e.role for e in dock.entries] == ["human", "ai", "tool"]
    assert "step 3 · 3 messages" in dock.where.text() and dock.back_button.isVisible()
    hub.select_checkpoint(saved[-1].checkpoint_id)
    assert len(dock.entries) == 8
    dock.back_button.click()
    assert hub.selected_checkpoint is None and len(dock.entries) == 8
    assert dock.where.text() == "Live · 8 messages"
    # a recorded session (no graph to ask): the same messages, replayed from the events
    replay = messages_at(hub.events, step3.checkpoint_id)
    assert replay is not None and [m["type"] for m in replay] == ["human", "ai", "tool"]
    session = Hub()
    session.add_events(list(hub.events))
    other = MessagesDock(session)
    qtbot.addWidget(other)
    session.select_checkpoint(step3.checkpoint_id)
    assert [e.role for e in other.entries] == ["human", "ai", "tool"]
    assert messages_at(hub.events, "no-such-checkpoint") is None
