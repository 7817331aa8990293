"""The SQLite file under ``SqliteSaver``: how it is opened (WAL, a clear error when it is
not a SQLite file) and the tables the checkpoints keep in it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from engine.errors import CheckpointError

__all__ = ["PAGE_SIZE", "SCHEMA", "open_sqlite"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS stepwise_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL, ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    parent_id TEXT, body TEXT NOT NULL, metadata TEXT NOT NULL,
    PRIMARY KEY (thread_id, ns, checkpoint_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
    thread_id TEXT NOT NULL, ns TEXT NOT NULL, channel TEXT NOT NULL, version TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (thread_id, ns, channel, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoint_writes (
    thread_id TEXT NOT NULL, ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, data TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS thread_leases (
    thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
    acquired REAL NOT NULL
);
"""


PAGE_SIZE = 8192
"""Page size of a new file.  A blob longer than about a quarter page spills to overflow
pages, each mostly empty for a blob of a few KiB (a log's consolidating blobs, packed): 8 KiB
pages keep such blobs whole and waste less than SQLite's default 4 KiB."""


def open_sqlite(path: str | os.PathLike[str], *, what: str = "Stepwise file") -> sqlite3.Connection:
    """Open (creating if needed) a SQLite file in WAL mode, with a clear error if it is not one."""
    p = Path(path)
    if p.exists() and p.is_dir():
        raise CheckpointError(f"{p} is a directory, not a {what}")
    new = not p.exists() or p.stat().st_size == 0
    try:
        conn = sqlite3.connect(str(p), check_same_thread=False, isolation_level=None, timeout=10.0)
        if new:  # before anything is written (and WAL is on), or it has no effect
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=OFF")
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise CheckpointError(f"{p} is not a {what} (or it is damaged): {exc}") from exc
    return conn
