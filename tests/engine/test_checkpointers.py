"""Checkpointers: JSON round trip, delta storage, SQLite resume in a fresh process, one run per thread."""

from __future__ import annotations

import asyncio
import json
import operator
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import START, CheckpointError, StateGraph, ThreadBusyError, interrupt
from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.checkpoint.packing import unpack
from engine.messages import AIMessage, AnyMessage, HumanMessage, add_messages

ROOT = Path(__file__).resolve().parents[2]


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: Annotated[int, operator.add]


def _chat_graph(checkpointer):
    def reply(state):
        n = len(state["messages"])
        return {"messages": [AIMessage(f"reply {n}")], "turns": 1}

    g = StateGraph(Chat)
    g.add_node("reply", reply)
    g.add_edge(START, "reply")
    return g.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_every_checkpoint_round_trips_through_json(kind, tmp_path):
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(5):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    history = list(g.get_state_history(cfg))
    assert len(history) == 15  # per turn: input, __start__ and reply checkpoints
    # re-read every checkpoint through a *fresh* saver object: nothing comes from caches
    fresh = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "c.sqlite")
    if kind == "memory":
        fresh._rows, fresh._blobs, fresh._writes = saver._rows, saver._blobs, saver._writes
        fresh._newest = saver._newest
    g2 = _chat_graph(fresh)
    again = list(g2.get_state_history(cfg))
    assert [s.values for s in again] == [s.values for s in history]
    assert [s.metadata for s in again] == [s.metadata for s in history]
    for s in history:
        json.dumps(s.metadata)  # metadata is plain JSON
    assert [m.text for m in again[0].values["messages"]][-2:] == ["q4", "reply 9"]


def test_messages_are_stored_as_deltas(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(50):
        g.invoke({"messages": [HumanMessage(f"question number {i}")]}, cfg)
    rows = [
        (unpack(r[0]),)  # a long blob is stored deflated (engine.checkpoint.packing)
        for r in saver.conn.execute("SELECT data FROM checkpoint_blobs WHERE channel='messages'")
    ]
    total = sum(len(r[0]) for r in rows)
    final = g.get_state(cfg).values["messages"]
    final_json = sum(len(json.dumps(m.model_dump(mode="json"))) for m in final)
    assert len(final) == 100
    # every message is stored about once, not once per checkpoint (which would be ~50x)
    assert total < 1.5 * final_json
    appends = [r for r in rows if json.loads(r[0]).get("append") is not None]
    assert len(appends) >= 99


def test_resume_from_sqlite_in_a_fresh_process(tmp_path):
    db = tmp_path / "thread.sqlite"
    script = textwrap.dedent(
        f"""
        import sys, operator
        from typing import Annotated, TypedDict
        sys.path.insert(0, {str(ROOT)!r})
        from engine import StateGraph, START, Command, interrupt
        from engine.checkpoint import SqliteSaver

        class S(TypedDict):
            log: Annotated[list, operator.add]

        def boom_once(state):
            import os
            if not os.path.exists({str(tmp_path / "ok")!r}):
                raise RuntimeError("disk on fire")
            return {{"log": ["fixed"]}}

        g = StateGraph(S)
        g.add_node("a", lambda s: {{"log": ["a"]}})
        g.add_node("b", boom_once)
        g.add_node("ask", lambda s: {{"log": ["answer=" + interrupt("continue?")]}})
        g.add_edge(START, "a"); g.add_edge("a", "b"); g.add_edge("b", "ask")
        graph = g.compile(checkpointer=SqliteSaver({str(db)!r}))
        cfg = {{"configurable": {{"thread_id": "T"}}}}
        step = sys.argv[1]
        if step == "1":
            try:
                graph.invoke({{"log": []}}, cfg)
            except RuntimeError as e:
                print("error:", e)
        elif step == "2":
            out = graph.invoke(None, cfg)
            print("interrupt:", out["__interrupt__"][0].value)
        else:
            print("final:", graph.invoke(Command(resume="yes"), cfg)["log"])
        """
    )
    path = tmp_path / "run.py"
    path.write_text(script)

    def run(step: str) -> str:
        p = subprocess.run(
            [sys.executable, str(path), step], capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    assert run("1") == "error: disk on fire"
    (tmp_path / "ok").write_text("")
    assert run("2") == "interrupt: continue?"
    assert run("3") == "final: ['a', 'fixed', 'answer=yes']"


async def test_two_runs_on_one_thread_are_refused():
    gate = asyncio.Event()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    async def wait(state):
        await gate.wait()
        return {"log": ["done"]}

    g = StateGraph(S)
    g.add_node("wait", wait)
    g.add_edge(START, "wait")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "busy"}}
    first = asyncio.ensure_future(graph.ainvoke({"log": []}, cfg))
    while graph.checkpointer._leases.get("busy") is None:
        await asyncio.sleep(0)
    with pytest.raises(ThreadBusyError, match="Thread 'busy' is already being run"):
        await graph.ainvoke({"log": []}, cfg)
    gate.set()
    assert (await first)["log"] == ["done"]
    # after the first run ended the thread is free again
    gate.set()
    assert (await graph.ainvoke({"log": []}, cfg))["log"] == ["done", "done"]


def test_sqlite_lease_blocks_another_process(tmp_path):
    db = tmp_path / "lease.sqlite"
    saver = SqliteSaver(db)
    saver.acquire_thread("T", "run-1")
    other = SqliteSaver(db)
    with pytest.raises(ThreadBusyError):
        other.acquire_thread("T", "run-2")
    saver.release_thread("T", "run-1")
    other.acquire_thread("T", "run-2")
    # a lease left by a dead process is taken over
    other.conn.execute("UPDATE thread_leases SET pid=999999999 WHERE thread_id='T'")
    saver.acquire_thread("T", "run-3")


def test_not_a_checkpoint_file_gives_a_clear_error(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not sqlite at all, just some text " * 50)
    with pytest.raises(CheckpointError, match=r"notes\.txt is not a Stepwise checkpoint file"):
        SqliteSaver(bad)


def test_corrupt_rows_name_thread_and_checkpoint(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "T1"}}
    g.invoke({"messages": ["hi"]}, cfg)
    cid = g.get_state(cfg).config["configurable"]["checkpoint_id"]
    saver.conn.execute("UPDATE checkpoints SET body='{broken' WHERE checkpoint_id=?", (cid,))
    fresh = SqliteSaver(tmp_path / "c.sqlite")
    with pytest.raises(CheckpointError) as ei:
        _chat_graph(fresh).get_state(cfg)
    assert cid in str(ei.value) and "T1" in str(ei.value) and "corrupt" in str(ei.value)


def test_newer_schema_is_refused(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    saver.conn.execute("UPDATE stepwise_meta SET value='99' WHERE key='checkpoint_schema'")
    with pytest.raises(CheckpointError, match="newer Stepwise"):
        SqliteSaver(tmp_path / "c.sqlite")


def test_interrupt_state_survives_reopen(tmp_path):
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def build(saver):
        g = StateGraph(S)
        g.add_node("ask", lambda s: {"log": [interrupt({"question": "ok?"})]})
        g.add_edge(START, "ask")
        return g.compile(checkpointer=saver)

    cfg = {"configurable": {"thread_id": "h"}}
    build(SqliteSaver(tmp_path / "h.sqlite")).invoke({"log": []}, cfg)
    snap = build(SqliteSaver(tmp_path / "h.sqlite")).get_state(cfg)
    assert snap.next == ("ask",)
    assert snap.interrupts[0].value == {"question": "ok?"}
    assert snap.tasks[0].interrupts[0].id == snap.interrupts[0].id


def test_durability_exit_saves_only_at_the_end():
    g = _chat_graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "d"}}
    g.invoke({"messages": ["hi"]}, cfg, durability="exit")
    hist = list(g.get_state_history(cfg))
    assert len(hist) == 1 and hist[0].values["turns"] == 1


def _blob_queries(saver: SqliteSaver) -> list[str]:
    seen: list[str] = []
    saver.conn.set_trace_callback(
        lambda sql: seen.append(sql) if "checkpoint_blobs" in sql and "SELECT" in sql else None
    )
    return seen


def test_a_cold_deep_read_walks_the_message_log_in_a_few_queries(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(150):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    expected = g.get_state(cfg).values
    fresh = SqliteSaver(tmp_path / "c.sqlite")
    queries = _blob_queries(fresh)
    got = _chat_graph(fresh).get_state(cfg).values
    assert got == expected and len(got["messages"]) == 300
    # one point query per blob of the tip's chain, and the chain is short (every 16th blob
    # holds the last 16 steps' messages, every 256th the last 256 steps': engine.checkpoint.
    # log_blobs), not one blob per step
    tip_k = json.loads(
        saver.conn.execute(
            "SELECT substr(data, 1, instr(data, char(10)) - 1) || ']}' FROM checkpoint_blobs "
            "WHERE channel='messages' ORDER BY length(version) DESC, version DESC LIMIT 1"
        ).fetchone()[0]
    )["k"]
    assert tip_k > 250
    messages = [q for q in queries if "channel='messages'" in q]
    assert len(messages) == 1 + sum(int(d, 16) for d in f"{tip_k:x}"), "one query per append blob"
    # a neighbour of a checkpoint read is served from what that read decoded
    older = list(_chat_graph(fresh).get_state_history(cfg, limit=4))[-1]
    queries.clear()
    assert _chat_graph(fresh).get_state(older.config).values == older.values
    assert queries == []


def test_cold_reads_of_every_checkpoint_of_a_forked_thread_match(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(12):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    history = list(g.get_state_history(cfg))
    fork = g.update_state(history[len(history) // 2].config, {"messages": [AIMessage("forked")]})
    for i in range(3):
        g.invoke({"messages": [HumanMessage(f"f{i}")]}, fork)
    warm = {s.config["configurable"]["checkpoint_id"]: s.values for s in g.get_state_history(cfg)}
    fresh_graph = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    for cid in sorted(warm, reverse=True)[::3] + sorted(warm):  # deep first, then every one
        snap = fresh_graph.get_state({"configurable": {"thread_id": "1", "checkpoint_id": cid}})
        assert snap.values == warm[cid], cid


def test_a_missing_delta_names_its_version(tmp_path):
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "T2"}}
    for i in range(6):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    rows = saver.conn.execute(
        "SELECT version FROM checkpoint_blobs WHERE channel='messages' ORDER BY version"
    ).fetchall()
    gone = rows[2][0]
    saver.conn.execute(
        "DELETE FROM checkpoint_blobs WHERE channel='messages' AND version=?", (gone,)
    )
    with pytest.raises(
        CheckpointError, match=f"missing data for channel 'messages' \\(version {gone}\\)"
    ):
        _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(cfg)
    saver.conn.execute(
        "UPDATE checkpoint_blobs SET data='{\"append\": [' WHERE channel='messages' AND version=?",
        (rows[4][0],),
    )
    with pytest.raises(CheckpointError, match="corrupt"):
        _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(cfg)


def test_a_saver_takes_the_json_serializer_and_refuses_another() -> None:
    """``serde=JsonPlusSerializer()`` (a ported program's) is kept; another serializer (an
    encrypting one, say) would be ignored, as the savers store the engine's JSON: refused."""
    from engine.checkpoint.memory import InMemorySaver
    from engine.checkpoint.serde.jsonplus import JsonPlusSerializer
    from engine.checkpoint.sqlite import SqliteSaver

    json_serde = JsonPlusSerializer(pickle_fallback=True)
    assert InMemorySaver(serde=json_serde).serde is json_serde
    assert SqliteSaver(":memory:", serde=json_serde).serde is json_serde

    class Encrypting:
        def dumps_typed(self, obj: object) -> tuple[str, bytes]:
            return "enc", b""

    with pytest.raises(TypeError, match="takes no other serializer"):
        InMemorySaver(serde=Encrypting())
    with pytest.raises(TypeError, match="takes no other serializer"):
        SqliteSaver(":memory:", serde=Encrypting())
