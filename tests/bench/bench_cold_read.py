"""Cold read of the deepest checkpoint's state in a 10,000-message thread.

A graph appends one message per superstep until the thread holds 10,000 messages, on a
``SqliteSaver`` (the messages are stored as append deltas, one per checkpoint).  Then a fresh
saver on the same file (nothing cached: what the studio does when it opens a session) reads
the state at the last checkpoint: ``graph.get_state``, every message decoded.  The figure is
the median of several such cold reads (issue 26 goal: <= 20 ms).

Run: ``.venv/bin/python -m tests.bench.bench_cold_read``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.report import Figure, goal

MESSAGES = 10_000
READS = 7


def _graph(checkpointer: Any) -> Any:
    from engine import END, START, StateGraph
    from engine.messages import AIMessage, MessagesState

    def talk(state: MessagesState) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage(content=f"message {n}: " + "lorem ipsum " * 8)]}

    b = StateGraph(MessagesState)
    b.add_node("talk", talk)
    b.add_edge(START, "talk")
    b.add_conditional_edges(
        "talk", lambda s: "talk" if len(s["messages"]) < MESSAGES else END, ["talk", END]
    )
    return b.compile(checkpointer=checkpointer)


def build(path: Path) -> None:
    from engine.checkpoint import SqliteSaver

    with SqliteSaver(path) as saver:
        _graph(saver).invoke(
            {"messages": []},
            {"configurable": {"thread_id": "deep"}, "recursion_limit": MESSAGES + 10},
        )


def cold_read(path: Path) -> float:
    """Seconds to read the state at the thread's last checkpoint through a fresh saver."""
    from engine.checkpoint import SqliteSaver

    with SqliteSaver(path, heartbeat=False) as saver:
        graph = _graph(saver)
        t0 = time.perf_counter()
        snap = graph.get_state({"configurable": {"thread_id": "deep"}})
        spent = time.perf_counter() - t0
    assert len(snap.values["messages"]) == MESSAGES, len(snap.values["messages"])
    return spent


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "deep.sqlite"
        t0 = time.perf_counter()
        build(path)
        built = time.perf_counter() - t0
        times = [cold_read(path) for _ in range(READS)]
    return [
        goal(
            f"cold read of the deepest checkpoint's state, {MESSAGES:,}-message thread",
            statistics.median(times) * 1e3,
            20,
            "ms",
            f"median of {READS} fresh savers; slowest {max(times) * 1e3:.0f} ms; "
            f"thread built in {built:.1f} s",
        )
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
