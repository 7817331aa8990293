"""Keep Python's garbage collector from stalling the window while the studio holds a long run.

A 100,000-event run keeps millions of long-lived objects (events, payloads, log rows) until
the next reset.  CPython's full collection scans every one of them each time the old
generation grew by a quarter: pauses of hundreds of milliseconds on the UI thread, and they
find nothing, because those objects are alive.

``GcPolicy`` watches the hub: every ``every`` events, and when a run ends after at least
``after_run`` events (the window is idle then), it collects the young generations (cheap) and
``gc.freeze()``\\ s what survived, so later full collections only scan what arrived since.
It does the same when the Timeline's background warm-up of a thread's checkpoints ends (the hub's
``"warmed"``): a 10,000-checkpoint thread's nodes and cached states live until the next reset,
and a full collection scanning them stalled a checkpoint selection by 100-600 ms.
On a reset (a new run or session: the old events may now be garbage) and on a switch of thread
(the Timeline drops the old thread's checkpoints) it unfreezes, so the next full collection
reclaims them.  It never forces a full collection itself (that would be the
very pause it exists to avoid).  The app installs one for its hub.

It also raises the young generation's threshold (CPython's 700 new containers, to ``YOUNG``):
each young collection walks every container made since the last one, and a turn of a long
conversation makes a few big ones (copies of the message history, the state's lists) that it
walks again at each of the dozens of collections a turn triggers.  At turn 2,000 of a chat in
the studio that was a tenth of a turn; with the higher threshold the turn took 0.87-0.91x the
time (0.94x at turn 600, the same at turn 20: alternated turns in one window).
"""

from __future__ import annotations

import gc
from typing import Any

from studio.models.hub import Hub

__all__ = ["GcPolicy"]

_RESTING = frozenset({"done", "interrupted", "error", "cancelled"})
"""Statuses of a run that has ended (the window waits for the user)."""
YOUNG = 10_000
"""New containers before a young collection (CPython's default is 700)."""


class GcPolicy:
    def __init__(
        self, hub: Hub, *, every: int = 5_000, after_run: int = 200, young: int = YOUNG
    ) -> None:
        self.every = every
        self.after_run = after_run
        gen0, gen1, gen2 = gc.get_threshold()
        if 0 < gen0 < young:  # never lower it, never turn a disabled collector on
            gc.set_threshold(young, gen1, gen2)
        self.freezes = 0
        """How many bulk freezes happened (for tests and diagnostics)."""
        self._since = 0
        self._freeze()  # the baseline: modules, classes, Qt wrappers, the window
        hub.subscribe("events", self._on_events)
        hub.subscribe("reset", self.release)
        hub.subscribe("status", self._on_status)
        hub.subscribe("warmed", self._freeze)
        hub.subscribe("thread", lambda _thread: self.release())

    def _on_events(self, batch: list[Any]) -> None:
        self._since += len(batch)
        if self._since >= self.every:
            self._freeze()

    def _on_status(self, status: str) -> None:
        if status in _RESTING and self._since >= self.after_run:
            self._freeze()

    def _freeze(self) -> None:
        self._since = 0
        gc.collect(1)
        gc.freeze()
        self.freezes += 1

    def release(self) -> None:
        """What was frozen may be garbage now: let the collector see it again."""
        self._since = 0
        if gc.get_freeze_count():
            gc.unfreeze()
