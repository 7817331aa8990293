"""The engine's SqliteSaver given a file LangGraph's SqliteSaver wrote (an app ported by its
imports, still pointing at its old file): one clear error, and nothing written to the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.checkpoint.sqlite import SqliteSaver
from engine.errors import CheckpointError


def _tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    return sorted(r[0] for r in rows)


def test_a_langgraph_checkpoint_file_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    lg_sqlite = pytest.importorskip("langgraph.checkpoint.sqlite")
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    lg_saver = lg_sqlite.SqliteSaver(conn)
    lg_saver.setup()
    conn.commit()
    before = _tables(path)
    assert "checkpoints" in before and "writes" in before

    with pytest.raises(CheckpointError, match="holds LangGraph's own checkpoints") as raised:
        SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)
    with pytest.raises(CheckpointError, match="holds LangGraph's own checkpoints"):
        SqliteSaver(path)
    assert _tables(path) == before  # none of the engine's tables was added


def test_another_layout_of_checkpoints_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, data BLOB)")
    with pytest.raises(CheckpointError, match="is not a Stepwise checkpoint file"):
        SqliteSaver(path)
    assert _tables(path) == ["checkpoints"]


def test_its_own_file_opens_again(tmp_path: Path) -> None:
    path = tmp_path / "ours.db"
    SqliteSaver(path).conn.close()
    SqliteSaver(sqlite3.connect(path, check_same_thread=False)).conn.close()
    assert "stepwise_meta" in _tables(path)
