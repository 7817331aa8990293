"""A checkpoint file stores each message about once more than its log needs (issue 26: the
file of a 1,000-message thread was 6x its messages' JSON): long blobs and row bodies packed,
pending writes to a log kept by reference to the blob holding the same items.  What is read
back is what was written; a file of the older layout (layout 1, written by the previous
version: ``fixtures/checkpoints_layout1.sql``) reads as it did and a run goes on in it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine import CheckpointError
from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.checkpoint.packing import pack, unpack
from engine.checkpoint.write_refs import REF_MARK, find_refs, parse_ref
from engine.message_log import AppendLog
from engine.messages import AIMessage, HumanMessage, ToolMessage
from tests.engine.test_checkpointers import _chat_graph

FIXTURE = Path(__file__).parent / "fixtures" / "checkpoints_layout1.sql"


def _agent(checkpointer: Any) -> Any:
    """model -> tools -> model: the model's tool call carries an id, the tool result and the
    answer none (the reducer gives them one), as in a real agent."""
    from engine import END, START, StateGraph
    from engine.messages import MessagesState

    def model(s: dict[str, Any]) -> dict[str, Any]:
        n = len(s["messages"])
        if s["messages"][-1].type == "tool":
            return {"messages": [AIMessage(content=f"answer {n}: " + "words " * 40)]}
        call = {"name": "search", "args": {"q": f"q{n}"}, "id": f"call_{n}"}
        return {"messages": [AIMessage(content="", tool_calls=[call], id=f"ai-{n}")]}

    def tools(s: dict[str, Any]) -> dict[str, Any]:
        call = s["messages"][-1].tool_calls[0]
        return {"messages": ToolMessage(content=f"found {call['args']}", tool_call_id=call["id"])}

    g = StateGraph(MessagesState)
    g.add_node("model", model)
    g.add_node("tools", tools)
    g.add_edge(START, "model")
    g.add_conditional_edges(
        "model", lambda s: "tools" if s["messages"][-1].tool_calls else END, ["tools", END]
    )
    g.add_edge("tools", "model")
    return g.compile(checkpointer=checkpointer)


def _converse(graph: Any, turns: int) -> dict[str, Any]:
    cfg = {"configurable": {"thread_id": "t"}}
    for i in range(turns):
        graph.invoke({"messages": [HumanMessage(f"question {i}")]}, cfg)
    return cfg


def _dump(value: Any) -> Any:
    if isinstance(value, list | AppendLog):
        return [_dump(v) for v in value]
    if hasattr(value, "model_dump"):
        return {**value.model_dump(), "id": value.id is not None}  # ids are random per run
    return value


def test_pending_writes_read_back_as_written_and_are_not_stored_twice(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cfg = _converse(_agent(SqliteSaver(path)), 20)
    mem = _agent(InMemorySaver())
    _converse(mem, 20)
    cold = list(SqliteSaver(path).list(cfg))  # a fresh saver: nothing from its caches
    warm = list(mem.checkpointer.list(cfg))
    assert len(cold) == len(warm) == 20 * 5  # per turn: input, start, model, tools, model
    for a, b in zip(cold, warm, strict=True):
        assert [(t[1], _dump(t[2])) for t in a.pending_writes] == [
            (t[1], _dump(t[2])) for t in b.pending_writes
        ]
        assert _dump(a.checkpoint["channel_values"].get("messages")) == _dump(
            b.checkpoint["channel_values"].get("messages")
        )
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT data FROM checkpoint_writes WHERE channel='messages'").fetchall()
    refs = [r[0] for r in rows if r[0].startswith(REF_MARK)]
    # every message write but the thread's first (its blob is the log's root) refers to a blob
    assert len(rows) == 20 * 4 and len(refs) == len(rows) - 1
    assert all(parse_ref(r) is not None for r in refs)
    # a write that was a bare message (the tool's) reads back bare, not as a list
    tool_writes = [w for t in cold for w in t.pending_writes if isinstance(w[2], ToolMessage)]
    assert len(tool_writes) == 20


def test_a_write_stored_again_keeps_its_own_text(tmp_path: Path) -> None:
    """A reference replaces only the text it was made from: a write stored again under the
    same task and index after the next checkpoint (a task run again) is not overwritten."""
    saver = SqliteSaver(tmp_path / "c.sqlite")
    cfg = _converse(_agent(saver), 2)
    tup = next(iter(saver.list(cfg, limit=2)))
    parent = tup.parent_config
    assert parent is not None
    before = saver.get_tuple(parent)
    assert before is not None and before.pending_writes
    task = before.pending_writes[0][0]
    saver.put_writes(parent, [("messages", [AIMessage("again", id="x")])], task)
    again = SqliteSaver(tmp_path / "c.sqlite").get_tuple(parent)
    assert again is not None
    assert next(w[2] for w in again.pending_writes if w[0] == task)[0].content == "again"


def test_find_refs_matches_runs_lists_bare_items_and_items_given_an_id() -> None:
    a = '{"__sw__":"msg","v":{"content":"a","id":"1","type":"ai"}}'
    b = '{"__sw__":"msg","v":{"content":"b","id":"u-2","type":"tool"}}'
    b_bare = '{"__sw__":"msg","v":{"content":"b","type":"tool"}}'
    writes = [
        ("t1", 0, "messages", f"[{a}]"),
        ("t1", 1, "other", f"[{b}]"),
        ("t2", 0, "messages", b_bare),
        ("t3", 0, "messages", "[]"),
    ]
    refs = find_refs(writes, "messages", "7.x", [a, b])
    assert [(t, i) for t, i, _old, _ref in refs] == [("t1", 0), ("t2", 0)]
    first, second = (parse_ref(r[3]) for r in refs)
    assert first is not None and second is not None
    assert first.texts([a + ",", b]) == [a]
    assert second.n is None and second.texts([a + ",", b]) == [b_bare]
    # a text that is not a run of the blob's items is left as it is
    assert find_refs([("t", 0, "messages", f"[{b},{a}]")], "messages", "7.x", [a, b]) == []


def test_packed_texts_round_trip_and_short_ones_stay_text() -> None:
    short = '{"value":1}'
    assert pack(short) == short
    log = '{"base":"3.a","k":16,"n":2,"append":[\n' + '{"x":"' + "y" * 600 + '"},\n{"z":1}\n]}'
    packed = pack(log)
    assert isinstance(packed, bytes) and packed.startswith(b'{"base":"3.a"')
    assert len(packed) < len(log) and unpack(packed) == log
    one_line = '{"value":"' + "v" * 500 + '"}'
    assert unpack(pack(one_line)) == one_line
    with pytest.raises(ValueError, match="does not inflate"):
        unpack(b'{"base":"3.a"}\nnot deflated')


def test_a_corrupt_packed_blob_is_reported_in_one_line_when_read(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _thread_graph = _chat_graph(SqliteSaver(path))
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(20):
        _thread_graph.invoke({"messages": [HumanMessage(f"question number {i} " * 4)]}, cfg)
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT version, data FROM checkpoint_blobs WHERE channel='messages' AND typeof(data)='blob'"
    ).fetchall()
    # the blob consolidating the first 16 steps is packed (and on the newest version's chain)
    version, data = next((v, d) for v, d in rows if b'"k":16,' in d[: d.index(b"\n")])
    with conn:
        conn.execute(
            "UPDATE checkpoint_blobs SET data=? WHERE channel='messages' AND version=?",
            (data[: data.index(b"\n") + 1] + b"\x00garbage", version),
        )
    messages = _chat_graph(SqliteSaver(path)).get_state(cfg).values["messages"]
    assert len(messages) == 40  # the length is known from the blob's head
    with pytest.raises(CheckpointError, match=r"is corrupt \(channel 'messages'\)") as err:
        list(messages)
    assert "\n" not in str(err.value)


def _layout1(tmp_path: Path) -> Path:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(FIXTURE.read_text())
    conn.close()
    return path


def test_a_file_of_the_older_layout_reads_and_a_run_goes_on_in_it(tmp_path: Path) -> None:
    path = _layout1(tmp_path)
    cfg = {"configurable": {"thread_id": "old"}}
    graph = _chat_graph(SqliteSaver(path))
    state = graph.get_state(cfg)
    expected = [m for i in range(10) for m in (f"q{i}", f"reply {2 * i + 1}")]
    assert [m.content for m in state.values["messages"]] == expected
    assert len(list(graph.get_state_history(cfg))) == 30
    # its pending writes read as they were written (layout 1 keeps them as text)
    tuples = list(SqliteSaver(path).list(cfg))
    replies = [w[2] for t in tuples for w in t.pending_writes if w[1] == "messages"]
    assert sorted(m.content for batch in replies for m in batch) == sorted(expected)
    graph.invoke({"messages": [HumanMessage("more")]}, cfg)
    fresh = _chat_graph(SqliteSaver(path)).get_state(cfg).values["messages"]
    assert [m.content for m in fresh] == [*expected, "more", "reply 21"]
    conn = sqlite3.connect(path)
    schema = conn.execute("SELECT value FROM stepwise_meta WHERE key='checkpoint_schema'")
    assert schema.fetchone()[0] == "2"  # an older version now refuses it, with a clear error
    conn.close()
    newest = list(SqliteSaver(path).list(cfg, limit=4))
    assert any(w[1] == "messages" for t in newest for w in t.pending_writes)


def test_a_file_of_a_newer_layout_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SqliteSaver(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE stepwise_meta SET value='3' WHERE key='checkpoint_schema'")
    conn.close()
    with pytest.raises(CheckpointError, match="written by a newer Stepwise") as err:
        SqliteSaver(path)
    assert "\n" not in str(err.value)


def test_a_long_log_blob_is_packed_in_chunks_and_read_chunk_by_chunk() -> None:
    from engine.checkpoint.log_blobs import parse_packed_log

    items = [f'{{"n":{i},"text":"{"word " * 20}"}}' for i in range(200)]
    text = '{"base":"3.a","k":256,"n":200,"append":[\n' + ",\n".join(items) + "\n]}"
    packed = pack(text)
    assert isinstance(packed, bytes) and unpack(packed) == text
    assert packed.split(b"\n")[1].startswith(b'{"g":64,"z":[')  # four chunks
    blob = parse_packed_log(packed)
    assert blob is not None and len(blob.items) == 200
    # a damaged last chunk: the first items still read, the last ones are refused
    broken = packed[:-8] + b"\x00" * 8
    damaged = parse_packed_log(broken)
    assert damaged is not None
    assert damaged.items[0].text() == items[0] + ","  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="does not inflate"):
        damaged.items[199].text()  # type: ignore[union-attr]


def test_comparing_two_reads_of_a_long_log_does_not_inflate_it(tmp_path: Path) -> None:
    """A diff of two checkpoints tells their shared items apart by what is stored
    (``same_stored``) without unpacking them: a long log's packed blob stays packed (here
    its chunks damaged, so unpacking one would raise)."""
    from engine.lazy_list import same_stored

    path = tmp_path / "c.sqlite"
    g = _chat_graph(SqliteSaver(path))
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(130):  # 260 versions of the log: a blob of the first 256 steps' items
        g.invoke({"messages": [HumanMessage(f"question number {i} " * 4)]}, cfg)
    conn = sqlite3.connect(path)
    packed = conn.execute(
        "SELECT version, data FROM checkpoint_blobs WHERE channel='messages' AND typeof(data)='blob'"
    ).fetchall()
    with conn:
        for version, data in packed:
            head = data[: data.index(b"\n") + 1]
            if data[len(head) : len(head) + 1] != b"{":
                continue  # not chunked (the blob of the first 256 steps is: 64 items a chunk)
            head = data[: data.index(b"\n", len(head)) + 1]  # its head and chunk list
            conn.execute(
                "UPDATE checkpoint_blobs SET data=? WHERE channel='messages' AND version=?",
                (head + b"\x00" * (len(data) - len(head)), version),
            )
    conn.close()
    fresh = _chat_graph(SqliteSaver(path))
    history = list(fresh.get_state_history(cfg, limit=3))
    new, old = history[0].values["messages"], history[2].values["messages"]
    a, b = (getattr(getattr(m, "_buf", None), "items", m) for m in (new, old))
    assert len(new) == len(old) + 2 > 256
    assert all(same_stored(a, n, b, n) for n in range(len(old)))
    with pytest.raises(CheckpointError, match="corrupt"):
        list(new)
