"""Hand engine events to the hub in batches, at most one hub update every ``interval`` seconds:
a frame clock for the views.

The engine's bus calls ``EventBatcher.add`` inline for every event, on the loop thread (the Qt
thread under qasync).  ``add`` only appends and, if no delivery is scheduled, schedules one on
the running asyncio loop (a QTimer under qasync), ``interval`` after the later of now and the
last delivery.  So an event waits at most one interval (plus whatever the loop is busy with),
and everything a burst produces meanwhile (the rest of a superstep, a step's checkpoint, the
tokens of a reply) reaches the views with it, in one update and one repaint; a flood becomes
one update per interval, however fast it comes.

Delivering the first event of a quiet spell at the next loop iteration instead bought nothing
a user can see (an interval is 30 ms) and cost a repaint of every view per burst: a short run
(a turn of a scripted agent) was two updates and two paint passes where one does
(``tests/bench/bench_studio_turn``: the UI thread's paint time per turn about halved).

``flush()`` delivers at once (the run paused, was interrupted or ended: the views must show
everything up to that point).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.events import EventBase

__all__ = ["DEFAULT_INTERVAL", "EventBatcher"]

DEFAULT_INTERVAL = 0.03
"""About 33 updates a second at most; an event reaches the views within 30 ms."""


class EventBatcher:
    def __init__(
        self, deliver: Callable[[list[EventBase]], None], interval: float = DEFAULT_INTERVAL
    ) -> None:
        self._deliver = deliver
        self.interval = interval
        self._pending: list[EventBase] = []
        self._handle: asyncio.Handle | None = None
        self._last = float("-inf")
        """Loop time of the last delivery."""
        self.deliveries = 0
        """How many batches were delivered (for tests and diagnostics)."""

    @property
    def pending(self) -> int:
        return len(self._pending)

    def add(self, event: EventBase) -> None:
        self._pending.append(event)
        if self._handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous caller): deliver at once
                self.flush()
                return
            now = loop.time()
            self._handle = loop.call_later(
                max(self._last, now) + self.interval - now, self._on_timer
            )

    def _on_timer(self) -> None:
        self._handle = None
        self.flush()

    def flush(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self.deliveries += 1
        try:
            self._last = asyncio.get_running_loop().time()
        except RuntimeError:
            pass
        self._deliver(batch)

    def discard(self) -> None:
        """Drop what is pending (the views were reset)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._pending = []
