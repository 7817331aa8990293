"""A long message log is read in a few blobs (issue 26: one per step before), with the same
values, the same errors for missing or corrupt data, and branches of a forked thread kept
apart; ``chain_from`` follows both layouts of append blobs."""

from __future__ import annotations

import json

import pytest

from engine import CheckpointError
from engine.checkpoint import SqliteSaver
from engine.checkpoint.blobs import chain_from
from engine.checkpoint.packing import unpack
from engine.messages import AIMessage, HumanMessage
from tests.engine.test_checkpointers import _chat_graph


def _blob_selects(saver: SqliteSaver) -> list[str]:
    seen: list[str] = []
    saver.conn.set_trace_callback(
        lambda sql: seen.append(sql) if "channel='messages'" in sql and "SELECT" in sql else None
    )
    return seen


def _chain(saver: SqliteSaver, config: dict[str, object]) -> list[tuple[str, str]]:
    """The blobs a read of the messages at ``config``'s checkpoint walks, newest first."""
    cid = config["configurable"]["checkpoint_id"]  # type: ignore[index]
    body = saver.conn.execute("SELECT body FROM checkpoints WHERE checkpoint_id=?", (cid,))
    blobs = saver.conn.execute(
        "SELECT version, data FROM checkpoint_blobs WHERE channel='messages'"
    )
    # bodies and long blobs are stored deflated (engine.checkpoint.packing)
    version = json.loads(unpack(body.fetchone()[0]))["versions"]["messages"]
    return [(v, unpack(d)) for v, d in chain_from(dict(blobs.fetchall()), version, 1 << 30)]


def _walk(tip: str) -> int:
    """The blobs a read walks from an append blob numbered k (one per unit of each of k's
    base-16 digits) to its root."""
    k = json.loads(tip[: tip.index("\n")] + "]}")["k"]
    return 1 + sum(int(d, 16) for d in f"{k:x}")


def _long_forked_thread(path: object) -> tuple[dict[str, object], dict[str, object]]:
    """A thread of 100 turns, forked at turn 60 and run 50 more turns on the fork: both
    branches' chains are longer than a short stretch, and share their first part."""
    g = _chat_graph(SqliteSaver(path))  # type: ignore[arg-type]
    cfg = {"configurable": {"thread_id": "1"}}
    for i in range(100):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    main_tip = g.get_state(cfg)
    history = list(g.get_state_history(cfg))
    at_60 = next(s for s in history if len(s.values["messages"]) == 120 and not s.next)
    g.update_state(at_60.config, {"messages": [AIMessage("forked")]})
    for i in range(50):  # the thread goes on from its newest checkpoint: the fork
        g.invoke({"messages": [HumanMessage(f"f{i}")]}, cfg)
    fork_tip = g.get_state(cfg)
    return (
        {"config": main_tip.config, "values": main_tip.values},
        {"config": fork_tip.config, "values": fork_tip.values},
    )


def test_both_branches_of_a_long_forked_thread_read_cold_as_written(tmp_path) -> None:
    main, fork = _long_forked_thread(tmp_path / "c.sqlite")
    assert len(fork["values"]["messages"]) == 221  # type: ignore[index]
    for tip in (main, fork, main):
        fresh = SqliteSaver(tmp_path / "c.sqlite")
        chain = _chain(fresh, tip["config"])
        selects = _blob_selects(fresh)
        snap = _chat_graph(fresh).get_state(tip["config"])  # type: ignore[arg-type]
        assert snap.values == tip["values"]
        assert [m.content for m in snap.values["messages"]] == [
            m.content
            for m in tip["values"]["messages"]  # type: ignore[index]
        ]
        # one point query per blob of the tip's chain, which is short (not one per step)
        assert len(selects) == len(chain) == _walk(chain[0][1])
    # every checkpoint of the fork, deepest first, through one fresh saver
    fresh_graph = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    warm = list(_chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state_history(fork["config"]))  # type: ignore[arg-type]
    for snap in warm[::7]:
        assert fresh_graph.get_state(snap.config).values == snap.values


def test_a_missing_or_corrupt_blob_deep_in_a_long_chain_is_reported(tmp_path) -> None:
    saver = SqliteSaver(tmp_path / "c.sqlite")
    g = _chat_graph(saver)
    cfg = {"configurable": {"thread_id": "T"}}
    for i in range(100):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    chain = chain_from(
        dict(
            saver.conn.execute(
                "SELECT version, data FROM checkpoint_blobs WHERE channel='messages'"
            ).fetchall()
        ),
        json.loads(
            unpack(
                saver.conn.execute(
                    "SELECT body FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1"
                ).fetchone()[0]
            )
        )["versions"]["messages"],
        10_000,
    )
    assert 2 < len(chain) == _walk(unpack(chain[0][1]))  # not one blob per step (200 here)
    deep = chain[len(chain) // 2][0]
    saver.conn.execute("UPDATE checkpoint_blobs SET data='{\"append\": [' WHERE version=?", (deep,))
    with pytest.raises(CheckpointError, match="corrupt"):
        _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(cfg)
    saver.conn.execute("DELETE FROM checkpoint_blobs WHERE version=?", (deep,))
    with pytest.raises(
        CheckpointError, match=f"missing data for channel 'messages' \\(version {deep}\\)"
    ):
        _chat_graph(SqliteSaver(tmp_path / "c.sqlite")).get_state(cfg)


def test_chain_from_follows_bases_and_stops_where_it_must() -> None:
    def delta(base: str) -> str:
        # the item's text holds what the base key looks like, escaped as JSON escapes it
        item = '{"__sw__":"msg","v":{"content":",\\"base\\":\\"x","type":"ai"}}'
        return '{"append":[' + item + '],"base":"' + base + '"}'

    blobs = {"4": delta("3"), "3": delta("2"), "2": delta("1"), "1": '{"messages":[]}'}
    assert [v for v, _ in chain_from(blobs, "4", 100)] == ["4", "3", "2", "1"]
    assert [v for v, _ in chain_from(blobs, "4", 2)] == ["4", "3"]
    assert chain_from(blobs, "9", 100) == []
    # a base that is missing ends the chain at the blob naming it (the caller says so)
    assert [v for v, _ in chain_from({"2": delta("1")}, "2", 100)] == ["2"]
    # a blob written otherwise is handed over for the caller to parse
    odd = {"2": '{"append": [], "base": "1"}', "1": '{"messages":[]}'}
    assert [v for v, _ in chain_from(odd, "2", 100)] == ["2"]
    # a chain that loops ends
    loop = {"a": delta("b"), "b": delta("a")}
    assert len(chain_from(loop, "a", 1 << 30)) == 2
