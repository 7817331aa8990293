"""One shared shape for benchmark results: every figure with its target, printed as one report."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass
class Figure:
    """One measured number. ``target`` is a human-readable bound; ``ok`` says if it is met."""

    name: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None
    note: str = ""

    def line(self) -> str:
        mark = {True: "PASS", False: "MISS", None: "    "}[self.ok]
        value = (
            f"{self.value:,.3f}".rstrip("0").rstrip(".")
            if abs(self.value) < 1000
            else f"{self.value:,.0f}"
        )
        tgt = f"  target {self.target}" if self.target else ""
        note = f"  ({self.note})" if self.note else ""
        return f"  [{mark}] {self.name}: {value} {self.unit}{tgt}{note}"


Bench = Callable[[], list[Figure]]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        mem = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, {platform.system()}"


def peer_available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def best_of(fn: Callable[[], float], repeat: int = 5) -> float:
    """The minimum of ``repeat`` timings: the least noisy estimate on a shared machine."""
    return min(fn() for _ in range(repeat))


@dataclass(frozen=True)
class Timing:
    """One measured stretch: wall-clock seconds, and CPU seconds of the whole process (every
    thread).  On a shared machine the wall clock also counts the time other processes had the
    cores; the CPU time is what the work itself took."""

    wall: float
    cpu: float

    def per(self, n: float) -> Timing:
        return Timing(self.wall / n, self.cpu / n)


class Clock:
    """``with Clock() as c: ...`` then ``c.timing``."""

    def __enter__(self) -> Clock:
        self._cpu = time.process_time()
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timing = Timing(time.perf_counter() - self._wall, time.process_time() - self._cpu)


def alternate(
    variants: Mapping[str, Callable[[], Timing]], rounds: int, warmup: int = 1
) -> dict[str, list[Timing]]:
    """Each variant's timings, taken in turn (A B C A B C ...) for ``rounds`` rounds after
    ``warmup`` uncounted ones: a drift of the machine's speed hits every variant alike."""
    times: dict[str, list[Timing]] = {name: [] for name in variants}
    for r in range(warmup + rounds):
        for name, fn in variants.items():
            t = fn()
            if r >= warmup:
                times[name].append(t)
    return times


def median(times: list[Timing], clock: str = "wall") -> float:
    return statistics.median(getattr(t, clock) for t in times)


def median_ratio(times: Mapping[str, list[Timing]], a: str, b: str, clock: str = "wall") -> float:
    """The median over rounds of ``a``'s time over ``b``'s time in the same round."""
    return statistics.median(
        getattr(x, clock) / getattr(y, clock) for x, y in zip(times[a], times[b], strict=True)
    )


def ratio_goal(
    name: str, times: Mapping[str, list[Timing]], a: str, b: str, bound: float, note: str = ""
) -> Figure:
    """``a`` over ``b`` (wall clock, judged against ``bound``), with the CPU-time ratio beside."""
    cpu = median_ratio(times, a, b, "cpu")
    extra = f"CPU time {cpu:.2f}x"
    return goal(name, median_ratio(times, a, b), bound, "x", f"{note}; {extra}" if note else extra)


def goal(name: str, value: float, bound: float, unit: str = "x", note: str = "") -> Figure:
    """A figure with an upper bound as its goal (PASS when ``value <= bound``)."""
    return Figure(name, value, unit, f"<= {bound:g}", value <= bound, note)
