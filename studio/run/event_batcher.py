"""Hand engine events to the hub in batches: at once when it has been quiet, at most one hub
update every ``interval`` seconds while events keep coming.

The engine's bus calls ``EventBatcher.add`` inline for every event, on the loop thread (the Qt
thread under qasync).  ``add`` only appends and, if no delivery is scheduled, schedules one on
the running asyncio loop (a QTimer under qasync):

- when the last delivery is at least ``interval`` old (the run was quiet), for the next loop
  iteration: the event is on screen as soon as the loop is free, together with every event
  the same iteration produced (never one repaint per event);
- otherwise for ``interval`` after the last delivery: a flood of events becomes one update
  per interval, however fast it comes.

``flush()`` delivers at once (the run paused or ended: the views must show everything up to
that point).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.events import EventBase

__all__ = ["DEFAULT_INTERVAL", "EventBatcher"]

DEFAULT_INTERVAL = 0.02


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
            wait = self._last + self.interval - loop.time()
            if wait <= 0:
                self._handle = loop.call_soon(self._on_timer)
            else:
                self._handle = loop.call_later(wait, self._on_timer)

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
