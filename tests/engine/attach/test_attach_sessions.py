"""A recorded attach-mode session keeps a copy of every checkpoint, so it replays offline with
its states; an app compiled with LangGraph's sync ``SqliteSaver`` runs attached as it runs in
production (synchronously); edits and forks through ``update_state`` are announced and copied."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langgraph.checkpoint.sqlite")
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph

from engine.attach import attach
from engine.checkpoint.packing import unpack
from engine.events import EventBase
from engine.messages import AIMessage as OurAIMessage
from engine.recording import Session, SessionRecorder
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import collect, counter_graph


def chat(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AIMessage(f"you said {state['messages'][-1].content}")]}


def app_on_its_own_sqlite(path: Path) -> Any:
    """What a production app file does: a graph compiled with LangGraph's (sync) SqliteSaver."""
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    b = StateGraph(MessagesState)
    b.add_node("chat", chat).add_edge(START, "chat").add_edge("chat", END)
    return b.compile(checkpointer=saver)


def test_an_app_on_a_sync_sqlite_saver_runs_and_replays_from_the_session(tmp_path: Path) -> None:
    g = attach(app_on_its_own_sqlite(tmp_path / "app.db"))
    assert g.sync  # LangGraph's SqliteSaver has no async API: run as the app runs itself
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    cfg = {"configurable": {"thread_id": "prod-1"}}
    events = collect(g, {"messages": [HumanMessage("hello")]}, cfg)
    assert events[-1].__dict__["status"] == "done"
    saved = [e.__dict__["checkpoint_id"] for e in events if e.kind == "checkpoint.saved"]
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:
        listed = session.checkpoints("prod-1")
        assert [c.checkpoint_id for c in listed] == saved
        assert [c.step for c in listed] == [-1, 0, 1]
        assert listed[-1].parent_id == listed[-2].checkpoint_id
        last = session.state("prod-1")
        assert [type(m) for m in last["messages"]] == [type(last["messages"][0]), OurAIMessage]
        assert last["messages"][-1].content == "you said hello"
        first_step = session.state("prod-1", listed[1].checkpoint_id)
        assert [m.content for m in first_step["messages"]] == ["hello"]
    # the app's own database has the same thread
    assert len(list(g.get_state_history(cfg))) == 3


def test_a_replayed_attach_session_shows_its_timeline_in_the_studio(tmp_path: Path) -> None:
    from engine.targets.session_target import SessionTarget

    g = attach(counter_graph())
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    cfg = {"configurable": {"thread_id": "t"}}
    collect(g, {"n": 1, "log": []}, cfg)
    collect(g, Command(resume="yes"), cfg)
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:
        target = SessionTarget(session, "t", session.drawable(session.runs()[0].run_id), "counter")
        records = asyncio.run(target.checkpoints("t"))
        assert [r.writers for r in records][-2:] == [("add",), ("ask",)]
        newest = target.read("t")
        assert newest.values["n"] == 4 and newest.values["log"] == ["add", "ask:yes"]
        at_interrupt = next(r for r in records if r.next == ("ask",))
        snap = target.read("t", at_interrupt.checkpoint_id)
        assert snap.values["n"] == 2


def test_a_fork_through_update_state_is_announced_and_recorded(tmp_path: Path) -> None:
    g = attach(counter_graph())
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    seen: list[EventBase] = []
    g.subscribe(seen.append)
    cfg = {"configurable": {"thread_id": "f"}}
    collect(g, {"n": 1, "log": []}, cfg)
    before_ask = next(s for s in g.get_state_history(cfg) if s.next == ("ask",))
    seen.clear()
    forked = g.update_state(before_ask.config, {"n": 10}, as_node="add")
    assert [e.kind for e in seen] == ["state.updated", "checkpoint.saved"]
    announced = seen[-1].__dict__
    assert announced["checkpoint_id"] == forked["configurable"]["checkpoint_id"]
    assert announced["parent_id"] == before_ask.config["configurable"]["checkpoint_id"]
    assert announced["writer_nodes"] == ["add"] and announced["next"] == ["ask"]
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:
        ids = [c.checkpoint_id for c in session.checkpoints("f")]
        assert forked["configurable"]["checkpoint_id"] in ids
        assert session.state("f", forked["configurable"]["checkpoint_id"])["n"] == 10


def test_a_sync_app_stops_at_an_interrupt_and_resumes(tmp_path: Path) -> None:
    real = counter_graph()
    saver = SqliteSaver(sqlite3.connect(tmp_path / "app.db", check_same_thread=False))
    g = attach(real.copy(update={"checkpointer": saver}))
    assert g.sync
    cfg = {"configurable": {"thread_id": "s"}}
    first = collect(g, {"n": 1, "log": []}, cfg)
    assert first[-1].__dict__["status"] == "interrupted"
    raised = next(e for e in first if e.kind == "interrupt.raised")
    assert raised.__dict__["node"] == "ask" and raised.__dict__["value"] == {
        "question": "double it?"
    }
    again = collect(g, Command(resume="yes"), cfg)
    assert again[-1].__dict__["status"] == "done"
    assert g.get_state(cfg).values == {"n": 4, "log": ["add", "ask:yes"]}


def test_attach_options_stream_tokens_survive_a_new_checkpointer() -> None:
    from engine.attach.options import AttachOptions

    g = AttachOptions(stream_tokens=True, checkpointer="memory").apply(counter_graph())
    assert g.stream_tokens and g.runtime == "langgraph"
    assert type(g.checkpointer).__name__ == "InMemorySaver"


def test_a_long_threads_messages_are_copied_as_deltas(tmp_path: Path) -> None:
    b = StateGraph(MessagesState)
    b.add_node("chat", chat).add_edge(START, "chat").add_edge("chat", END)
    g = attach(b.compile(checkpointer=InMemorySaver()))
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    cfg = {"configurable": {"thread_id": "long"}}
    for turn in range(6):
        collect(g, {"messages": [HumanMessage(f"turn {turn}")]}, cfg)
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:
        messages = session.state("long")["messages"]
        assert [m.content for m in messages[-2:]] == ["turn 5", "you said turn 5"]
        assert len(messages) == 12
    with sqlite3.connect(tmp_path / "s.stepwise") as conn:
        blobs = [
            unpack(data)  # long ones are stored deflated (engine.checkpoint.packing)
            for (data,) in conn.execute(
                "SELECT data FROM checkpoint_blobs WHERE thread_id='long' AND channel='messages'"
                " ORDER BY version"
            )
        ]
    # the empty list before the first input, one whole list, then each checkpoint (every later
    # run's first included) only adds what it appended to the one before (a log blob:
    # engine.checkpoint.log_blobs)
    assert blobs[0] == '{"value":[]}' and blobs[1].startswith('{"k":0,"n":1,"messages":[')
    assert all(b.startswith('{"base":') for b in blobs[2:])
    heads = [json.loads(b[: b.index("\n")] + "]}") for b in blobs[2:]]
    # a blob holds its own checkpoint's additions, every 16th the last 16 checkpoints': never
    # the whole history
    assert all(h["n"] <= (11 if h["k"] % 16 == 0 else 1) for h in heads)


class Tally(TypedDict):
    items: list[int]


def test_a_list_changed_in_place_is_recorded_as_it_was_at_each_checkpoint(tmp_path: Path) -> None:
    def grow(state: Tally) -> dict[str, Any]:
        state["items"].append(len(state["items"]))  # in place, then returned: the same object
        return {"items": state["items"]}

    b = StateGraph(Tally)
    b.add_node("one", grow).add_node("two", grow).add_node("three", grow)
    b.add_edge(START, "one").add_edge("one", "two").add_edge("two", "three").add_edge("three", END)
    g = attach(b.compile(checkpointer=InMemorySaver()))
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    events = collect(g, {"items": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    sets = [
        c["value"]
        for e in events
        if e.kind == "state.updated"
        for c in e.__dict__["changes"]
        if c["channel"] == "items"
    ]
    assert sets == [[], [0], [0, 1], [0, 1, 2]]
    with Session.open(tmp_path / "s.stepwise") as session:
        listed = session.checkpoints("t")
        recorded = [session.state("t", c.checkpoint_id).get("items") for c in listed]
    assert recorded == [None, [], [0], [0, 1], [0, 1, 2]]
