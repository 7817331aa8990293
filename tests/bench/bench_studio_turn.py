"""The studio's full stack per agent turn, vs LangChain bare; and how soon events are on screen.

Inside a real QApplication (offscreen) on a qasync loop, the real ``MainWindow`` (every dock)
runs a conversation on the seed-000 middleware agent of ``bench_turns`` (ModelRetry, ToolRetry,
TodoList, a ``create_file`` tool, a scripted model): each turn is ``send_message`` as the chat
box does, which runs the agent with the studio's ``Debugger`` (no breakpoint), the session
recorder and its ``SqliteSaver``, and the event batcher feeding the hub and the docks.  A turn
ends when the run is done and the Events dock shows every event of it.

The same conversation runs on LangChain's ``create_agent`` + LangGraph without listeners, turn
for turn in alternation with the studio's (when the ``bench`` extra is installed).

- per-turn time: the median over turns 10-29 of the studio's turn over LangChain's turn of the
  same number (issue 26 goal: <= 2x);
- on screen: for every event, the time from its creation (``mono_ns``) to the Events dock
  telling Qt about the row (its model's ``rowsInserted``/``dataChanged`` after a sync); the
  figure is the 95th percentile over all events of the measured turns (goal: <= 50 ms);
- the UI thread: its CPU time per turn over ``UI_TURNS`` more turns, split into painting,
  layout, the docks' model updates and the rest (the run on the loop), see ``studio_ui_clock``.

The window wears the app's theme (Fusion, its palette and stylesheet, as ``stepwise`` applies
it before the window opens): painted without it, a bare Fusion style draws other scroll bars,
buttons and frames, at another cost (``STUDIO_BENCH_THEME=0`` measures that).

Run: ``.venv/bin/python -m tests.bench.bench_studio_turn``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.bench.report import Clock, Figure, Timing, goal, median, peer_available, ratio_goal
from tests.bench.studio_ui_clock import KINDS as UI_KINDS

TURNS = 30
MEASURED = range(10, 30)
UI_TURNS = 10


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


class ScreenClock:
    """When each event reached the Events dock's Qt model (ms after it was made)."""

    def __init__(self, window: Any) -> None:
        self.hub = window.hub
        self.dock = window.docks["events"].widget()
        self.model = self.dock.model
        self.shown = 0
        self.latencies: list[float] = []
        self.recording = False
        self.hub.subscribe("reset", self._reset)
        self.model.rowsInserted.connect(self._synced)
        self.model.dataChanged.connect(self._synced)

    @property
    def seen(self) -> list[Any]:
        """The events handed to the hub, in order (what the dock ingests, in that order): the
        hub's own list, complete before any view hears of a batch (the dock may show a batch
        while the hub is still handing it out)."""
        return self.hub.events

    def _reset(self) -> None:
        self.shown = 0

    def _synced(self, *_: Any) -> None:
        if self.model.unsynced:
            return
        count = self.model.tree.event_count
        if count <= self.shown:
            return
        now = time.monotonic_ns()
        if self.recording:
            self.latencies += [(now - ev.mono_ns) / 1e6 for ev in self.seen[self.shown : count]]
        self.shown = count

    def settled(self) -> bool:
        return self.shown >= len(self.seen) and not self.model.unsynced


def _factory() -> Any:
    from engine.messages import HumanMessage
    from tests.bench.bench_turns import seed_agent

    def make() -> tuple[Any, Any]:
        agent, _model = seed_agent()
        return agent, {"messages": [HumanMessage(content="Please create file number 0.")]}

    return make


async def _studio_turns(window: Any, screen: ScreenClock, lc_turn: Any) -> dict[str, list[Timing]]:
    from studio.run.controller import RunController

    ctl: RunController = window.controller
    studio: list[Timing] = []
    theirs: list[Timing] = []
    for i in range(TURNS):
        screen.recording = i in MEASURED
        with Clock() as clock:
            await ctl.send_message(f"Please create file number {i}.")
            while not screen.settled():
                await asyncio.sleep(0.001)
        studio.append(clock.timing)
        if ctl.hub.status != "done":
            raise RuntimeError(f"turn {i} ended {ctl.hub.status}: {ctl.last_error}")
        if lc_turn is not None:
            theirs.append(lc_turn(i))
    return {"studio": studio, "langchain": theirs}


async def _ui_turns(window: Any, screen: ScreenClock) -> dict[str, float]:
    """``UI_TURNS`` more turns with the UI thread's time split by kind (``UiClock``)."""
    from PySide6.QtWidgets import QApplication

    from tests.bench.studio_ui_clock import UiClock

    clock = UiClock(QApplication.instance(), window.hub)  # type: ignore[arg-type]
    ctl = window.controller
    screen.recording = False
    deliveries = ctl.batcher.deliveries
    for i in range(TURNS, TURNS + UI_TURNS):
        with clock.measuring():
            await ctl.send_message(f"Please create file number {i}.")
            while not screen.settled():
                await asyncio.sleep(0.001)
    return {
        **clock.breakdown(UI_TURNS),
        "updates": (ctl.batcher.deliveries - deliveries) / UI_TURNS,
    }


@contextmanager
def open_studio(
    loop: asyncio.AbstractEventLoop | None = None,
) -> Iterator[tuple[asyncio.AbstractEventLoop, Any, ScreenClock]]:
    """The app's window on a qasync loop (``loop``, else a new one), themed as the app does,
    the seed-000 agent loaded, recording into a temporary session folder: (loop, window,
    Events dock clock)."""
    import qasync
    from PySide6.QtWidgets import QApplication

    from studio.app import qt_refcount
    from studio.app.gc_policy import GcPolicy
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.look.theme import apply_theme
    from studio.models.hub import Hub
    from studio.run.controller import RunController

    app = QApplication.instance() or QApplication(sys.argv)
    qt_refcount.protect()
    settings = StudioSettings()
    if os.environ.get("STUDIO_BENCH_THEME", "1") != "0":
        apply_theme(app, settings.theme)  # as the app does: Fusion, its palette and stylesheet
    if loop is None:
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub()
        controller = RunController(hub, session_dir=Path(tmp) / "sessions")
        window = MainWindow(hub, controller, settings, save_settings=False)
        GcPolicy(hub)  # what the app installs for its hub
        window.show()
        screen = ScreenClock(window)
        controller.load_factory(_factory(), "seed-000 middleware")
        try:
            yield loop, window, screen
        finally:
            controller.close()
            window.close()


def measure() -> dict[str, Any]:
    lc_turn = None
    if peer_available("langchain.agents") and peer_available("langgraph"):
        from tests.bench.bench_turns import theirs

        lc_turn, _ = theirs()
    with open_studio() as (loop, window, screen):
        times = loop.run_until_complete(_studio_turns(window, screen, lc_turn))
        ui = loop.run_until_complete(_ui_turns(window, screen))
    return {**times, "latencies": screen.latencies, "ui": ui}


def run() -> list[Figure]:
    m = measure()
    times = {k: [m[k][i] for i in MEASURED] for k in ("studio", "langchain") if m[k]}
    figs = [
        Figure(
            "studio, full stack, per agent turn (seed-000 middleware)",
            median(times["studio"]) * 1e3,
            "ms/turn",
            note=f"turns {MEASURED.start}-{MEASURED.stop - 1} of a {TURNS}-turn conversation",
        )
    ]
    if "langchain" in times:
        figs.append(
            ratio_goal(
                f"  vs LangChain + LangGraph bare ({median(times['langchain']) * 1e3:.2f} ms/turn)",
                times,
                "studio",
                "langchain",
                2,
                "each turn over the LangChain turn of the same number",
            )
        )
    lat = m["latencies"]
    figs.append(
        goal(
            "  event made -> row in the Events dock, 95th percentile",
            _pct(lat, 0.95),
            50,
            "ms",
            f"median {_pct(lat, 0.5):.0f} ms, max {max(lat):.0f} ms over {len(lat):,} events",
        )
    )
    ui = m["ui"]
    parts = ", ".join(f"{k} {ui[k]:.1f} ms ({ui[k] / ui['total']:.0%})" for k in UI_KINDS)
    figs.append(
        Figure(
            "  UI thread CPU per turn (studio's share and the run's, split)",
            ui["total"],
            "ms/turn",
            note=f"{parts}; {ui['updates']:.1f} hub updates and {ui['passes']:.1f} paint passes "
            f"a turn; {UI_TURNS} more turns, "
            "each Qt event timed",
        )
    )
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
