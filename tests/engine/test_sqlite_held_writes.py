"""``SqliteSaver`` stores a superstep's task writes in the transaction of the next checkpoint
(``engine.checkpoint.held_writes``): one transaction per superstep, and the file is never in a
state a crash could not have left before."""

from __future__ import annotations

import operator
import sqlite3
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph, interrupt
from engine.checkpoint import SqliteSaver
from engine.checkpoint.base import make_config


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _loop(saver: SqliteSaver, steps: int = 6, ask: bool = False) -> Any:
    def model(s: S) -> dict[str, Any]:
        if ask and s["n"] == 2:
            interrupt("go on?")
        return {"n": s["n"] + 1, "log": [f"model {s['n']}"]}

    b = StateGraph(S)
    b.add_node("model", model)
    b.add_node("tools", lambda s: {"log": ["tool"]})
    b.add_edge(START, "model")
    b.add_conditional_edges("model", lambda s: "tools" if s["n"] < steps else END, ["tools", END])
    b.add_edge("tools", "model")
    return b.compile(checkpointer=saver)


def _transactions(saver: SqliteSaver, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    write_rows = saver._write_rows

    def counted(what: str, batches: Any) -> None:
        seen.append(what)
        write_rows(what, batches)

    monkeypatch.setattr(saver, "_write_rows", counted)
    return seen


def _complete(path: Path) -> None:
    """Every checkpoint's parent has the writes of the tasks that led to it."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT c.checkpoint_id, c.parent_id, (SELECT COUNT(*) FROM checkpoint_writes w"
            " WHERE w.thread_id=c.thread_id AND w.checkpoint_id=c.parent_id) FROM checkpoints c"
            " WHERE c.parent_id IS NOT NULL"
        ).fetchall()
    finally:
        conn.close()
    assert rows and all(n > 0 for _c, _p, n in rows), rows


def test_one_transaction_per_superstep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saver = SqliteSaver(tmp_path / "s.sqlite", heartbeat=False)
    graph = _loop(saver)
    seen = _transactions(saver, monkeypatch)
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    checkpoints = len(list(saver.list({"configurable": {"thread_id": "t"}})))
    assert len(seen) == checkpoints  # was one more per superstep: its writes alone
    assert all(w.startswith("save checkpoint") for w in seen)
    _complete(tmp_path / "s.sqlite")
    state = graph.get_state({"configurable": {"thread_id": "t"}})
    assert state.values["n"] == 6 and len(state.values["log"]) == 11
    saver.close()


def test_an_interrupt_is_stored_at_once_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    saver = SqliteSaver(path, heartbeat=False)
    graph = _loop(saver, ask=True)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 0, "log": []}, cfg)
    other = SqliteSaver(path, heartbeat=False)  # another process's view of the file
    tip = other.get_tuple(cfg)
    assert tip is not None and any(w[1] == "__interrupt__" for w in tip.pending_writes or [])
    other.close()
    from engine import Command

    graph.invoke(Command(resume="yes"), cfg)
    assert graph.get_state(cfg).values["n"] == 6
    _complete(path)
    saver.close()


def _ran_once(tmp_path: Path) -> tuple[Path, SqliteSaver, Any]:
    """A file with thread ``t`` run once, its saver, and the thread's tip."""
    path = tmp_path / "s.sqlite"
    saver = SqliteSaver(path, heartbeat=False)
    _loop(saver).invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    tip = saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert tip is not None
    return path, saver, tip


def test_held_writes_are_read_back_and_stored_soon_without_a_checkpoint(tmp_path: Path) -> None:
    path, saver, tip = _ran_once(tmp_path)
    cfg = {"configurable": {"thread_id": "t"}}
    saver.acquire_thread("t", "run-1")  # as a run does: its writes may be held
    saver.put_writes(tip.config, [("log", ["late"])], "task-1")
    # a read stores them first
    assert [w[2] for w in saver.get_tuple(cfg).pending_writes or []] == [["late"]]

    saver.put_writes(tip.config, [("log", ["later"])], "task-2")
    other = SqliteSaver(path, heartbeat=False)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the background flush, within its delay
        writes = other.get_tuple(make_config("t", "", tip.config["configurable"]["checkpoint_id"]))
        if writes is not None and len(writes.pending_writes or []) == 2:
            break
        time.sleep(0.02)
    assert [w[2] for w in writes.pending_writes or []] == [["late"], ["later"]]
    saver.put_writes(tip.config, [("log", ["last"])], "task-3")
    saver.release_thread("t", "run-1")  # the run's end stores them
    assert len(other.get_tuple(tip.config).pending_writes or []) == 3
    other.close()
    saver.close()


def test_writes_outside_a_run_are_stored_at_once(tmp_path: Path) -> None:
    path, saver, tip = _ran_once(tmp_path)
    saver.put_writes(tip.config, [("log", ["now"])], "task-1")
    other = SqliteSaver(path, heartbeat=False)
    assert [w[2] for w in other.get_tuple(tip.config).pending_writes or []] == [["now"]]
    other.close()
    saver.close()


def test_a_saver_dropped_unclosed_is_collected_and_its_flusher_ends(tmp_path: Path) -> None:
    import gc
    import weakref

    from engine.checkpoint.held_writes import HeldWrites

    saver = SqliteSaver(tmp_path / "dropped.db")
    held: HeldWrites = saver._held
    gone = weakref.ref(saver)
    held.add(_dummy_item())  # starts the flusher thread
    thread = held._thread
    assert thread is not None and thread.is_alive()
    held.take()
    del saver
    gc.collect()
    assert gone() is None  # the flusher thread does not keep the saver alive
    thread.join(timeout=30)
    assert not thread.is_alive()


def _dummy_item() -> Any:
    from engine.checkpoint.held_writes import HeldWrite

    return HeldWrite("t", "", "c", "task", [])


def test_a_saver_holding_checkpoints_stores_them_at_the_runs_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite"
    saver = SqliteSaver(path, heartbeat=False, hold_checkpoints=True)
    monkeypatch.setattr(saver._held, "delay", 60)  # no background flush
    seen = _transactions(saver, monkeypatch)
    in_file: list[int] = []

    def tools(s: S) -> dict[str, Any]:  # mid-run, another process sees nothing yet
        conn = sqlite3.connect(path)
        in_file.append(conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0])
        conn.close()
        return {"log": ["tool"]}

    b = StateGraph(S)
    b.add_node("model", lambda s: {"n": s["n"] + 1, "log": [f"model {s['n']}"]})
    b.add_node("tools", tools)
    b.add_edge(START, "model")
    b.add_conditional_edges("model", lambda s: "tools" if s["n"] < 6 else END, ["tools", END])
    b.add_edge("tools", "model")
    graph = b.compile(checkpointer=saver)
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    assert in_file and set(in_file) == {0}
    assert seen == ["save pending writes"]  # one transaction, at the run's end
    _complete(path)
    assert len(list(saver.list({"configurable": {"thread_id": "t"}}))) == 13
    saver.close()
