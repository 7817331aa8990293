"""The session recorder's checkpointer holds a run's checkpoints for the writer thread, which
commits them in its own transactions, before the events that name them (issue 26: one commit
per superstep was most of what the checkpoints of a recorded run cost)."""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.recording import Session, SessionError, SessionRecorder
from tests.engine.recording.test_session_disk_full import FullDisk


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _loop(saver: Any, steps: int = 6) -> Any:
    b = StateGraph(S)
    b.add_node("model", lambda s: {"n": s["n"] + 1, "log": [f"model {s['n']}"]})
    b.add_node("tools", lambda s: {"log": ["tool"]})
    b.add_edge(START, "model")
    b.add_conditional_edges("model", lambda s: "tools" if s["n"] < steps else END, ["tools", END])
    b.add_edge("tools", "model")
    return b.compile(checkpointer=saver, name="loop")


def _checkpoint_ids(path: Path) -> list[str]:
    conn = sqlite3.connect(path)  # another process's view of the file
    try:
        return [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints ORDER BY 1")]
    finally:
        conn.close()


def test_a_recorded_run_commits_its_checkpoints_with_its_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.stepwise"
    rec = SessionRecorder(path, flush_interval=60)
    saver = rec.checkpointer
    monkeypatch.setattr(saver._held, "delay", 60)  # no background flush: what commits is seen
    own: list[str] = []
    write_rows = saver._write_rows

    def counted(what: str, batches: Any) -> None:
        own.append(what)
        write_rows(what, batches)

    monkeypatch.setattr(saver, "_write_rows", counted)
    graph = _loop(saver)
    rec.attach(graph)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 0, "log": []}, cfg)
    rec.flush()
    ids = _checkpoint_ids(path)
    assert len(ids) == 13
    assert len(own) <= 1  # the run's end (was one transaction per checkpoint)
    with Session.open(path) as s:
        (run,) = s.runs()
        events = [e for e in s.iter_events(run.run_id) if e.kind == "checkpoint.saved"]
        assert sorted(e.checkpoint_id for e in events) == ids
        assert s.state("t", ids[-1])["n"] == 6
    assert graph.get_state(cfg).values["log"][-1] == "model 5"
    rec.close()


def test_a_held_checkpoint_is_read_back_at_once(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.stepwise"
    rec = SessionRecorder(path, flush_interval=60)
    saver = rec.checkpointer
    monkeypatch.setattr(saver._held, "delay", 60)
    graph = _loop(saver)
    seen: list[int] = []

    def look(s: S) -> dict[str, Any]:  # a read of the saver mid-run stores what it holds
        state = graph.get_state({"configurable": {"thread_id": "t"}})
        seen.append(state.values["n"])
        return {}

    b = StateGraph(S)
    b.add_node("model", lambda s: {"n": s["n"] + 1})
    b.add_node("look", look)
    b.add_edge(START, "model")
    b.add_edge("model", "look")
    b.add_edge("look", END)
    graph = b.compile(checkpointer=saver)
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    assert seen == [1]
    rec.close()


def test_checkpoints_a_failed_batch_held_are_stored_by_the_saver(tmp_path: Path) -> None:
    path = tmp_path / "s.stepwise"
    rec = SessionRecorder(path)
    graph = _loop(rec.checkpointer)
    rec.attach(graph)
    rec._conn = FullDisk(rec._conn)  # type: ignore[assignment]  # events no longer fit
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    with pytest.raises(SessionError, match="full"):
        rec.close()
    assert len(_checkpoint_ids(path)) == 13  # the writer gave them back; the saver stored them
