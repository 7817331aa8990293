"""Remote mode on a real ``langgraph dev`` server (issue 25, "Speed").

- timeline: a thread of 5,000 checkpoints (the fixture app's ``long`` graph, one node per
  superstep) opened in the studio: from the thread switch to the Timeline dock showing the
  newest page of checkpoints (target: 2 s), and to it listing every checkpoint (the history
  is read in pages of ``HISTORY_PAGE``, one after the other, requested and decoded off the
  UI); the longest the UI loop went without running a 5 ms timer meanwhile (what the window
  would freeze for); and ``RemoteTarget.checkpoints`` alone, for comparison.
- events: the fixture app's ``slow`` graph writes a custom event every 20 ms; for each, the time
  from its arrival (translated, on the target's bus) to the hub handing it to the docks
  (p50 / p95 / max; target: 50 ms "on screen").

Needs ``langgraph-cli[inmem]`` (the test extra).  Run: ``.venv/bin/python -m tests.bench.bench_remote``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
import types
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.bench.report import Figure

CHECKPOINTS = 5_000
TICKS = 200


async def _long_thread(url: str, key: str) -> str:
    """A thread of ``CHECKPOINTS`` checkpoints: input, the start, then one per superstep."""
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=key)
    thread = str((await client.threads.create())["thread_id"])
    ticks = CHECKPOINTS - 2
    await client.runs.wait(
        thread, "long", input={"ticks": ticks}, config={"recursion_limit": CHECKPOINTS + 100}
    )
    return thread


def run() -> list[Figure]:
    from tests.fixtures.langgraph_server import (
        FULL_KEY,
        LangGraphDevServer,
        missing_server_packages,
    )

    why = missing_server_packages()
    if why is not None:
        return [Figure("remote mode", 0, "", note=f"skipped: {why}")]
    os.environ["LANGGRAPH_API_KEY"] = FULL_KEY
    with LangGraphDevServer() as server:
        return _measure(server.url)


def _measure(url: str) -> list[Figure]:
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from engine.remote import connect
    from engine.remote.target import HISTORY_PAGE
    from studio.app.gc_policy import GcPolicy
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.models.hub import Hub
    from studio.run.controller import RunController
    from studio.run.remote_open import open_remote
    from tests.studio.conftest import _run_until_complete

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    # stopped and started again many times, as in the studio tests: their run_until_complete
    # (qasync's own leaves a stream started in one call stalled in the next)
    loop.run_until_complete = types.MethodType(_run_until_complete, loop)  # type: ignore[method-assign]
    asyncio.set_event_loop(loop)
    figs: list[Figure] = []

    t0 = time.perf_counter()
    thread = loop.run_until_complete(_long_thread(url, os.environ["LANGGRAPH_API_KEY"]))
    build = time.perf_counter() - t0

    target = loop.run_until_complete(connect(url, "long"))
    t0 = time.perf_counter()
    records = loop.run_until_complete(target.checkpoints(thread))
    listing = time.perf_counter() - t0
    loop.run_until_complete(target.aclose())
    assert len(records) == CHECKPOINTS, len(records)
    figs.append(
        Figure(
            f"RemoteTarget.checkpoints, {CHECKPOINTS:,} checkpoints",
            listing * 1000,
            "ms",
            note=f"the thread took {build:.1f} s to build on the server",
        )
    )

    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub()
        controller = RunController(hub, session_dir=Path(tmp))
        window = MainWindow(hub, controller, StudioSettings(), save_settings=False)
        GcPolicy(hub)  # what the app installs for its hub
        window.resize(1366, 768)
        window.show()
        target = loop.run_until_complete(connect(url, "long"))
        loop.run_until_complete(open_remote(window, target))
        timeline = window.docks["timeline"].widget()
        gaps: list[float] = []
        last = [time.perf_counter()]

        def tick() -> None:
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        timer = QTimer()
        timer.timeout.connect(tick)
        timer.start(5)
        t0 = time.perf_counter()
        last[0] = t0
        first: list[float] = []

        async def listed() -> None:
            window.controller.switch_thread(thread)  # on the loop, as the thread picker does
            while len(timeline.timeline) < CHECKPOINTS:
                if not first and len(timeline.timeline):
                    first.append(time.perf_counter() - t0)
                await asyncio.sleep(0.002)

        loop.run_until_complete(asyncio.wait_for(listed(), 120))
        opened = time.perf_counter() - t0
        timer.stop()
        shown = first[0] if first else opened
        figs.append(
            Figure(
                f"studio Timeline of a {CHECKPOINTS:,}-checkpoint server thread, newest page shown",
                shown * 1000,
                "ms",
                target="< 2000 ms",
                ok=shown < 2.0,
                note=f"thread switch to the newest {min(HISTORY_PAGE, CHECKPOINTS):,} "
                "checkpoints on screen",
            )
        )
        figs.append(
            Figure(
                "  every checkpoint listed",
                opened * 1000,
                "ms",
                target="< 2000 ms",
                ok=opened < 2.0,
                note=f"{CHECKPOINTS // HISTORY_PAGE} pages one after the other "
                "(RemoteTarget.checkpoints alone above)",
            )
        )
        figs.append(
            Figure(
                "  longest UI stall meanwhile",
                max(gaps, default=0.0) * 1000,
                "ms",
                note="a 5 ms timer's longest gap",
            )
        )
        figs += _latency(loop, window, url)
        window.close()
        loop.run_until_complete(asyncio.sleep(0.05))
    return figs


def _latency(loop: Any, window: Any, url: str) -> list[Figure]:
    from engine.remote import connect
    from studio.run.remote_open import open_remote

    target = loop.run_until_complete(connect(url, "slow"))
    loop.run_until_complete(open_remote(window, target))
    arrived: dict[int, float] = {}
    shown: dict[int, float] = {}

    def on_bus(ev: Any) -> None:
        if ev.kind == "custom" and isinstance(ev.__dict__.get("data"), dict):
            arrived.setdefault(ev.__dict__["data"].get("tick", -1), time.perf_counter())

    def on_hub(batch: list[Any]) -> None:
        now = time.perf_counter()
        for ev in batch:
            if ev.kind == "custom" and isinstance(ev.__dict__.get("data"), dict):
                shown.setdefault(ev.__dict__["data"].get("tick", -1), now)

    sub = target.subscribe(on_bus)
    window.hub.subscribe("events", on_hub)
    ctl = window.controller
    ctl.start({"ticks": TICKS})

    async def done() -> None:
        while ctl.busy or window.hub.status in ("idle", "running"):
            await asyncio.sleep(0.01)

    loop.run_until_complete(asyncio.wait_for(done(), 120))
    sub.close()
    delays = sorted((shown[k] - arrived[k]) * 1000 for k in arrived if k in shown)
    if not delays:
        return [Figure("remote events arrival to the docks", 0, "ms", note="no events seen")]
    p95 = delays[int(len(delays) * 0.95) - 1]
    return [
        Figure(
            "remote event, arrival to the docks, p95",
            p95,
            "ms",
            target="< 50 ms",
            ok=p95 < 50,
            note=f"{len(delays)} events, median {statistics.median(delays):.1f} ms, "
            f"max {delays[-1]:.1f} ms",
        )
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
