"""The session writer makes the events' JSON before it takes the file's write lock (issue 26:
the run's own checkpoint writes wait for that lock, and SQLite sleeps a millisecond or more
while it is held), and what it writes is unchanged."""

from __future__ import annotations

import threading
from typing import Any

from engine.events import EventBase, event_to_dict
from engine.recording import Session, SessionRecorder
from tests.engine.recording.helpers import RUN, every_kind


def test_events_are_serialized_outside_the_write_transaction(tmp_path, monkeypatch) -> None:
    path = tmp_path / "lock.stepwise"
    events = every_kind()
    rec = SessionRecorder(path)
    in_transaction: list[bool] = []
    serialize = rec._event_json

    def spy(ev: EventBase, kind: str) -> str:
        in_transaction.append(rec._conn.in_transaction)
        return serialize(ev, kind)

    monkeypatch.setattr(rec, "_event_json", spy)
    for ev in events:
        rec.listener(ev)
    rec.close()
    assert len(in_transaction) == len(events)
    assert not any(in_transaction)
    with Session.open(path) as s:
        back = s.events(RUN, limit=None)
        assert [event_to_dict(e) for e in back] == [event_to_dict(e) for e in events]
        (run,) = s.runs()
        assert (run.run_id, run.status) == (RUN, "done")


def test_a_failed_batch_leaves_the_file_as_it_was_and_says_why(tmp_path, monkeypatch) -> None:
    path = tmp_path / "fail.stepwise"
    rec = SessionRecorder(path)
    calls: list[Any] = []

    def broken(*args: Any) -> Any:
        calls.append(args)
        raise OSError("disk gone")

    monkeypatch.setattr(rec, "_row", broken)  # fails inside the transaction
    for ev in every_kind():
        rec.listener(ev)
    try:
        rec.close()
    except Exception as exc:  # the recorder says recording failed
        assert "disk gone" in str(exc)
    assert calls
    with Session.open(path) as s:
        assert s.count() == 0 and s.runs() == []


def test_the_writer_commits_under_its_checkpointers_lock(tmp_path, monkeypatch) -> None:
    """The recorder's writer and its checkpointer (the run's thread) write the same file: the
    writer commits holding the checkpointer's lock, so the one waits on a lock released the
    moment the other commits, not in SQLite's sleep-and-poll busy wait."""
    rec = SessionRecorder(tmp_path / "shared.stepwise")
    free_elsewhere: list[bool] = []
    commit = rec._commit

    def spy(*args: Any) -> None:
        def probe() -> None:
            got = rec.checkpointer.write_lock.acquire(blocking=False)
            if got:
                rec.checkpointer.write_lock.release()
            free_elsewhere.append(got)

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        commit(*args)

    monkeypatch.setattr(rec, "_commit", spy)
    for ev in every_kind():
        rec.listener(ev)
    rec.close()
    assert free_elsewhere and not any(free_elsewhere)
