"""Cold read of the deepest checkpoint's state in a 10,000-message thread.

A graph appends one message per superstep until the thread holds 10,000 messages, on a
``SqliteSaver`` (each checkpoint stores the messages added since an older one: a read walks a
handful of blobs).  Then a fresh saver on the same file (nothing cached: what the studio does
when it opens a session) reads the state at the last checkpoint.  Two figures, each the median
of several such cold reads:

- *state available*: ``graph.get_state`` returns, with every message there (``len`` is
  checked) but decoded only when first read (issue 26 goal: <= 20 ms);
- *every message decoded*: the same read, then every message read (its type and content
  touched), what a view showing the whole history pays (no goal: reported as it is).

The time to build the thread (10,000 supersteps, checkpoints written) is printed with them, and
each read's CPU time (on a shared machine the wall clock also counts other processes' turns).

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


def cold_read(path: Path, *, decode_all: bool = False) -> tuple[float, float]:
    """Seconds (wall clock, and CPU time of this process) to read the state at the thread's
    last checkpoint through a fresh saver (and, with ``decode_all``, every message of it)."""
    from engine.checkpoint import SqliteSaver

    with SqliteSaver(path, heartbeat=False) as saver:
        graph = _graph(saver)
        t0, c0 = time.perf_counter(), time.process_time()
        snap = graph.get_state({"configurable": {"thread_id": "deep"}})
        messages = snap.values["messages"]
        if decode_all:
            touched = sum(len(m.content) for m in messages if m.type == "ai")
        spent = time.perf_counter() - t0, time.process_time() - c0
    assert len(messages) == MESSAGES, len(messages)
    if decode_all:
        assert touched > 0 and all(m.type == "ai" for m in messages)
    return spent


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "deep.sqlite"
        t0 = time.perf_counter()
        build(path)
        built = time.perf_counter() - t0
        reads: list[tuple[float, float]] = []
        fulls: list[tuple[float, float]] = []
        for _ in range(READS):  # alternated, so both see the same machine
            reads.append(cold_read(path))
            fulls.append(cold_read(path, decode_all=True))
    times, full = [w for w, _ in reads], [w for w, _ in fulls]
    cpu, full_cpu = statistics.median(c for _, c in reads), statistics.median(c for _, c in fulls)
    return [
        goal(
            f"cold read of the deepest checkpoint's state, {MESSAGES:,}-message thread",
            statistics.median(times) * 1e3,
            20,
            "ms",
            f"median of {READS} fresh savers; slowest {max(times) * 1e3:.0f} ms; CPU "
            f"{cpu * 1e3:.1f} ms; thread built in {built:.1f} s",
        ),
        Figure(
            f"cold read, every message decoded, {MESSAGES:,}-message thread",
            statistics.median(full) * 1e3,
            "ms",
            note=f"median of {READS}; slowest {max(full) * 1e3:.0f} ms; CPU "
            f"{full_cpu * 1e3:.1f} ms",
        ),
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
