"""A long message log is stored a few blobs per read and read back lazily (issue 26): what a
cold read returns, the size of what is written, files written in the older layout (one
blob per step, parsed whole), and corrupt blobs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine import CheckpointError
from engine.checkpoint import SqliteSaver
from engine.checkpoint.log_blobs import parse_log_blob
from engine.checkpoint.packing import unpack
from engine.lazy_list import LazyList
from engine.messages import HumanMessage
from tests.engine.test_checkpointers import _chat_graph

CFG = {"configurable": {"thread_id": "1"}}


def _thread(path: Path, turns: int) -> dict[str, Any]:
    g = _chat_graph(SqliteSaver(path))
    for i in range(turns):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, CFG)
    return g.get_state(CFG).values


def _messages_blobs(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT version, data FROM checkpoint_blobs WHERE channel='messages'")
        return {v: unpack(data) for v, data in rows.fetchall()}  # long ones are stored deflated
    finally:
        conn.close()


def test_a_cold_read_hands_out_the_messages_undecoded(tmp_path: Path) -> None:
    warm = _thread(tmp_path / "c.sqlite", 100)
    snap = _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(CFG)
    messages = snap.values["messages"]
    assert isinstance(messages, LazyList) and len(messages) == 200 and messages.pending == 200
    assert messages[-1].content == "reply 199" and messages.pending == 199
    assert messages == warm["messages"] and messages.pending == 0
    # the run goes on from the cold read: the reducer appends to the lazy history
    g = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    assert g.get_state(CFG).values["messages"].pending == 200
    g.invoke({"messages": [HumanMessage("more")]}, CFG)
    again = _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(CFG).values["messages"]
    assert [m.content for m in again] == [m.content for m in warm["messages"]] + [
        "more",
        "reply 201",
    ]


def test_each_message_is_written_a_few_times_not_once_per_step(tmp_path: Path) -> None:
    warm = _thread(tmp_path / "c.sqlite", 600)
    blobs = _messages_blobs(tmp_path / "c.sqlite")
    one_copy = sum(len(json.dumps(m.model_dump(exclude_defaults=True))) for m in warm["messages"])
    written = sum(len(t) for t in blobs.values())
    # 1,800 blobs (one per checkpoint): each message in about 1 + log16(1,800) < 4 of them
    assert one_copy * 2 < written < one_copy * 5
    parsed = [parse_log_blob(t) for t in blobs.values()]
    assert all(p is not None for p in parsed)
    assert sum(1 for p in parsed if p is not None and len(p.items) > 16) < len(blobs) / 8


def test_a_thread_continued_by_a_fresh_saver_keeps_its_short_chain(tmp_path: Path) -> None:
    _thread(tmp_path / "c.sqlite", 40)
    g = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    g.get_state(CFG)
    for i in range(40):
        g.invoke({"messages": [HumanMessage(f"r{i}")]}, CFG)
    blobs = _messages_blobs(tmp_path / "c.sqlite")
    roots = [t for t in blobs.values() if t.startswith('{"k":0,')]
    assert len(roots) == 1  # the second saver went on with the first one's chain
    assert (
        len(_chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(CFG).values["messages"])
        == 160
    )


def _to_older_layout(path: Path) -> None:
    """Rewrite the messages blobs as Stepwise wrote them before this layout (one line each,
    ``{"append":[...],"base":...}`` and ``{"messages":[...]}``), one blob per step."""
    blobs = _messages_blobs(path)
    items: dict[str, list[Any]] = {}
    bases: dict[str, str | None] = {}
    for v, text in blobs.items():
        data = json.loads(text)
        bases[v] = data.get("base")
        items[v] = data.get("append", data.get("messages"))
    conn = sqlite3.connect(path)
    with conn:
        for v in blobs:
            base = bases[v]
            if base is None:
                text = json.dumps({"messages": items[v]}, separators=(",", ":"))
            else:
                # each step's own items only, resting on the step before (the older layout)
                text = json.dumps({"append": items[v], "base": base}, separators=(",", ":"))
            conn.execute(
                "UPDATE checkpoint_blobs SET data=? WHERE channel='messages' AND version=?",
                (text, v),
            )
    conn.close()


def test_a_file_in_the_older_layout_reads_and_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    warm = _thread(path, 120)
    history = list(_chat_graph(SqliteSaver(path)).get_state_history(CFG))
    _to_older_layout(path)
    assert all(not t.startswith('{"base":') for t in _messages_blobs(path).values())
    fresh = _chat_graph(SqliteSaver(path))
    assert fresh.get_state(CFG).values == warm
    for snap in history[::17]:
        assert _chat_graph(SqliteSaver(path)).get_state(snap.config).values == snap.values
    # a run goes on from it: its new blobs rest on the older ones
    fresh.invoke({"messages": [HumanMessage("more")]}, CFG)
    again = _chat_graph(SqliteSaver(path)).get_state(CFG).values["messages"]
    assert again[:240] == warm["messages"] and [m.content for m in again[240:]] == [
        "more",
        "reply 241",
    ]


def test_corrupt_log_blobs_are_reported_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _thread(path, 30)
    blobs = _messages_blobs(path)
    tip = max(blobs, key=lambda v: int(v.split(".")[0]))
    conn = sqlite3.connect(path)
    # a blob that does not add up (an item lost) is refused when read
    cut = blobs[tip].replace("\n", "", 1) if blobs[tip].count("\n") > 2 else blobs[tip][:-4] + "]}"
    with conn:
        conn.execute(
            "UPDATE checkpoint_blobs SET data=? WHERE channel='messages' AND version=?", (cut, tip)
        )
    with pytest.raises(CheckpointError, match=r"is corrupt \(channel 'messages'\)") as err:
        _chat_graph(SqliteSaver(path)).get_state(CFG)
    assert "\n" not in str(err.value)
    # an item that is not JSON is refused when it is read, with the same error
    lines = blobs[tip].split("\n")
    lines[1] = '{"__sw__":"msg","v":{"content":' + ("," if lines[1].endswith(",") else "")
    with conn:
        conn.execute(
            "UPDATE checkpoint_blobs SET data=? WHERE channel='messages' AND version=?",
            ("\n".join(lines), tip),
        )
    conn.close()
    messages = _chat_graph(SqliteSaver(path)).get_state(CFG).values["messages"]
    assert messages[0].content == "q0"
    with pytest.raises(CheckpointError, match=r"is corrupt \(channel 'messages'\)") as err:
        list(messages)
    assert "\n" not in str(err.value)
