"""Whose checkpoints a SQLite file holds: Stepwise's, LangGraph's, or another layout.

An app ported from LangGraph to the engine by its imports may still point its saver at the file
LangGraph's ``SqliteSaver`` wrote.  The layouts differ; the engine must say so before it
writes anything there (it would add its own tables beside LangGraph's, then fail on the first
read with a column error); attach mode's ``--checkpointer sqlite:///`` asks the same of a file
before LangGraph's saver writes there (``engine.attach.savers``)."""

from __future__ import annotations

import sqlite3
from typing import Literal

from engine.errors import CheckpointError

__all__ = ["Layout", "layout_of", "named", "refuse_foreign"]

Layout = Literal["none", "stepwise", "langgraph", "other"]


def named(conn: sqlite3.Connection) -> str:
    """How the file of ``conn`` is named in errors (a connection may be to memory)."""
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        row = None
    return str(row[2]) if row and row[2] else "<in-memory database>"


def layout_of(conn: sqlite3.Connection) -> Layout:
    """Whose ``checkpoints`` table the database holds (``none``: it has none)."""
    cols = {row[1] for row in conn.execute("PRAGMA table_info(checkpoints)").fetchall()}
    if not cols:
        return "none"
    if {"thread_id", "ns", "checkpoint_id", "body"} <= cols:
        return "stepwise"
    return "langgraph" if "checkpoint_ns" in cols else "other"


def refuse_foreign(conn: sqlite3.Connection, name: str) -> None:
    """Raise, writing nothing, when the file's ``checkpoints`` table is another saver's (the
    engine would otherwise add its own tables next to it and fail on the first read)."""
    layout = layout_of(conn)
    if layout == "langgraph":
        raise CheckpointError(
            f"{name} holds LangGraph's own checkpoints (langgraph-checkpoint-sqlite), which "
            "Stepwise's engine does not read: give its SqliteSaver another file, or run the "
            "app on LangGraph (attach mode, --runtime langgraph)"
        )
    if layout == "other":
        raise CheckpointError(
            f"{name} is not a Stepwise checkpoint file: its checkpoints table has another layout"
        )
