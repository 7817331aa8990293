"""``SqliteSaver``: checkpoints in a SQLite file (standard library ``sqlite3``, WAL, JSON only;
long texts deflated with ``zlib``, see ``FILE_SCHEMA``).

The file can be shared with the session recorder (``engine.recording``): each keeps to its own
tables.  A second run on a thread that is already running is refused, also across processes
(a lease row names the owner process and is renewed by a heartbeat; a lease whose process died
or whose heartbeat is older than ``lease_ttl`` is taken over; see ``engine.checkpoint.leases``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from engine.checkpoint import sqlite_tx
from engine.checkpoint.base import BaseCheckpointSaver, StoredRow, checked_serde
from engine.checkpoint.blobs import chain_from
from engine.checkpoint.foreign import named, refuse_foreign
from engine.checkpoint.held_writes import HeldWrite, HeldWrites, Statements, held_statements
from engine.checkpoint.leases import DEFAULT_LEASE_TTL, LeaseInfo, SqliteLeases
from engine.checkpoint.log_blobs import base_of
from engine.checkpoint.packing import PACK_BODY_FROM, head, pack, unpack
from engine.checkpoint.sqlite_file import SCHEMA, open_sqlite
from engine.errors import CheckpointError

__all__ = ["SqliteSaver", "open_sqlite"]

FILE_SCHEMA = 2
"""The layout of the checkpoint tables, kept in ``stepwise_meta`` (``checkpoint_schema``).
2: long blobs and row bodies may be stored packed (``engine.checkpoint.packing``), pending
writes by reference (``engine.checkpoint.write_refs``), and a new file's pending writes are
ordered by a ``seq`` column (no rowid, no second index of their keys).  A file of layout 1 is
read as it is and marked 2 when this version first writes to it."""


_SCAN_FROM = 64
"""A chain stretch longer than this is read with one scan of the channel's blobs."""

_LOG_HEAD = '{"base":"'
"""How an append blob of the current layout starts (``engine.checkpoint.log_blobs``)."""


class SqliteSaver(BaseCheckpointSaver):
    """Checkpoints of any number of threads in one SQLite file."""

    WRITE_REFS = True

    def __init__(
        self,
        path: str | os.PathLike[str] | sqlite3.Connection,
        *,
        lease_ttl: float = DEFAULT_LEASE_TTL,
        clock: Callable[[], float] = time.time,
        heartbeat: bool = True,
        hold_checkpoints: bool = False,
        serde: Any = None,
    ) -> None:
        super().__init__()
        self.serde = checked_serde(serde)
        """``serde=JsonPlusSerializer()`` of a ported program (``checked_serde``)."""
        self.hold_checkpoints = hold_checkpoints
        """Hold a run's checkpoints for the next commit instead of committing each at once
        (``held_writes``): the session recorder's saver, whose writer thread commits them with
        the events every ``flush_interval`` (``take_held_statements``)."""
        if isinstance(path, sqlite3.Connection):
            self.conn = path
            self.path = "<connection>"
        else:
            self.path = str(path)
            self.conn = open_sqlite(path, what="Stepwise checkpoint file")
        self._lock = threading.RLock()
        self._file_schema = FILE_SCHEMA
        self._writes_seq = True
        self._lease_rows = SqliteLeases(
            self.conn, self._lock, ttl=lease_ttl, clock=clock, heartbeat=heartbeat
        )
        self._held = HeldWrites(_flusher(weakref.ref(self)))
        """Writes waiting to share the next checkpoint's transaction (``held_writes``)."""
        weakref.finalize(self, self._held.close)  # a saver dropped unclosed ends its flusher
        try:
            with self._lock:
                refuse_foreign(self.conn, named(self.conn))  # before anything is written
                self.conn.executescript(SCHEMA)
                row = self.conn.execute(
                    "SELECT value FROM stepwise_meta WHERE key='checkpoint_schema'"
                ).fetchone()
                if row is None:
                    self.conn.execute(
                        "INSERT OR IGNORE INTO stepwise_meta(key, value) VALUES ('checkpoint_schema', ?)",
                        (str(FILE_SCHEMA),),
                    )
                    sqlite_tx.settle(self.conn)
                    self._file_schema = FILE_SCHEMA
                elif int(row[0]) > FILE_SCHEMA:
                    raise CheckpointError(
                        f"{self.path} was written by a newer Stepwise (checkpoint schema {row[0]}; "
                        f"this version reads up to {FILE_SCHEMA})"
                    )
                else:
                    self._file_schema = int(row[0])
                sql = self.conn.execute(
                    "SELECT sql FROM sqlite_master WHERE type='table' AND name='checkpoint_writes'"
                ).fetchone()
                self._writes_seq = sql is not None and "seq INTEGER" in str(sql[0])
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(
                f"{self.path} is not a Stepwise checkpoint file (or it is damaged): {exc}"
            ) from exc

    @classmethod
    def from_conn_string(cls, path: str) -> SqliteSaver:
        return cls(path)

    @property
    def location(self) -> str:
        return self.path

    @property
    def write_lock(self) -> threading.RLock:
        """The lock this saver holds while it uses its connection.  Another writer to the
        same file in this process (the session recorder) takes it around its transactions, so
        the file passes between them without SQLite's busy wait."""
        return self._lock

    def take_held_statements(self) -> Statements:
        """The held checkpoints' statements, oldest first, for a writer to the same file that
        commits them in its own transaction (the caller holds ``write_lock``, and gives them
        back with ``restore_held_statements`` if that transaction fails)."""
        return self._held.take_statements()

    def restore_held_statements(self, statements: Statements) -> None:
        """Hold again what ``take_held_statements`` gave out (its transaction failed)."""
        with self._lock:
            self._held.restore_statements(statements)

    def close(self) -> None:
        self._lease_rows.close()
        self._held.close()
        with self._lock:
            with suppress(CheckpointError):  # a file that cannot take them says so on close
                self._flush_held()
            self.conn.close()

    def __enter__(self) -> SqliteSaver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- primitives --------------------------------------------------------------------------

    def _query(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        try:
            with self._lock:
                if self._held:
                    self._flush_held()
                return self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"Cannot read checkpoints from {self.path}: {exc}") from exc

    @contextmanager
    def _writing(self, what: str, *, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        """A write (in one transaction); SQLite errors become ``CheckpointError`` naming the file.

        SQLite rolls back by itself on some errors (a full disk, I/O errors), so ROLLBACK is
        sent only while a transaction is still open, and its own failure never hides the cause.
        """
        with self._lock:
            try:
                if transaction:
                    with sqlite_tx.transaction(self.conn) as cur:
                        yield cur
                else:
                    with sqlite_tx.single(self.conn) as cur:
                        yield cur
            except sqlite3.Error as exc:
                raise CheckpointError(f"Cannot {what} in {self.path}: {exc}") from exc

    def _write_rows(self, what: str, batches: Statements) -> None:
        """``executemany`` of each ``(statement, rows)`` in one transaction, as ``_writing``
        does, without its two generator context managers (a run writes here once or twice
        per superstep).  Held checkpoints' statements go first, in the same transaction."""
        with self._lock:
            held = self._held.take_statements()
            if held:
                batches = [*held, *batches]
            conn = self.conn
            try:
                try:
                    if not conn.in_transaction:
                        conn.execute("BEGIN")
                    for sql, rows in batches:
                        conn.executemany(sql, rows)
                    conn.commit()
                except BaseException:
                    if conn.in_transaction:  # SQLite may have rolled back by itself
                        with suppress(sqlite3.Error):
                            conn.rollback()
                    raise
            except sqlite3.Error as exc:
                raise CheckpointError(f"Cannot {what} in {self.path}: {exc}") from exc

    def _put_row(
        self,
        row: StoredRow,
        blobs: list[tuple[str, str, str]],
        refs: list[tuple[str, int, str, str]] = [],  # noqa: B006 - never changed
    ) -> None:
        with self._lock:  # a failed transaction loses the held writes with the checkpoint
            self._put_row_with(row, blobs, refs, self._held.take())

    def _put_row_with(
        self,
        row: StoredRow,
        blobs: list[tuple[str, str, str]],
        refs: list[tuple[str, int, str, str]],
        held: list[HeldWrite],
    ) -> None:
        refs = list(refs)
        batches = held_statements(held, self._writes_seq, row, refs) if held else []
        if blobs:
            batches.append(
                (
                    "INSERT OR REPLACE INTO checkpoint_blobs VALUES (?, ?, ?, ?, ?)",
                    [(row.thread_id, row.ns, ch, ver, pack(text)) for ch, ver, text in blobs],
                )
            )
        batches.append(
            (
                "INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        row.thread_id,
                        row.ns,
                        row.checkpoint_id,
                        row.parent_id,
                        pack(row.body, PACK_BODY_FROM),
                        row.metadata,
                    )
                ],
            )
        )
        older = self._file_schema < FILE_SCHEMA
        if older:  # a file of an older layout: an older version must not read on in it
            batches.append(
                (
                    "UPDATE stepwise_meta SET value=? WHERE key='checkpoint_schema'",
                    [(str(FILE_SCHEMA),)],
                )
            )
        if refs and row.parent_id is not None:
            # only a write stored earlier that still holds the text the reference stands for
            batches.append(
                (
                    "UPDATE checkpoint_writes SET data=? WHERE thread_id=? AND ns=?"
                    " AND checkpoint_id=? AND task_id=? AND idx=? AND data=?",
                    [
                        (ref, row.thread_id, row.ns, row.parent_id, task_id, idx, text)
                        for task_id, idx, text, ref in refs
                    ],
                )
            )
        if self.hold_checkpoints and self._lease_rows.holds(row.thread_id):
            self._held.hold_statements(batches)  # committed by the next write (or flush)
        else:
            self._write_rows(f"save checkpoint {row.checkpoint_id}", batches)
        if older:
            self._file_schema = FILE_SCHEMA

    def _get_row(self, thread_id: str, ns: str, checkpoint_id: str | None) -> StoredRow | None:
        if checkpoint_id is None:
            rows = self._query(
                "SELECT thread_id, ns, checkpoint_id, parent_id, body, metadata FROM checkpoints "
                "WHERE thread_id=? AND ns=? ORDER BY checkpoint_id DESC LIMIT 1",
                (thread_id, ns),
            )
        else:
            rows = self._query(
                "SELECT thread_id, ns, checkpoint_id, parent_id, body, metadata FROM checkpoints "
                "WHERE thread_id=? AND ns=? AND checkpoint_id=?",
                (thread_id, ns, checkpoint_id),
            )
        return _stored_row(rows[0]) if rows else None

    def _get_blob(self, thread_id: str, ns: str, channel: str, version: str) -> str | bytes | None:
        rows = self._query(
            "SELECT data FROM checkpoint_blobs WHERE thread_id=? AND ns=? AND channel=? AND version=?",
            (thread_id, ns, channel, version),
        )
        return rows[0][0] if rows else None  # type: ignore[return-value]

    def _get_blob_chain(
        self, thread_id: str, ns: str, channel: str, version: str, limit: int
    ) -> list[tuple[str, str | bytes]]:
        """The append chain from ``version`` back, at most ``limit`` blobs, newest first; it
        ends at a root, or at a blob whose base it cannot read without parsing it (the caller
        parses that one and goes on, or reports it as corrupt).

        A short stretch (a chain in the current layout is a handful of blobs) is read one
        blob per query by primary key, each blob naming its base at its start: far cheaper
        than SQLite following the chain itself in a recursive query, which copies every blob
        into its queue and a sort.  A long one (a chain of the older layout, one blob per
        step) reads the channel's blobs of the thread in one plain scan and follows the
        chain here (``chain_from``)."""
        if limit > _SCAN_FROM:
            rows = self._query(
                "SELECT version, data FROM checkpoint_blobs WHERE thread_id=? AND ns=? AND channel=?",
                (thread_id, ns, channel),
            )
            return chain_from(dict(rows), version, limit)  # type: ignore[arg-type]
        out: list[tuple[str, str | bytes]] = []
        v: str | None = version
        try:
            with self._lock:
                if self._held:
                    self._flush_held()
                cur = self.conn.cursor()
                while v is not None and len(out) < limit:
                    row = cur.execute(
                        "SELECT data FROM checkpoint_blobs"
                        " WHERE thread_id=? AND ns=? AND channel=? AND version=?",
                        (thread_id, ns, channel, v),
                    ).fetchone()
                    if row is None:
                        break
                    out.append((v, row[0]))
                    first = head(row[0])  # a packed blob's head is readable as it is
                    if not first.startswith(_LOG_HEAD):
                        break  # a root, or the older layout: its long chain is read by a scan
                    v = base_of(first)
        except sqlite3.DatabaseError as exc:
            raise CheckpointError(f"Cannot read checkpoints from {self.path}: {exc}") from exc
        return out

    def _list_rows(
        self, thread_id: str | None, ns: str | None, before: str | None, limit: int | None
    ) -> Iterator[StoredRow]:
        where, params = [], []
        if thread_id is not None:
            where.append("thread_id=?")
            params.append(thread_id)
        if ns is not None:
            where.append("ns=?")
            params.append(ns)
        if before is not None:
            where.append("checkpoint_id<?")
            params.append(before)
        sql = "SELECT thread_id, ns, checkpoint_id, parent_id, body, metadata FROM checkpoints"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY checkpoint_id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for r in self._query(sql, tuple(params)):
            yield _stored_row(r)

    def _put_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: list[tuple[int, str, str]],
        task_path: str = "",  # not kept: the file's writes come back in the order put
    ) -> None:
        item = HeldWrite(thread_id, ns, checkpoint_id, task_id, writes)
        with self._lock:
            # an interrupt's, an error's or a resume's writes end a run: stored at once
            if all(w[0] >= 0 for w in writes) and self._lease_rows.holds(thread_id):
                self._held.add(item)
                return
            held = [*self._held.take(), item]
            self._write_rows(
                f"save pending writes of checkpoint {checkpoint_id}",
                held_statements(held, self._writes_seq),
            )

    def _flush_held(self, keep: bool = False) -> None:
        """Store the held writes now (in one transaction).  When that fails they are lost
        with the error it raises (as a failed ``put_writes`` loses them), unless ``keep``:
        the background flush keeps them for the run's next use of the saver to report."""
        with self._lock:
            held = self._held.take()
            statements = self._held.take_statements()
            if not held and not statements:
                return
            try:
                self._write_rows(
                    "save pending writes", statements + held_statements(held, self._writes_seq)
                )
            except BaseException:
                if keep:
                    self._held.restore(held)
                    self._held.restore_statements(statements)
                raise

    def _get_writes(
        self, thread_id: str, ns: str, checkpoint_id: str
    ) -> list[tuple[str, str, str]]:
        rows = self._query(
            "SELECT task_id, channel, data FROM checkpoint_writes WHERE thread_id=? AND ns=? AND checkpoint_id=? "
            + ("ORDER BY seq" if self._writes_seq else "ORDER BY rowid"),
            (thread_id, ns, checkpoint_id),
        )
        return [(str(a), str(b), str(c)) for a, b, c in rows]

    def _delete_thread(self, thread_id: str) -> None:
        self._flush_held()
        with self._writing(f"delete thread {thread_id}") as cur:
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "thread_leases"):
                cur.execute(f"DELETE FROM {table} WHERE thread_id=?", (thread_id,))

    # -- leases across processes ---------------------------------------------------------------

    def _acquire_lease(self, thread_id: str, owner: str) -> str | None:
        return self._lease_rows.acquire(thread_id, owner)

    def _release_lease(self, thread_id: str, owner: str) -> None:
        # the run is over: what it holds is stored (a file that cannot take it keeps it held,
        # for the next use of the saver to report; the run's end must not hide its own error)
        with suppress(CheckpointError):
            self._flush_held(keep=True)
        self._lease_rows.release(thread_id, owner)

    def lease_holder(self, thread_id: str) -> str | None:
        return self._lease_rows.holder(thread_id)

    def _unlock_hint(self, thread_id: str) -> str:
        return (
            f" If that run is gone, `stepwise unlock {self.path} --thread {thread_id}` breaks "
            f"its lease (a lease also expires {self._lease_rows.ttl:g} s after its last heartbeat)."
        )

    def renew_leases(self) -> None:
        """Heartbeat the leases this saver holds (a background thread does it every ttl/3)."""
        self._lease_rows.renew()

    def leases(self) -> list[LeaseInfo]:
        """Every lease row in the file (live or not)."""
        return self._lease_rows.list()

    def break_leases(self, thread_id: str | None = None) -> list[LeaseInfo]:
        """Remove the thread's lease (all leases when None); returns the removed ones."""
        return self._lease_rows.break_leases(thread_id)

    def file_size(self) -> int:
        """Bytes on disk after folding the WAL into the main file."""
        with self._lock:
            self._flush_held()
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return os.path.getsize(self.path) if self.path != "<connection>" else 0


def _stored_row(r: tuple[object, ...]) -> StoredRow:
    """A ``checkpoints`` row as a ``StoredRow`` (its body unpacked; a body that does not
    inflate is left for the reader to report as corrupt)."""
    thread_id, ns, checkpoint_id, parent_id, body, metadata = r
    if isinstance(body, bytes):
        try:
            body = unpack(body)
        except ValueError:
            body = body.decode(errors="replace")
    return StoredRow(thread_id, ns, checkpoint_id, parent_id, body, metadata)  # type: ignore[arg-type]


def _flusher(saver: weakref.ref[SqliteSaver]) -> Callable[[], bool]:
    """The held writes' flush, holding its saver weakly (the flusher thread must not keep a
    saver alive): False once the saver is gone."""

    def flush() -> bool:
        alive = saver()
        if alive is None:
            return False
        alive._flush_held(keep=True)
        return True

    return flush
