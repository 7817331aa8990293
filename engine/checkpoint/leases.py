"""Thread leases in a SQLite file: one run per thread, across processes and hosts.

A lease row names its owner (a run id), the process (pid, host) and the time of its last
heartbeat.  While a run holds leases, a daemon thread renews them every ``ttl / 3`` seconds.
Another run may take a lease over when

- its heartbeat is older than ``ttl`` (the holder is gone: killed, on another host, or its pid
  now belongs to an unrelated process), or
- it was written on this host by a process that no longer exists.

``break_leases`` removes leases by hand (``stepwise unlock FILE [--thread ID]``).
The clock is injectable so expiry is testable without waiting.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from engine.checkpoint.sqlite_tx import settle, transaction

__all__ = ["DEFAULT_LEASE_TTL", "LeaseInfo", "SqliteLeases"]

DEFAULT_LEASE_TTL = 30.0
"""Seconds without a heartbeat after which a lease counts as abandoned."""


@dataclass(frozen=True)
class LeaseInfo:
    """One lease row.  ``heartbeat`` is the time (``clock()``) it was taken or last renewed."""

    thread_id: str
    owner: str
    pid: int
    host: str
    heartbeat: float


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class SqliteLeases:
    """The lease rows of one connection (the ``thread_leases`` table)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        lock: threading.RLock,
        *,
        ttl: float = DEFAULT_LEASE_TTL,
        clock: Callable[[], float] = time.time,
        heartbeat: bool = True,
    ) -> None:
        if ttl <= 0:
            raise ValueError("lease_ttl must be > 0")
        self.conn = conn
        self.lock = lock
        self.ttl = ttl
        self.clock = clock
        self.heartbeat = heartbeat
        self.host = socket.gethostname()
        self._held: dict[str, str] = {}
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    # -- rules ---------------------------------------------------------------------------------

    def is_live(self, lease: LeaseInfo) -> bool:
        """True while the lease's holder may still be running."""
        if self.clock() - lease.heartbeat > self.ttl:
            return False
        return lease.host != self.host or pid_alive(lease.pid)

    def _row(self, cur: sqlite3.Cursor, thread_id: str) -> LeaseInfo | None:
        row = cur.execute(
            "SELECT thread_id, owner, pid, host, acquired FROM thread_leases WHERE thread_id=?",
            (thread_id,),
        ).fetchone()
        return None if row is None else LeaseInfo(str(row[0]), str(row[1]), *row[2:])

    # -- operations ----------------------------------------------------------------------------

    def acquire(self, thread_id: str, owner: str) -> str | None:
        """Take the thread for ``owner``; returns the live holder if someone else has it."""
        with self.lock:
            with transaction(self.conn, immediate=True) as cur:
                lease = self._row(cur, thread_id)
                holder = None
                if lease is not None and lease.owner != owner and self.is_live(lease):
                    holder = lease.owner
                else:
                    cur.execute(
                        "INSERT OR REPLACE INTO thread_leases VALUES (?, ?, ?, ?, ?)",
                        (thread_id, owner, os.getpid(), self.host, self.clock()),
                    )
            if holder is not None:
                return holder
            self._held[thread_id] = owner
        self._start_heartbeat()
        return None

    def release(self, thread_id: str, owner: str) -> None:
        """Give the thread back.  If the file cannot be written (disk full) the lease stays
        but is no longer renewed, so it expires after ``ttl`` instead of hiding the real error."""
        with self.lock:
            self._held.pop(thread_id, None)
            with suppress(sqlite3.Error):
                self.conn.execute(
                    "DELETE FROM thread_leases WHERE thread_id=? AND owner=?", (thread_id, owner)
                )
                settle(self.conn)

    def holds(self, thread_id: str) -> bool:
        """Whether a run of this process holds the thread now."""
        return thread_id in self._held

    def holder(self, thread_id: str) -> str | None:
        """The owner of a live lease on the thread, if any."""
        with self.lock:
            lease = self._row(self.conn.cursor(), thread_id)
        return lease.owner if lease is not None and self.is_live(lease) else None

    def renew(self) -> None:
        """Heartbeat: move every lease this object holds to ``clock()``."""
        with self.lock:
            now = self.clock()
            for thread_id, owner in list(self._held.items()):
                self.conn.execute(
                    "UPDATE thread_leases SET acquired=? WHERE thread_id=? AND owner=?",
                    (now, thread_id, owner),
                )
            settle(self.conn)

    def list(self) -> list[LeaseInfo]:
        with self.lock:
            rows = self.conn.execute(
                "SELECT thread_id, owner, pid, host, acquired FROM thread_leases ORDER BY thread_id"
            ).fetchall()
        return [LeaseInfo(str(r[0]), str(r[1]), *r[2:]) for r in rows]

    def break_leases(self, thread_id: str | None = None) -> list[LeaseInfo]:
        """Remove the thread's lease (every lease when None); returns what was removed."""
        gone = [x for x in self.list() if thread_id is None or x.thread_id == thread_id]
        with self.lock:
            for lease in gone:
                self.conn.execute(
                    "DELETE FROM thread_leases WHERE thread_id=? AND owner=?",
                    (lease.thread_id, lease.owner),
                )
            settle(self.conn)
        return gone

    # -- heartbeat thread ----------------------------------------------------------------------

    def _start_heartbeat(self) -> None:
        if not self.heartbeat or (self._beat is not None and self._beat.is_alive()):
            return
        self._stop.clear()
        self._beat = threading.Thread(target=self._beat_loop, name="lease-heartbeat", daemon=True)
        self._beat.start()

    def _beat_loop(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            with self.lock:
                if not self._held:
                    return
            try:
                self.renew()
            except sqlite3.Error:  # the file was closed or cannot be written: stop beating
                return

    def close(self) -> None:
        self._stop.set()
