"""Files that are not sessions, sessions from a newer Stepwise, and damaged sessions."""

from __future__ import annotations

import os
import sqlite3

import pytest

from engine.events import event_to_json
from engine.recording import SESSION_SCHEMA, Session, SessionError, SessionRecorder
from tests.engine.recording.helpers import every_kind


def _open_error(path) -> str:
    with pytest.raises(SessionError) as ei:
        Session.open(path)
    assert ei.value.path == str(path)
    assert str(path) in str(ei.value)
    return str(ei.value)


def test_missing_file_and_directory(tmp_path):
    assert (
        _open_error(tmp_path / "nope.stepwise")
        == f"{tmp_path / 'nope.stepwise'}: no such session file"
    )
    assert "is a directory" in _open_error(tmp_path)


def test_text_file_and_empty_file_are_not_sessions(tmp_path):
    text = tmp_path / "notes.stepwise"
    text.write_text("hello, this is not a database\n" * 20)
    assert _open_error(text) == f"{text} is not a Stepwise session (not a SQLite database)"
    empty = tmp_path / "empty.stepwise"
    empty.write_bytes(b"")
    assert _open_error(empty) == f"{empty} is not a Stepwise session (it is empty)"


def test_other_sqlite_database_is_not_a_session_and_is_left_alone(tmp_path):
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    assert _open_error(path) == f"{path} is not a Stepwise session (no session schema in the file)"
    with pytest.raises(SessionError, match="not a Stepwise session") as ei:
        SessionRecorder(path)
    assert str(path) in str(ei.value)
    assert path.read_bytes() == before
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")] == [
        "users"
    ]
    conn.close()


def test_newer_schema_is_refused_by_reader_and_recorder(tmp_path):
    path = tmp_path / "future.stepwise"
    SessionRecorder(path).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE stepwise_meta SET value=? WHERE key='session_schema'", (str(SESSION_SCHEMA + 1),)
    )
    conn.commit()
    conn.close()
    msg = _open_error(path)
    assert msg == (
        f"{path} was written by a newer Stepwise (session schema {SESSION_SCHEMA + 1}; "
        f"this version reads up to {SESSION_SCHEMA})"
    )
    with pytest.raises(SessionError, match="newer Stepwise"):
        SessionRecorder(path)


def test_missing_session_tables_is_damage(tmp_path):
    path = tmp_path / "half.stepwise"
    SessionRecorder(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE session_events")
    conn.commit()
    conn.close()
    assert _open_error(path) == f"{path} is damaged: the session tables session_events are missing"


def _big_session(path, n: int = 4000) -> None:
    events = every_kind()
    with SessionRecorder(path) as rec:
        rec.record(events[0])
    conn = sqlite3.connect(path)
    text = event_to_json(events[3])
    conn.executemany(
        "INSERT INTO session_events(run, seq, kind, step, node, span_id, parent_span_id, ts, data) "
        "VALUES (1, ?, 'node.started', 0, 'model', 's', NULL, 0, ?)",
        [(i, text + " " * 200) for i in range(2, n)],
    )
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def test_overwritten_pages_give_session_error_naming_the_file(tmp_path):
    path = tmp_path / "broken.stepwise"
    _big_session(path)
    size = path.stat().st_size
    with open(path, "r+b") as fh:  # scribble over the middle of the file (not the header)
        fh.seek(size // 3)
        fh.write(os.urandom(size // 3))
    with pytest.raises(SessionError) as ei, Session.open(path) as s:
        s.count()
        list(s.iter_events())
        s.integrity_check()
    assert str(path) in str(ei.value) and "damaged" in str(ei.value)


def test_truncated_file_gives_session_error(tmp_path):
    path = tmp_path / "cut.stepwise"
    _big_session(path)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    with pytest.raises(SessionError) as ei, Session.open(path) as s:
        list(s.iter_event_json())
        s.integrity_check()
    assert str(path) in str(ei.value)


def test_undecodable_event_row_is_reported(tmp_path):
    path = tmp_path / "rows.stepwise"
    with SessionRecorder(path) as rec:
        for ev in every_kind():
            rec.record(ev)
    conn = sqlite3.connect(path)
    conn.execute('UPDATE session_events SET data=\'{"kind": "no.such.kind"}\' WHERE seq=2')
    conn.commit()
    conn.close()
    with Session.open(path) as s:
        assert s.events(limit=1)[0].kind == "run.started"  # the good rows still read
        with pytest.raises(SessionError, match="an event cannot be read") as ei:
            s.events(limit=2)
        assert str(path) in str(ei.value)
        s.integrity_check()  # the file itself is fine


def test_a_run_recorded_again_into_its_file_keeps_its_row(tmp_path) -> None:
    path = tmp_path / "again.stepwise"
    for _ in range(2):  # the second recorder finds the run's row (and its events) there
        with SessionRecorder(path) as rec:
            for ev in every_kind():
                rec.record(ev)
    with Session.open(path) as s:
        (run,) = s.runs()
        assert run.status == "done"
        assert s.count() == len(every_kind())
