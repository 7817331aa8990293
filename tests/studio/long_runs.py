"""A one-run session longer than a small load limit: a graph that loops ``step`` -> ``check``
(two root supersteps a turn) until ``n`` reaches ``turns``, recorded on thread ``t``."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated

from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.recording import Session, SessionRecorder

__all__ = ["Loop", "record_loop"]


class Loop(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def record_loop(path: Path, turns: int = 40) -> int:
    """Record the loop's one run into ``path``; returns how many events it holds."""
    rec = SessionRecorder(path)
    graph = (
        StateGraph(Loop)
        .add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"step {s['n']}"]})
        .add_node("check", lambda s: {"log": ["checked"]})
        .add_edge(START, "step")
        .add_edge("step", "check")
        .add_conditional_edges("check", lambda s: END if s["n"] >= turns else "step", ["step", END])
        .compile(checkpointer=rec.checkpointer)
    )
    rec.attach(graph)
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with Session.open(path) as session:
        return session.count()
