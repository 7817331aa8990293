"""``SqliteSaver(sqlite3.connect(path))``: a connection in Python's default transaction mode.

The docs hand the saver a connection opened the plain way; the sqlite3 module then opens
transactions by itself, so the saver must join them and commit, not ``BEGIN`` on top.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TypedDict

from engine.checkpoint import SqliteSaver
from engine.graph import END, START, Command, StateGraph, interrupt


class S(TypedDict):
    x: int
    answer: str


def _ask(state: S) -> dict[str, object]:
    return {"answer": interrupt("yes?"), "x": state["x"] + 1}


def _graph(saver: SqliteSaver):  # type: ignore[no-untyped-def]
    g = StateGraph(S)
    g.add_node("ask", _ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=saver)


def test_a_default_mode_connection_runs_interrupts_resumes_and_commits(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)  # isolation_level "" (deferred)
    assert conn.isolation_level is not None
    graph = _graph(SqliteSaver(conn))
    cfg = {"configurable": {"thread_id": "t1"}}
    first = graph.invoke({"x": 1}, cfg)
    assert first["__interrupt__"][0].value == "yes?"
    done = graph.invoke(Command(resume="sure"), cfg)
    assert done == {"x": 2, "answer": "sure"}
    assert not conn.in_transaction  # everything committed

    other = SqliteSaver(sqlite3.connect(path, check_same_thread=False))  # another reader
    assert _graph(other).get_state(cfg).values == {"x": 2, "answer": "sure"}


def test_a_default_mode_connection_with_an_open_transaction_of_its_own(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "shared.sqlite", check_same_thread=False)
    saver = SqliteSaver(conn)
    conn.execute("CREATE TABLE notes (t TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")  # Python opened a transaction for it
    assert conn.in_transaction
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t2"}}
    assert graph.invoke({"x": 5}, cfg)["__interrupt__"]
    assert not conn.in_transaction
    assert conn.execute("SELECT t FROM notes").fetchall() == [("mine",)]
