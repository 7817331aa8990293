"""The session the timeline bench measures: a 10,000-checkpoint thread in a 1,000,000-event
session file, built once and cached under the temp folder.

A ``StateGraph`` agent loop (model -> tools -> model ..., a message per step, the todo list
rewritten every 100 steps) runs 10,000 supersteps recorded by ``SessionRecorder`` into a
``.stepwise`` file, nine forks are made with ``update_state`` on past checkpoints, and the file
is padded with streamed-token events to one million events.  ``tests.bench.bench_timeline``
measures the studio on it.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine.messages import add_messages

CHECKPOINTS = 10_000
SESSION_EVENTS = 1_000_000
FORKS = 9
THREAD = "long"
PATH = (
    Path(tempfile.gettempdir())
    / "stepwise-bench"
    / f"timeline-v3-{CHECKPOINTS}-{SESSION_EVENTS}.stepwise"
)
"""The session, cached between runs; built again when its checkpoint layout is older than what
the saver writes today (``_stale``): the figures are about the files Stepwise writes now (v2
was a layout-1 file, whose message logs are one blob per append, read back by walking them)."""


# -- the session -------------------------------------------------------------------------------


class State(TypedDict):
    messages: Annotated[list, add_messages]
    todos: list[dict[str, str]]


def _graph(checkpointer: Any) -> Any:
    from engine.graph import END, START, StateGraph
    from engine.messages import AIMessage, ToolMessage

    last = CHECKPOINTS - 3  # input + __start__ + one checkpoint per message after the first

    def model(state: State) -> dict[str, Any]:
        n = len(state["messages"])
        if n >= last:
            return {"messages": [AIMessage(f"All {n // 2} files are written.")]}
        path = f"src/components/file_{n // 2:05d}.tsx"
        return {
            "messages": [
                AIMessage(
                    f"Next I will create {path}, following the plan; the previous file compiled.",
                    tool_calls=[
                        {
                            "name": "create_file",
                            "args": {"path": path, "content": "x" * 120},
                            "id": f"c{n}",
                        }
                    ],
                )
            ]
        }

    def tools(state: State) -> dict[str, Any]:
        call = state["messages"][-1].tool_calls[0]
        out: dict[str, Any] = {
            "messages": [ToolMessage(f"created {call['args']['path']}", tool_call_id=call["id"])]
        }
        n = len(state["messages"])
        if n % 200 == 2:
            out["todos"] = [
                {
                    "content": f"create batch {k}",
                    "status": "completed" if k < n // 200 else "pending",
                }
                for k in range(n // 200, n // 200 + 5)
            ]
        return out

    def route(state: State) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    b = StateGraph(State)
    b.add_node("model", model)
    b.add_node("tools", tools)
    b.add_edge(START, "model")
    b.add_conditional_edges("model", route, ["tools", END])
    b.add_edge("tools", "model")
    return b.compile(checkpointer=checkpointer, name="long_loop")


def _remove(path: Path) -> None:
    for extra in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)


def _stale(path: Path) -> bool:
    """Whether the cached session is missing or its checkpoint tables are of an older layout
    than the one ``SqliteSaver`` writes now (``engine.checkpoint.sqlite.FILE_SCHEMA``)."""
    from engine.checkpoint.sqlite import FILE_SCHEMA

    if not path.exists():
        return True
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT value FROM stepwise_meta WHERE key='checkpoint_schema'"
        ).fetchone()
    finally:
        conn.close()
    return row is None or int(row[0]) < FILE_SCHEMA


def build_session(final: Path) -> dict[str, Any]:
    """Build the session into ``final`` (written under a temporary name, renamed when done)."""
    from engine.messages import HumanMessage
    from engine.recording import SessionRecorder

    final.parent.mkdir(parents=True, exist_ok=True)
    path = final.with_name(final.name + ".partial")
    _remove(path)
    _remove(final)
    t0 = time.perf_counter()
    rec = SessionRecorder(path)
    graph = _graph(rec.checkpointer)
    rec.attach(graph)
    config = {"configurable": {"thread_id": THREAD}, "recursion_limit": CHECKPOINTS + 10}
    graph.invoke({"messages": [HumanMessage("Create the components, one file per step.")]}, config)
    from engine.targets.checkpoint_list import records_from_saver

    history = [
        r.checkpoint_id for r in records_from_saver(rec.checkpointer, THREAD)
    ]  # no values loaded
    for k in range(1, FORKS + 1):
        past = {
            "configurable": {
                "thread_id": THREAD,
                "checkpoint_id": history[len(history) * k // (FORKS + 1)],
            }
        }
        graph.update_state(
            past, {"todos": [{"content": f"fork {k}", "status": "in_progress"}]}, as_node="tools"
        )
    rec.close()
    engine_s = time.perf_counter() - t0
    conn = sqlite3.connect(path)
    have = conn.execute("SELECT COUNT(*) FROM session_events").fetchone()[0]
    conn.execute(
        "INSERT INTO session_runs(run_id, thread_id, graph, status) VALUES ('tokens', ?, 'long_loop', 'done')",
        (THREAD,),
    )
    run = conn.execute("SELECT id FROM session_runs WHERE run_id='tokens'").fetchone()[0]
    todo, seq, now = SESSION_EVENTS - have, 0, time.time()
    while todo > 0:
        rows = []
        for _ in range(min(todo, 50_000)):
            seq += 1
            data = json.dumps(
                {
                    "kind": "model.token",
                    "run_id": "tokens",
                    "thread_id": THREAD,
                    "seq": seq,
                    "ts": now,
                    "model": "m",
                    "text": f"tok{seq % 97} ",
                }
            )
            rows.append((run, seq, "model.token", None, "model", None, None, now, data))
        conn.executemany(
            "INSERT INTO session_events(run, seq, kind, step, node, span_id, parent_span_id, ts, data) VALUES (?,?,?,?,?,?,?,?,?)",
            rows,
        )
        todo -= len(rows)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    path.rename(final)
    return {"engine_s": engine_s, "total_s": time.perf_counter() - t0}
