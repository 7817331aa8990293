"""Time travel at scale: a 10,000-checkpoint thread in a 1,000,000-event session file.

The session is built once (cached under the temp folder): a ``StateGraph`` agent loop
(model -> tools -> model ..., a message per step, the todo list rewritten every 100 steps)
runs 10,000 supersteps recorded by ``SessionRecorder`` into a ``.stepwise`` file, nine forks
are made with ``update_state`` on past checkpoints, and the file is padded with streamed-token
events to one million events.

Figures (issue 11, targets 5 and 6, and issue 9's "scrolls smoothly"):

- open: a fresh process opens the session offline (``studio.history.replay.open_session``: the first
  page of events into the hub), builds the Timeline dock and paints it; wall time and memory
  (target: 2 s, 500 MB);
- timeline: loading the 10,000 checkpoints from the live checkpointer into the dock, and
  scrolling the whole list a page at a time (every frame painted; slowest frame);
- select: 200 random checkpoints (and the first and last) selected in a window with the
  Timeline, State and Diff docks; the State dock's render time (read the state, build the
  tree's top level, lay out and paint) for each (target: 100 ms), for the live graph and for
  the recorded session.

Run: ``.venv/bin/python -m tests.bench.bench_timeline`` (``--rebuild`` to rebuild the file).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from engine.messages import add_messages
from tests.bench.report import Figure

CHECKPOINTS = 10_000
SESSION_EVENTS = 1_000_000
FORKS = 9
SELECTIONS = 200
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


# -- helpers -------------------------------------------------------------------------------------


def _rss_mb() -> tuple[float, float]:
    """Current and peak resident memory of this process, in MB."""
    cur = peak = 0.0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return cur, peak


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


# -- target 5: open the session (run in a fresh process) -------------------------------------------


def open_probe(path: Path) -> dict[str, float]:
    app = _app()
    from studio.docks.timeline.view import TimelineDock
    from studio.history.replay import open_session
    from studio.models.hub import Hub

    base = _rss_mb()[0]
    t0 = time.perf_counter()
    hub = Hub()
    opened = open_session(hub, path)
    t_open = time.perf_counter()
    dock = TimelineDock(hub)
    dock.resize(900, 700)
    dock.show()
    app.processEvents()
    dock.view.viewport().repaint()
    t1 = time.perf_counter()
    cur, peak = _rss_mb()
    first_page = len(hub.events)
    t2 = time.perf_counter()
    while not opened.complete:  # what open_session_into feeds in the background
        opened.feed(5000)
        app.processEvents()
    fed_s = time.perf_counter() - t2
    fed_rss, fed_peak = _rss_mb()
    return {
        "fed": opened.fed,
        "fed_s": fed_s,
        "fed_rss_mb": fed_rss,
        "fed_peak_mb": fed_peak,
        "open_ms": (t_open - t0) * 1000,
        "shown_ms": (t1 - t0) * 1000,
        "first_page": first_page,
        "events": opened.total_events,
        "checkpoints": len(dock.timeline),
        "branches": len(dock.timeline.branches),
        "rss_mb": cur,
        "peak_mb": peak,
        "base_mb": base,
    }


# -- targets 6 and smooth scrolling ----------------------------------------------------------------


def _window(hub: Any) -> tuple[Any, Any, Any, Any]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QSplitter

    from studio.docks.diff.view import DiffView
    from studio.docks.state.view import StateDock
    from studio.docks.timeline.view import TimelineDock

    split = QSplitter(Qt.Orientation.Horizontal)
    timeline, state, diff = TimelineDock(hub), StateDock(hub), DiffView(hub)
    for w in (timeline, state, diff):
        split.addWidget(w)
    split.resize(1600, 900)
    split.show()
    _app().processEvents()
    return split, timeline, state, diff


def scroll_frames(timeline: Any) -> list[float]:
    app = _app()
    bar = timeline.view.verticalScrollBar()
    frames = []
    bar.setValue(0)
    app.processEvents()
    while True:
        t0 = time.perf_counter()
        bar.setValue(bar.value() + bar.pageStep())
        timeline.view.viewport().repaint()
        app.processEvents()
        frames.append((time.perf_counter() - t0) * 1000)
        if bar.value() >= bar.maximum():
            return frames


def select_times(hub: Any, state: Any, ids: list[str]) -> tuple[list[float], list[float]]:
    """Per selection: the State dock's render (+ paint) and the whole window's update."""
    app = _app()
    dock_ms, window_ms = [], []
    for cid in ids:
        t0 = time.perf_counter()
        hub.select_checkpoint(cid)
        t1 = time.perf_counter()
        p0 = time.perf_counter()
        state.tree.viewport().repaint()
        paint = (time.perf_counter() - p0) * 1000
        app.processEvents()
        dock_ms.append(state.render_ms + paint)
        window_ms.append((t1 - t0) * 1000 + paint)
    return dock_ms, window_ms


def _sample(ids: list[str]) -> list[str]:
    rng = random.Random(9)
    return [ids[0], ids[-1], *rng.sample(ids, min(SELECTIONS, len(ids)))]


def measure_live(path: Path) -> dict[str, Any]:
    """The studio on the live graph (the compiled loop on a SqliteSaver of the file)."""
    from engine.checkpoint import SqliteSaver
    from studio.app.gc_policy import GcPolicy
    from studio.models.hub import Hub

    _app()
    saver = SqliteSaver(path)
    graph = _graph(saver)
    hub = Hub()
    GcPolicy(hub)  # what the app installs for its hub
    hub.set_thread(THREAD)
    _split, timeline, state, _diff = _window(hub)
    timeline.warmup_enabled = False
    hub.set_graph(graph, graph.get_graph(), "long_loop")  # the State dock reads the tip (cold)
    _app().processEvents()
    t0 = time.perf_counter()
    timeline.reload()
    timeline.view.viewport().repaint()
    _app().processEvents()
    load_ms = (time.perf_counter() - t0) * 1000
    frames = scroll_frames(timeline)
    ids = [n.checkpoint_id for n in timeline.timeline.ordered()]
    cold, _ = select_times(hub, state, random.Random(3).sample(ids[len(ids) // 2 :], 10))
    warm = _warm(timeline)
    dock_ms, window_ms = select_times(hub, state, _sample(ids))
    return {
        "load_ms": load_ms,
        "frames": frames,
        "cold": cold,
        "warm_s": warm,
        "dock": dock_ms,
        "window": window_ms,
        "n": len(ids),
    }


def _warm(timeline: Any) -> float:
    """Run the Timeline dock's background warm-up to the end (and the window hearing that it
    ended); seconds it took."""
    t0 = time.perf_counter()
    thread = timeline.warm_up()
    if thread is not None:
        thread.join()
    _app().processEvents()
    return time.perf_counter() - t0


def measure_offline(path: Path) -> dict[str, Any]:
    from studio.app.gc_policy import GcPolicy
    from studio.history.replay import open_session
    from studio.models.hub import Hub

    _app()
    hub = Hub()
    GcPolicy(hub)  # what the app installs for its hub
    _split, timeline, state, _diff = _window(hub)
    timeline.warmup_enabled = False
    opened = open_session(hub, path)
    timeline.reload()
    ids = [n.checkpoint_id for n in timeline.timeline.ordered()]
    warm = _warm(timeline)
    dock_ms, window_ms = select_times(hub, state, _sample(ids))
    opened.close()
    return {"dock": dock_ms, "window": window_ms, "warm_s": warm}


# -- the report --------------------------------------------------------------------------------------


def run(rebuild: bool = False) -> list[Figure]:
    figs: list[Figure] = []
    if rebuild or _stale(PATH):
        built = build_session(PATH)
        figs.append(
            Figure(
                "timeline: build the session file",
                built["total_s"],
                "s",
                note=f"engine run {built['engine_s']:.1f} s",
            )
        )
    probe = subprocess.run(
        [sys.executable, "-m", "tests.bench.bench_timeline", "--open-probe", str(PATH)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    p = json.loads(probe.stdout.strip().splitlines()[-1])
    figs.append(
        Figure(
            f"session open: {p['events']:,} events, {p['checkpoints']:,} checkpoints -> first page + timeline shown",
            p["shown_ms"] / 1000,
            "s",
            "<= 2 s",
            p["shown_ms"] <= 2000,
            f"open {p['open_ms']:.0f} ms, first page {p['first_page']:,} events, {p['branches']} branches",
        )
    )
    figs.append(
        Figure(
            "  memory after opening",
            p["rss_mb"],
            "MB",
            "<= 500 MB",
            p["peak_mb"] <= 500,
            f"peak {p['peak_mb']:.0f} MB, Qt+Python {p['base_mb']:.0f} MB",
        )
    )
    figs.append(
        Figure(
            f"  memory after feeding {p['fed']:,} events in the background (the feed limit)",
            p["fed_rss_mb"],
            "MB",
            "<= 500 MB",
            p["fed_peak_mb"] <= 500,
            f"peak {p['fed_peak_mb']:.0f} MB, fed in {p['fed_s']:.1f} s; later events are paged from the file",
        )
    )
    live = measure_live(PATH)
    figs.append(
        Figure(
            f"timeline: load {live['n']:,} checkpoints from the checkpointer into the dock",
            live["load_ms"],
            "ms",
        )
    )
    frames = live["frames"]
    figs.append(
        Figure(
            f"  scroll the whole list, {len(frames)} pages: slowest frame",
            max(frames),
            "ms",
            "<= 50 ms",
            max(frames) <= 50,
            f"median {_pct(frames, 0.5):.1f} ms",
        )
    )
    cold = live["cold"]
    figs.append(
        Figure(
            "  cold reads (before the background warm-up): State dock render, slowest of 10 deep checkpoints",
            max(cold),
            "ms",
            note=f"p50 {_pct(cold, 0.5):.0f} ms: a cold read decodes the message log up to that checkpoint",
        )
    )
    figs.append(
        Figure(
            "  background warm-up (the Timeline dock reads the branch tips after loading)",
            live["warm_s"],
            "s",
        )
    )
    for label, data in (("live graph", live), ("recorded session", measure_offline(PATH))):
        dock = data["dock"]
        figs.append(
            Figure(
                f"select any of {live['n']:,} checkpoints ({label}): State dock render, slowest of {len(dock)}",
                max(dock),
                "ms",
                "< 100 ms",
                max(dock) < 100,
                f"p50 {_pct(dock, 0.5):.1f} ms, p95 {_pct(dock, 0.95):.1f} ms; whole window (Timeline+State+Diff) "
                f"p50 {_pct(data['window'], 0.5):.1f} / max {max(data['window']):.1f} ms",
            )
        )
    return figs


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--open-probe":
        print(json.dumps(open_probe(Path(sys.argv[2]))))
    else:
        for f in run(rebuild="--rebuild" in sys.argv):
            print(f.line())
