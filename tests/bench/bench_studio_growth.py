"""The studio's turn over a long session: turn 600 against turn 20 of the same conversation.

Two real windows (as ``bench_studio_turn``: every dock, the app's theme, the Debugger, the
session recorder) in one process, on one loop: the old one is first taken to turn
``LATE.start`` of a conversation on the seed-000 middleware agent, the young one to turn
``EARLY.start``; then they take turns, one turn each, so both are timed in the same minutes.
The figure is the median over those pairs of the old window's turn over the young one's (the
engine's own turn growth has its goal in ``bench_turns``: <= 1.3x; the studio is held to the
same).  The note splits what grows with the session: the Events dock's follow (its tree laid
out again, then scrolled) and the Timeline's.

Run: ``.venv/bin/python -m tests.bench.bench_studio_growth``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.bench.bench_studio_turn import ScreenClock, open_studio
from tests.bench.report import Clock, Figure, Timing, goal, median, median_ratio

EARLY = range(20, 40)
LATE = range(600, 620)
GOAL = 1.3


class PartClock:
    """Time spent in a few methods, per turn (wrapped for the run, restored after)."""

    def __init__(self, parts: dict[str, tuple[type, str]]) -> None:
        self.parts = parts
        self.spent: dict[str, float] = dict.fromkeys(parts, 0.0)
        self._saved: list[tuple[type, str, Callable[..., Any]]] = []

    def __enter__(self) -> PartClock:
        for label, (cls, name) in self.parts.items():
            original = getattr(cls, name)
            self._saved.append((cls, name, original))
            setattr(cls, name, self._timed(label, original))
        return self

    def __exit__(self, *exc: object) -> None:
        for cls, name, original in self._saved:
            setattr(cls, name, original)

    def _timed(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        spent = self.spent

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start

        return timed

    def take(self) -> dict[str, float]:
        out = dict(self.spent)
        for k in self.spent:
            self.spent[k] = 0.0
        return out


async def _turn(window: Any, screen: ScreenClock) -> Timing:
    ctl = window.controller
    n = len(ctl.hub.events)
    with Clock() as clock:
        await ctl.send_message(f"Please create file number {n}.")
        while not screen.settled():
            await asyncio.sleep(0.001)
    if ctl.hub.status != "done":
        raise RuntimeError(f"a turn ended {ctl.hub.status}: {ctl.last_error}")
    return clock.timing


async def _pairs(
    old: tuple[Any, ScreenClock], young: tuple[Any, ScreenClock], parts: PartClock
) -> dict[str, Any]:
    for _ in range(LATE.start):
        await _turn(*old)
    for _ in range(EARLY.start):
        await _turn(*young)
    times: dict[str, list[Timing]] = {"late": [], "early": []}
    spent = {"late": dict.fromkeys(parts.spent, 0.0), "early": dict.fromkeys(parts.spent, 0.0)}
    for _ in range(len(LATE)):
        for name, window in (("late", old), ("early", young)):
            parts.take()
            times[name].append(await _turn(*window))
            for k, v in parts.take().items():
                spent[name][k] += v / len(LATE)
    return {"times": times, "split": spent}


def measure() -> dict[str, Any]:
    from studio.docks.events.follow import FollowPath
    from studio.docks.timeline.view import TimelineDock

    parts = PartClock(
        {"Events follow": (FollowPath, "follow"), "Timeline follow": (TimelineDock, "_follow")}
    )
    with (
        parts,
        open_studio() as (loop, old, old_screen),
        open_studio(loop) as (_, young, young_screen),
    ):
        return loop.run_until_complete(_pairs((old, old_screen), (young, young_screen), parts))


def run() -> list[Figure]:
    from studio.qtmodels.event_fold import RootFold
    from studio.qtmodels.timeline_fold import TimelineFold

    m = measure()
    times, split = m["times"], m["split"]
    parts = "; ".join(
        f"{k} {split['early'][k] * 1e3:.2f} -> {split['late'][k] * 1e3:.2f} ms"
        for k in split["early"]
    )
    ratio = median_ratio(times, "late", "early")
    cpu = median_ratio(times, "late", "early", "cpu")
    return [
        Figure(
            f"studio turns {LATE.start}-{LATE.stop - 1} of a conversation",
            median(times["late"]) * 1e3,
            "ms/turn",
            note=f"turns {EARLY.start}-{EARLY.stop - 1} of another, in alternation: "
            f"{median(times['early']) * 1e3:.1f} ms",
        ),
        goal(
            f"  vs turns {EARLY.start}-{EARLY.stop - 1}",
            ratio,
            GOAL,
            "x",
            f"{parts} a turn; top levels folded past {RootFold.KEEP + RootFold.STEP} runs "
            f"(Events), {TimelineFold.KEEP + TimelineFold.STEP} checkpoints (Timeline); "
            f"CPU time {cpu:.2f}x",
        ),
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
