"""Recording into a file on a full disk: the run says so, and replay later says recording
failed (not that the process was killed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.recording import SessionError, SessionRecorder
from tests.engine.cli.test_cli import run_cli


class S(TypedDict):
    text: str


def _graph(saver: Any) -> Any:
    def grow(state: S) -> S:
        return {"text": state["text"] + "x" * 2_000}

    g = StateGraph(S)
    g.add_node("grow", grow)
    g.add_edge(START, "grow")
    return g.compile(checkpointer=saver, name="grower")


class FullDisk:
    """The recorder's connection once the disk is full: writing events fails as SQLite says
    it does (small updates still fit, as they often do)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def executemany(self, sql: str, rows: Any) -> Any:
        if "session_events" in sql:
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_replay_after_a_full_disk_says_recording_failed(tmp_path: Path) -> None:
    path = tmp_path / "s.stepwise"
    rec = SessionRecorder(path)
    graph = _graph(rec.checkpointer)
    rec.attach(graph)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"text": ""}, cfg)
    rec.flush()
    rec._conn = FullDisk(rec._conn)  # type: ignore[assignment]
    graph.invoke({"text": "y"}, cfg)
    with pytest.raises(SessionError, match="full"):
        rec.close()
    code, out, err = run_cli("replay", str(path))
    assert code == 0, err
    assert "killed" not in out
    assert out.splitlines()[-2] == (
        "recording into this file stopped when writing failed (database or disk is full): "
        "what ran after that is not in it"
    )


def test_a_run_whose_end_could_not_be_written_is_not_called_killed(tmp_path: Path) -> None:
    path = tmp_path / "s.stepwise"
    rec = SessionRecorder(path)
    graph = _graph(rec.checkpointer)
    rec.attach(graph)
    real = rec._conn
    full = FullDisk(real)

    def fill_up_at_the_end(ev: Any) -> None:  # the run's row and first events fit; then full
        if ev.kind == "node.started":
            rec.flush()
            rec._conn = full  # type: ignore[assignment]

    with graph.subscribe(fill_up_at_the_end):
        graph.invoke({"text": ""}, {"configurable": {"thread_id": "t"}})
    with pytest.raises(SessionError, match="full"):
        rec.close()
    code, out, err = run_cli("replay", str(path))
    assert code == 0, err
    assert "killed" not in out
    (note,) = [line for line in out.splitlines() if "never finished" in line]
    assert "recording stopped when writing to the file failed (database or disk is full)" in note
    run_id = note.split()[1]
    code, out, _ = run_cli("replay", str(path), "--run", run_id)
    assert f"run {run_id} never finished: its end was not recorded (recording failed: " in out
