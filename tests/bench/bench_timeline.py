"""Time travel at scale: a 10,000-checkpoint thread in a 1,000,000-event session file.

The session is built once (cached under the temp folder) by ``tests.bench.timeline_session``:
a ``StateGraph`` agent loop recorded over 10,000 supersteps, nine forks, padded with
streamed-token events to one million events.

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
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.bench.report import Figure
from tests.bench.timeline_session import PATH, THREAD, _graph, _stale, build_session

SELECTIONS = 200


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
            f"peak {p['fed_peak_mb']:.0f} MB, fed in {p['fed_s']:.1f} s; the newest whole runs: older runs stay in the file",
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
