"""The session file's own tables (next to the checkpoint tables of ``SqliteSaver``).

A session file (``*.stepwise``) is one SQLite database in WAL mode.  ``SqliteSaver`` keeps its
``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes`` and ``thread_leases`` tables; the
recorder keeps the ``session_*`` tables below.  ``stepwise_meta`` holds one row per schema:
``checkpoint_schema`` (the saver's) and ``session_schema`` (ours).

Events are stored whole as JSON (``data``; a run's first ``model.request`` may instead name
the thread's earlier request it continues, ``messages_prior``, which ``Session`` joins back:
``engine.recording.request_prior``), with the columns a viewer filters and pages on
copied out and indexed: ``(run, seq)`` for paging a run in order, ``(kind, run, seq)`` for
paging one kind.  ``run`` is the integer id of the ``session_runs`` row (keeps rows small).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

__all__ = [
    "RECORDING_FAILED_KEY",
    "SESSION_SCHEMA",
    "SQLITE_MAGIC",
    "SessionError",
    "check_recordable",
    "connect_existing",
    "create_tables",
    "read_schema_version",
]

SESSION_SCHEMA = 1
"""The version this code writes and the newest it reads."""

SQLITE_MAGIC = b"SQLite format 3\x00"

DDL = """
CREATE TABLE IF NOT EXISTS stepwise_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS session_runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    thread_id TEXT,
    graph TEXT,
    shape_digest TEXT,
    status TEXT,
    started REAL,
    finished REAL,
    resumed INTEGER NOT NULL DEFAULT 0,
    input TEXT,
    output TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS session_runs_thread ON session_runs(thread_id, id);
CREATE TABLE IF NOT EXISTS session_events (
    id INTEGER PRIMARY KEY,
    run INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    step INTEGER,
    node TEXT,
    span_id TEXT,
    parent_span_id TEXT,
    ts REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS session_events_run_seq ON session_events(run, seq);
CREATE INDEX IF NOT EXISTS session_events_kind ON session_events(kind, run, seq);
CREATE TABLE IF NOT EXISTS session_shapes (
    digest TEXT PRIMARY KEY, graph TEXT NOT NULL, shape TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_checkpoints (
    thread_id TEXT NOT NULL, ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    run INTEGER NOT NULL, seq INTEGER NOT NULL, parent_id TEXT, step INTEGER, source TEXT,
    next TEXT NOT NULL,
    PRIMARY KEY (thread_id, ns, checkpoint_id)
) WITHOUT ROWID;
"""

RECORDING_FAILED_KEY = "recording_failed"
"""``stepwise_meta`` key noting why recording stopped (``{"error": ..., "ts": ...}``)."""

REQUIRED_TABLES = frozenset(
    {"session_runs", "session_events", "session_shapes", "session_checkpoints"}
)


class SessionError(Exception):
    """A session file cannot be used: not a session, from a newer Stepwise, or damaged.

    The message always names the file.  ``path`` is the file.
    """

    def __init__(self, message: str, *, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)


def read_schema_version(conn: sqlite3.Connection) -> int | None:
    """The ``session_schema`` of the file, or None when it has none (not a session yet)."""
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='stepwise_meta'"
    ).fetchone()
    if has_meta is None:
        return None
    row = conn.execute("SELECT value FROM stepwise_meta WHERE key='session_schema'").fetchone()
    return None if row is None else int(row[0])


def create_tables(conn: sqlite3.Connection, path: str) -> None:
    """Create (or check) the session tables in a file opened for recording.

    Refuses a SQLite file that belongs to something else (it has tables but no
    ``stepwise_meta``) and a session written by a newer Stepwise.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            names = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if names and "stepwise_meta" not in names:
                raise SessionError(
                    f"{path} is a SQLite database but not a Stepwise session "
                    f"(it has other tables: {', '.join(sorted(names)[:5])})",
                    path=path,
                )
            version = read_schema_version(conn)
            if version is not None and version > SESSION_SCHEMA:
                raise SessionError(_newer(path, version), path=path)
            for stmt in _statements(DDL):
                conn.execute(stmt)
            conn.execute(
                "INSERT OR IGNORE INTO stepwise_meta(key, value) VALUES ('session_schema', ?)",
                (str(SESSION_SCHEMA),),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as exc:
        raise SessionError(
            f"{path} is not a Stepwise session (or it is damaged): {exc}", path=path
        ) from exc


def check_recordable(path: str | os.PathLike[str]) -> None:
    """Refuse, before touching it, an existing file that is not a session or checkpoint file.

    (Opening it for recording would switch it to WAL mode, which already writes to it.)
    """
    p = Path(path)
    if p.is_dir():
        raise SessionError(f"{p} is a directory, not a Stepwise session file", path=p)
    if p.exists() and not stat.S_ISREG(p.stat().st_mode):
        raise SessionError(f"{p} is not a regular file: a session is recorded into a file", path=p)
    if not p.exists() or p.stat().st_size == 0:
        return
    with p.open("rb") as fh:
        if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise SessionError(f"{p} is not a Stepwise session (not a SQLite database)", path=p)
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
        try:
            names = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            version = read_schema_version(conn) if "stepwise_meta" in names else None
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise SessionError(
            f"{p} is not a Stepwise session (or it is damaged): {exc}", path=p
        ) from exc
    if names and "stepwise_meta" not in names:
        raise SessionError(
            f"{p} is a SQLite database but not a Stepwise session "
            f"(it has other tables: {', '.join(sorted(names)[:5])})",
            path=p,
        )
    if version is not None and version > SESSION_SCHEMA:
        raise SessionError(_newer(str(p), version), path=p)


def connect_existing(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open an existing session file for reading, with a clear ``SessionError`` if it is not one.

    Nothing is written to the file (no journal-mode change, no tables created).
    """
    p = Path(path)
    if not p.exists():
        raise SessionError(f"{p}: no such session file", path=p)
    if p.is_dir():
        raise SessionError(f"{p} is a directory, not a Stepwise session file", path=p)
    try:
        with p.open("rb") as fh:
            header = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise SessionError(
            f"{p}: cannot read the session file: {exc.strerror or exc}", path=p
        ) from exc
    if header != SQLITE_MAGIC:
        what = "it is empty" if not header else "not a SQLite database"
        raise SessionError(f"{p} is not a Stepwise session ({what})", path=p)
    try:
        conn = sqlite3.connect(str(p), check_same_thread=False, isolation_level=None, timeout=10.0)
    except sqlite3.Error as exc:
        raise SessionError(f"{p}: cannot open the session file: {exc}", path=p) from exc
    try:
        version = read_schema_version(conn)
        if version is None:
            raise SessionError(
                f"{p} is not a Stepwise session (no session schema in the file)", path=p
            )
        if version > SESSION_SCHEMA:
            raise SessionError(_newer(str(p), version), path=p)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = REQUIRED_TABLES - names
        if missing:
            raise SessionError(
                f"{p} is damaged: the session tables {', '.join(sorted(missing))} are missing",
                path=p,
            )
    except SessionError:
        conn.close()
        raise
    except (sqlite3.DatabaseError, ValueError) as exc:
        conn.close()
        raise SessionError(
            f"{p} is damaged (not a readable Stepwise session): {exc}", path=p
        ) from exc
    return conn


def _newer(path: str, version: int) -> str:
    return (
        f"{path} was written by a newer Stepwise (session schema {version}; "
        f"this version reads up to {SESSION_SCHEMA})"
    )


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
