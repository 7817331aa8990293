"""A checkpoint save that raised: what the app's database holds decides what attach reports.

A statement's own error (SQLite's) wrote nothing; a save cut off with the connection may have
been committed, so the database is asked, and when it cannot answer in time the outcome is
reported as unknown, never as "not saved" (the PostgreSQL-stopped test saw a checkpoint
reported not saved that the database held: the server had committed it, the client lost the
reply)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

from engine.attach.confirm import SaveWatch, watched
from engine.attach.save_outcome import (
    SaveUnknown,
    aread_back,
    outcome_unknowable,
    read_back,
    unsaved_action,
)


class OperationalError(Exception):
    """A DB-API driver's connection-level error (``sqlstate``: the server's error code)."""

    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


class _Tuple:
    def __init__(self, checkpoint_id: str) -> None:
        self.config = {"configurable": {"thread_id": "t", "checkpoint_id": checkpoint_id}}


class Saver:
    """A saver whose ``put`` commits (or not) and then loses the connection; ``reachable``:
    can its database still be read (``answer``: None hangs the read until ``release``)."""

    def __init__(self, *, commits: bool, reachable: bool | None, error: Exception) -> None:
        self.rows: dict[str, Any] = {}
        self.commits = commits
        self.reachable = reachable
        self.error = error
        self.reads = 0
        self.release = threading.Event()

    def put(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if self.commits:
            self.rows[checkpoint["id"]] = checkpoint
        raise self.error

    def get_tuple(self, config: Any) -> Any:
        self.reads += 1
        if self.reachable is None:
            self.release.wait()
        if not self.reachable:
            raise OperationalError("connection refused")
        cid = config["configurable"]["checkpoint_id"]
        return _Tuple(cid) if cid in self.rows else None

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        return self.put(config, checkpoint, metadata, versions)

    async def aget_tuple(self, config: Any) -> Any:
        if self.reachable is None:
            await asyncio.Event().wait()  # never answers
        return self.get_tuple(config)


LOST = OperationalError("consuming input failed: server closed the connection unexpectedly")
CONFIG = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "parent"}}


def _put(saver: Saver) -> tuple[SaveWatch, BaseException | None]:
    loop = asyncio.new_event_loop()
    try:
        watch = SaveWatch(loop)
        twin = watched(saver, watch)
        try:
            twin.put(CONFIG, {"id": "c1"}, {}, {})
        except Exception:
            pass
        else:
            raise AssertionError("the saver's error was swallowed")
        return watch, watch.outcome_now("c1")[1]
    finally:
        loop.close()


def test_which_errors_may_have_written_the_checkpoint() -> None:
    assert outcome_unknowable(LOST)
    assert outcome_unknowable(ConnectionResetError("reset by peer"))
    assert outcome_unknowable(TimeoutError())
    # the server refused the statement (an error code of its own): nothing was written
    assert not outcome_unknowable(OperationalError("deadlock detected", sqlstate="40P01"))
    assert not outcome_unknowable(sqlite3.OperationalError("database is locked"))
    assert not outcome_unknowable(ValueError("cannot serialize"))


def test_a_save_committed_before_the_connection_was_lost_is_shown_saved() -> None:
    saver = Saver(commits=True, reachable=True, error=LOST)
    watch, outcome = _put(saver)
    assert outcome is None and watch.was_saved("c1")
    assert watch.found_ids == ["c1"] and watch.put_failure is LOST  # no later save is tried
    assert watch.outcome_now("c2") == (True, LOST)


def test_a_lost_save_the_database_does_not_hold_is_not_saved() -> None:
    watch, outcome = _put(Saver(commits=False, reachable=True, error=LOST))
    assert outcome is LOST and watch.failed_ids == ["c1"] and watch.unknown_ids == []


def test_a_lost_save_the_database_cannot_be_asked_about_is_unknown() -> None:
    watch, outcome = _put(Saver(commits=True, reachable=False, error=LOST))
    assert isinstance(outcome, SaveUnknown) and outcome.error is LOST
    assert watch.unknown_ids == ["c1"] and not watch.was_saved("c1")
    action, detail = unsaved_action("c1", 3, outcome)
    assert action == "checkpoint_save_unknown"
    assert detail["checkpoint_id"] == "c1" and "may or may not hold it" in detail["message"]
    assert "consuming input failed" in detail["error"]


def test_a_statement_error_is_not_saved_without_asking_the_database() -> None:
    saver = Saver(commits=False, reachable=True, error=sqlite3.OperationalError("locked"))
    watch, outcome = _put(saver)
    assert isinstance(outcome, sqlite3.OperationalError) and saver.reads == 0
    assert watch.failed_ids == ["c1"] and not watch.unknown_ids
    assert unsaved_action("c1", 3, outcome)[0] == "checkpoint_not_saved"


def test_a_read_back_that_does_not_answer_leaves_the_outcome_unknown() -> None:
    saver = Saver(commits=True, reachable=None, error=LOST)
    try:
        assert read_back(Saver, saver, CONFIG, "c1", timeout=0.01) is None
    finally:
        saver.release.set()  # the asking thread ends (it is never waited for)
    saver.reachable = True
    saver.rows["c1"] = {}
    assert read_back(Saver, saver, CONFIG, "c1") is True
    assert read_back(Saver, saver, CONFIG, "other") is False


def test_an_async_saver_is_read_back_the_same_way() -> None:
    async def main() -> list[bool | None]:
        held = Saver(commits=True, reachable=True, error=LOST)
        held.rows["c1"] = {}
        hanging = Saver(commits=True, reachable=None, error=LOST)
        return [
            await aread_back(Saver, held, CONFIG, "c1"),
            await aread_back(Saver, held, CONFIG, "c2"),
            await aread_back(Saver, hanging, CONFIG, "c1", timeout=0.01),
        ]

    assert asyncio.run(main()) == [True, False, None]

    async def put() -> BaseException | None:
        watch = SaveWatch(asyncio.get_running_loop())
        twin = watched(Saver(commits=True, reachable=False, error=LOST), watch)
        try:
            await twin.aput(CONFIG, {"id": "c1"}, {}, {})
        except OperationalError:
            pass
        return await watch.result("c1")

    assert isinstance(asyncio.run(put()), SaveUnknown)


def test_an_unknown_save_is_asked_about_again_at_the_threads_next_run() -> None:
    """``UnknownSaves``: kept per thread until the database answers, then said once, on the
    saver's sync API (off the loop) or its async one."""
    from engine.attach.unknown_saves import RESOLVED, UnknownSaves

    said: list[tuple[str, dict[str, Any]]] = []

    async def emit(action: str, detail: dict[str, Any]) -> None:
        said.append((action, detail))

    unknown = UnknownSaves()
    unknown.note("t", ["c1", "c2"])
    unknown.note("t", ["c1"])  # noted once
    unknown.note("other", [])
    saver = Saver(commits=True, reachable=False, error=LOST)
    saver.rows["c1"] = {"id": "c1"}
    asyncio.run(unknown.resolve("t", saver, CONFIG, True, emit))
    assert said == [] and unknown.pending("t") == ["c1", "c2"]  # still cannot say
    saver.reachable = True
    asyncio.run(unknown.resolve("t", saver, CONFIG, False, emit))
    assert [(a, d["checkpoint_id"], d["saved"]) for a, d in said] == [
        (RESOLVED, "c1", True),
        (RESOLVED, "c2", False),
    ]
    assert unknown.pending("t") == [] and unknown.pending("other") == []
    asyncio.run(unknown.resolve("t", saver, CONFIG, True, emit))
    assert len(said) == 2
