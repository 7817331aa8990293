"""A run's first model request is recorded as the continuation of the thread's previous one
(``engine.recording.request_prior``): the file grows linearly with a conversation, and every
reader gets back exactly the request the recorder was given."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.models import ScriptedChatModel
from engine.observe.request_log import resolve
from engine.recording import Session, SessionRecorder
from tests.engine.test_request_log import add


def _replies(turns: int) -> list[Any]:
    out: list[Any] = []
    for i in range(turns):
        call = ToolCall(name="add", args={"a": i, "b": 1}, id=f"c{i}")
        out.append(AIMessage("", tool_calls=[call]))
        out.append(f"answer {i}: " + "words " * 20)
    return out


def _record(path: Path, turns: int, **options: Any) -> list[EventBase]:
    """``turns`` runs of one agent on one thread, recorded; returns the events in memory."""
    rec = SessionRecorder(path, **options)
    agent = create_agent(
        ScriptedChatModel(_replies(turns)),
        [add],
        system_prompt="You add.",
        checkpointer=rec.checkpointer,
    )
    seen: list[EventBase] = []
    agent.subscribe(seen.append)
    rec.attach(agent)
    for i in range(turns):
        agent.invoke(
            {"messages": [HumanMessage(f"question {i}")]}, {"configurable": {"thread_id": "t"}}
        )
    rec.close()
    return seen


def _full_requests(events: list[EventBase]) -> list[tuple[list[Any] | None, list[Any] | None]]:
    by_key = {(e.run_id, e.seq): e for e in events}
    return [
        resolve(e, lambda seq, run=e.run_id: by_key.get((run, seq)))
        for e in events
        if e.kind == "model.request"
    ]


def _without_ids(requests: list[tuple[list[Any] | None, Any]]) -> list[Any]:
    return [([{**m, "id": None} for m in messages or []], tools) for messages, tools in requests]


def _request_bytes(path: Path) -> list[int]:
    """Bytes of each recorded ``model.request`` row, in order."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT length(CAST(data AS BLOB)) FROM session_events WHERE kind='model.request' "
            "ORDER BY run, seq"
        ).fetchall()
    finally:
        conn.close()
    return [int(r[0]) for r in rows]


def test_a_long_conversation_records_its_requests_in_linear_bytes(tmp_path: Path) -> None:
    turns = 120  # the eager recording is quadratic: 200 turns took ~50 s on its own
    shared = tmp_path / "shared.stepwise"
    eager = tmp_path / "eager.stepwise"
    seen = _record(shared, turns)
    _record(eager, turns, continue_requests=False)

    sizes = _request_bytes(shared)
    per_turn = len(sizes) // turns
    assert per_turn * turns == len(sizes)
    early = sum(sizes[50 * per_turn : 60 * per_turn])
    late = sum(sizes[110 * per_turn : 120 * per_turn])
    assert late < early * 1.25  # linear: a turn costs the same late as early (twice the history)
    eager_sizes = _request_bytes(eager)
    assert sum(eager_sizes[110 * per_turn : 120 * per_turn]) > 5 * late  # the square it was
    assert sum(eager_sizes[110 * per_turn : 120 * per_turn]) > 1.6 * sum(
        eager_sizes[50 * per_turn : 60 * per_turn]
    )  # the same windows tell a quadratic recording apart

    # every request reads back as the eager recording has it, and as it was in memory
    with Session.open(shared) as s, Session.open(eager) as e:
        ours, theirs = s.events(limit=None), e.events(limit=None)
        assert [json.loads(t) for t in s.event_json(limit=None, kinds=["model.request"])] == [
            json.loads(ev.model_dump_json()) for ev in seen if ev.kind == "model.request"
        ]
        assert not any("messages_prior" in t for t in s.iter_event_json())
    live = _full_requests(seen)
    assert _full_requests(ours) == live
    assert _without_ids(_full_requests(theirs)) == _without_ids(live)  # message ids are fresh
    assert all(m is not None and len(m) > 2 for m, _tools in live[1:])


def test_a_request_read_alone_and_in_any_order_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.stepwise"
    seen = _record(path, 6)
    want = {(e.run_id, e.seq): e for e in seen if e.kind == "model.request"}
    with Session.open(path) as s:
        runs = [r.run_id for r in s.runs()]
        for run_id in reversed(runs):  # newest first: nothing cached yet
            for ev in s.events(run_id, kinds=["model.request"]):
                assert ev.messages == want[(ev.run_id, ev.seq)].messages or ev.messages_base
        first = s.events(runs[-1], kinds=["model.request"], limit=1)[0]
        assert first.messages_base is None
        assert len(first.messages or []) == want[(first.run_id, first.seq)].messages_count


def test_a_missing_earlier_request_reads_as_unknown_not_as_a_shorter_history(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.stepwise"
    _record(path, 3)
    conn = sqlite3.connect(path)
    first_of_run2 = conn.execute(
        "SELECT seq, run FROM session_events WHERE kind='model.request' AND run=2 ORDER BY seq LIMIT 1"
    ).fetchone()
    conn.execute("DELETE FROM session_events WHERE kind='model.request' AND run=1")
    conn.commit()
    conn.close()
    with Session.open(path) as s:
        run2 = s.runs()[1].run_id
        ev = s.events(run2, seq_from=first_of_run2[0], seq_to=first_of_run2[0])[0]
        assert ev.kind == "model.request" and ev.messages is None


def test_a_file_without_continued_requests_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "old.stepwise"
    seen = _record(path, 3, continue_requests=False)
    with Session.open(path) as s:
        assert _full_requests(s.events(limit=None)) == _full_requests(seen)
