"""One run at a time on a thread of the app's database, as on the embedded engine, without
writing anything of ours into that database.

- A SQLite file (LangGraph's ``SqliteSaver`` / ``AsyncSqliteSaver``): an OS lock on one byte of
  a lock file next to it (``app.sqlite.stepwise-lock``), the byte chosen by the thread id.
  The OS drops it when the process ends, however it ends.
- PostgreSQL (``PostgresSaver``): a session advisory lock (``pg_try_advisory_lock``) on the
  saver's own connection, keyed by the thread id; PostgreSQL drops it with the connection.
- Any other saver (in memory): held in this process.

Two runs of this process on one thread are refused too (an OS byte lock is per process).
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

from engine.errors import ThreadBusyError

__all__ = ["AppThreadLease", "lease_for"]

_guard = threading.Lock()
_held: dict[tuple[str, str], str] = {}
"""(where, thread) -> the run of this process holding it."""
_files: dict[str, int] = {}
"""Lock file -> its descriptor, open for the life of the process (closing any descriptor of a
file drops every POSIX lock the process holds on it)."""


def _key(thread_id: str, bits: int) -> int:
    digest = hashlib.sha256(f"stepwise-thread:{thread_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - bits)


class AppThreadLease:
    """``ThreadLease`` (``engine.observe.run_span``) on the app's own saver."""

    def __init__(self, where: str, *, lock_file: Path | None = None, pg: Any = None) -> None:
        self.where = where
        self.lock_file = lock_file
        self.pg = pg
        """The PostgreSQL saver whose connection takes the advisory locks."""

    def acquire_thread(self, thread_id: str, run_id: str) -> None:
        key = (self.where, thread_id)
        with _guard:
            holder = _held.get(key)
            if holder is not None:
                raise _busy(thread_id, f"run {holder} of this process")
            if not self._lock(thread_id):
                raise _busy(thread_id, "another process")
            _held[key] = run_id

    def release_thread(self, thread_id: str, run_id: str) -> None:
        key = (self.where, thread_id)
        with _guard:
            if _held.get(key) != run_id:
                return
            del _held[key]
            self._unlock(thread_id)

    # -- the OS / the server --------------------------------------------------------------------

    def _lock(self, thread_id: str) -> bool:
        if self.lock_file is not None:
            return _file_lock(self.lock_file, _key(thread_id, 47), True)
        if self.pg is not None:
            return bool(_pg(self.pg, "SELECT pg_try_advisory_lock(%s)", _signed(thread_id)))
        return True

    def _unlock(self, thread_id: str) -> None:
        try:
            if self.lock_file is not None:
                _file_lock(self.lock_file, _key(thread_id, 47), False)
            elif self.pg is not None:
                _pg(self.pg, "SELECT pg_advisory_unlock(%s)", _signed(thread_id))
        except Exception:  # a lost connection dropped the lock with it
            pass


def _busy(thread_id: str, who: str) -> ThreadBusyError:
    return ThreadBusyError(
        f"Thread '{thread_id}' of the app's database is already being run ({who}). Wait for "
        "that run to finish, or stop it, before starting another run on the same thread."
    )


def _signed(thread_id: str) -> int:
    value = _key(thread_id, 64)
    return value - (1 << 64) if value >= 1 << 63 else value


def _pg(saver: Any, sql: str, key: int) -> Any:
    conn = getattr(saver, "conn", None)
    lock = getattr(saver, "lock", None)
    if conn is None or not hasattr(conn, "execute"):
        return True  # a pool: no connection to hold the lock on for the run
    if lock is not None:
        with lock:
            row = conn.execute(sql, (key,)).fetchone()
    else:
        row = conn.execute(sql, (key,)).fetchone()
    if isinstance(row, dict):
        return next(iter(row.values()))
    return row[0] if row else None


def _file_lock(path: Path, offset: int, take: bool) -> bool:
    fd = _files.get(str(path))
    if fd is None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        _files[str(path)] = fd
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        os.lseek(fd, offset, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK if take else msvcrt.LK_UNLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.lockf(fd, (fcntl.LOCK_EX | fcntl.LOCK_NB) if take else fcntl.LOCK_UN, 1, offset)
    except OSError:
        return False
    return True


def _sqlite_path(conn: Any) -> str | None:
    """The file of a ``sqlite3`` connection ('' in memory), None when it cannot tell."""
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except Exception:
        return None
    for row in rows:
        if row[1] == "main":
            return str(row[2] or "")
    return None


def _aiosqlite_path(conn: Any) -> str | None:
    """The file an ``aiosqlite`` connection opens (its connector keeps it), None if unknown."""
    connector = getattr(conn, "_connector", None)
    names = getattr(getattr(connector, "__code__", None), "co_freevars", ())
    cells = getattr(connector, "__closure__", None) or ()
    for name, cell in zip(names, cells, strict=False):
        if name == "database":
            value = cell.cell_contents
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def lease_for(saver: Any) -> AppThreadLease:
    """The lease for runs on ``saver`` (see the module docstring)."""
    name = type(saver).__name__
    conn = getattr(saver, "conn", None)
    path: str | None = getattr(saver, "stepwise_path", None)
    if path is None and "Sqlite" in name and conn is not None:
        path = _aiosqlite_path(conn) if "Async" in name else _sqlite_path(conn)
    if path and path != ":memory:":
        file = Path(path).resolve()
        return AppThreadLease(
            f"sqlite:{file}", lock_file=file.with_name(file.name + ".stepwise-lock")
        )
    if "Postgres" in name and conn is not None and not name.startswith("Async"):
        info = getattr(conn, "info", None)
        where = f"postgres:{getattr(info, 'host', '')}:{getattr(info, 'port', '')}/{getattr(info, 'dbname', '')}"
        return AppThreadLease(where, pg=saver)
    return AppThreadLease(f"memory:{id(getattr(saver, 'storage', saver))}")
