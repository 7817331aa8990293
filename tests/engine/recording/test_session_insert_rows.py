"""The writer's event rows go in many to a statement (``insert_events``): the file holds what
one ``executemany`` of them wrote, row for row, ids and ignored repeats included."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from engine.recording.rows import INSERT_EVENT, insert_events
from engine.recording.schema import create_tables


def _rows(n: int, run: int = 1, first_seq: int = 1) -> list[list[Any]]:
    return [
        [
            run,
            first_seq + i,
            f"kind.{i % 5}",
            i,
            None if i % 3 else "node",
            f"s{i}",
            None,
            1000.0 + i,
            f'{{"i":{i},"text":"帮我 {"x" * (i % 7)}"}}',
        ]
        for i in range(n)
    ]


def _file(tmp_path: Any, name: str) -> sqlite3.Connection:
    path = tmp_path / name
    conn = sqlite3.connect(path, isolation_level=None)
    create_tables(conn, str(path))
    conn.executemany(INSERT_EVENT, _rows(5, first_seq=3))  # rows already in the file
    return conn


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 16, 40, 64, 85, 171, 300])
def test_insert_events_writes_what_executemany_writes(tmp_path: Any, n: int) -> None:
    rows = _rows(n) + _rows(3, first_seq=2)  # repeats of rows in the file and in the batch
    one = _file(tmp_path, "one.db")
    many = _file(tmp_path, "many.db")
    one.executemany(INSERT_EVENT, [list(r) for r in rows])
    insert_events(many, [list(r) for r in rows])
    query = "SELECT * FROM session_events ORDER BY id"
    assert many.execute(query).fetchall() == one.execute(query).fetchall()
