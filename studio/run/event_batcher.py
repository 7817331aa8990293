"""Hand engine events to the hub in batches: at most one hub update every ``interval`` seconds.

The engine's bus calls ``EventBatcher.add`` inline for every event, on the loop thread (the Qt
thread under qasync).  ``add`` only appends; a timer on the running asyncio loop (a QTimer under
qasync) delivers everything gathered since the last delivery in one ``hub.add_events`` call, so
views do one update per ~30 ms however fast events arrive.  ``flush()`` delivers at once (the
run paused or ended: the views must show everything up to that point).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.events import EventBase

__all__ = ["DEFAULT_INTERVAL", "EventBatcher"]

DEFAULT_INTERVAL = 0.03


class EventBatcher:
    def __init__(
        self, deliver: Callable[[list[EventBase]], None], interval: float = DEFAULT_INTERVAL
    ) -> None:
        self._deliver = deliver
        self.interval = interval
        self._pending: list[EventBase] = []
        self._handle: asyncio.TimerHandle | None = None
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
            self._handle = loop.call_later(self.interval, self._on_timer)

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
        self._deliver(batch)

    def discard(self) -> None:
        """Drop what is pending (the views were reset)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._pending = []
