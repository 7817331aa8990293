"""A real LangGraph app whose sync node hangs (a sync tool stuck on a dead socket), for attach
mode; ``graph`` keeps its checkpoints in ``$HUNG_APP_DB`` (SQLite) when that is set."""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import TypedDict

from langgraph.graph import START, StateGraph


class Count(TypedDict, total=False):
    n: int


def stuck(state: Count) -> dict:
    threading.Event().wait(600)  # closing the window must not wait for this
    return {"n": 1}


def _saver():  # a saver of the installed langgraph
    path = os.environ.get("HUNG_APP_DB")
    if not path:
        return None
    from langgraph.checkpoint.sqlite import SqliteSaver

    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


_b = StateGraph(Count)
_b.add_node("stuck", stuck)
_b.add_edge(START, "stuck")
graph = _b.compile(checkpointer=_saver())
