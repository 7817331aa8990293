"""Thread leases: heartbeats, expiry, breaking a lease, and update_state during a run."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import TypedDict

import pytest

from engine import END, START, StateGraph, ThreadBusyError
from engine.checkpoint import InMemorySaver, SqliteSaver


class Clock:
    """A hand-moved clock for lease expiry (no test waits for real time)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _saver(path: Path, clock: Clock, ttl: float = 30.0) -> SqliteSaver:
    return SqliteSaver(path, lease_ttl=ttl, clock=clock, heartbeat=False)


def test_lease_from_another_host_expires_without_heartbeats(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "l.sqlite"
    first, second = _saver(db, clock), _saver(db, clock)
    first.acquire_thread("T", "run-1")
    first.conn.execute("UPDATE thread_leases SET host='elsewhere', pid=1")
    clock.now += 29
    with pytest.raises(ThreadBusyError, match="run-1"):
        second.acquire_thread("T", "run-2")
    clock.now += 2  # 31 s since the last heartbeat: the holder is gone
    second.acquire_thread("T", "run-2")


def test_heartbeats_keep_a_live_lease(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "l.sqlite"
    first, second = _saver(db, clock), _saver(db, clock)
    first.acquire_thread("T", "run-1")
    for _ in range(5):
        clock.now += 20
        first.renew_leases()
        with pytest.raises(ThreadBusyError):
            second.acquire_thread("T", "run-2")
    first.release_thread("T", "run-1")
    second.acquire_thread("T", "run-2")


def test_lease_whose_pid_was_reused_expires(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "l.sqlite"
    first, second = _saver(db, clock), _saver(db, clock)
    first.acquire_thread("T", "run-1")
    # the holder died and its pid now belongs to a live process (pid 1 always exists)
    first.conn.execute("UPDATE thread_leases SET pid=1, host=?", (socket.gethostname(),))
    with pytest.raises(ThreadBusyError):
        second.acquire_thread("T", "run-2")
    clock.now += 31
    second.acquire_thread("T", "run-2")


def test_break_leases_lists_and_removes(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "l.sqlite"
    saver = _saver(db, clock)
    saver.acquire_thread("A", "run-a")
    saver.acquire_thread("B", "run-b")
    assert [lease.thread_id for lease in saver.leases()] == ["A", "B"]
    (broken,) = saver.break_leases("A")
    assert (broken.thread_id, broken.owner) == ("A", "run-a")
    assert [lease.thread_id for lease in saver.leases()] == ["B"]
    other = _saver(db, clock)
    other.acquire_thread("A", "run-c")


def test_busy_error_says_how_to_unlock(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "l.sqlite"
    _saver(db, clock).acquire_thread("T", "run-1")
    with pytest.raises(ThreadBusyError) as info:
        _saver(db, clock).acquire_thread("T", "run-2")
    assert f"stepwise unlock {db} --thread T" in str(info.value)


class S(TypedDict):
    n: int


def _gated_graph(saver: object, gate: asyncio.Event):  # type: ignore[no-untyped-def]
    async def slow(state: S) -> S:
        await gate.wait()
        return {"n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("slow", slow)
    g.add_edge(START, "slow")
    g.add_edge("slow", END)
    return g.compile(checkpointer=saver)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_update_state_during_a_run_is_refused(kind: str, tmp_path: Path) -> None:
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "u.sqlite")
    gate = asyncio.Event()
    graph = _gated_graph(saver, gate)
    cfg = {"configurable": {"thread_id": "t"}}
    running = asyncio.ensure_future(graph.ainvoke({"n": 0}, cfg))
    for _ in range(200):
        await asyncio.sleep(0)
        if (await graph.aget_state(cfg)).next == ("slow",):
            break
    with pytest.raises(ThreadBusyError, match="update_state"):
        await graph.aupdate_state(cfg, {"n": 100})
    gate.set()
    assert (await running)["n"] == 1
    await graph.aupdate_state(cfg, {"n": 100})  # free again once the run ended
    assert (await graph.aget_state(cfg)).values["n"] == 100
