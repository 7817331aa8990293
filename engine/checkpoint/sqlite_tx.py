"""Transactions on a SQLite connection in either of Python's transaction modes.

The engine opens its own files in autocommit mode (``isolation_level=None``) and brackets
each write with ``BEGIN`` / ``COMMIT``.  A connection the user hands over
(``SqliteSaver(sqlite3.connect(path))``) is usually in Python's default mode, where the
``sqlite3`` module opens a transaction by itself before the first write and keeps it until
``commit()``: an explicit ``BEGIN`` then fails ("cannot start a transaction within a
transaction").  These helpers join a transaction that is already open instead of starting
one, and end with ``conn.commit()``, which both modes understand (LangGraph's saver commits
the connection after each write the same way).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress

__all__ = ["settle", "single", "transaction"]


@contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = False) -> Iterator[sqlite3.Cursor]:
    """One transaction (``immediate``: take the write lock at once), committed on success and
    rolled back on any exception (only while one is still open: SQLite rolls back by itself on
    some errors, and a failing ROLLBACK never hides the cause)."""
    cur = conn.cursor()
    try:
        if not conn.in_transaction:
            cur.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        yield cur
        conn.commit()
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.rollback()
        raise


def settle(conn: sqlite3.Connection) -> None:
    """Commit what a single statement left open (only in Python's default mode; in autocommit
    mode nothing is open and this does nothing)."""
    if conn.in_transaction:
        conn.commit()


@contextmanager
def single(conn: sqlite3.Connection) -> Iterator[sqlite3.Cursor]:
    """Statements outside an explicit transaction: committed (``settle``) after, rolled back
    if they fail in a transaction Python opened for them."""
    try:
        yield conn.cursor()
        settle(conn)
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.rollback()
        raise
