"""Keep Python's garbage collector from stalling the window during a busy run.

A run keeps every event (and the views' rows) alive, so the heap grows by hundreds of thousands
of objects; each full collection then scans them all (100-200 ms at 50,000 events: a visible
freeze).  ``GcPolicy`` freezes what exists after each batch of events (``gc.freeze``: O(1);
frozen objects are skipped by later collections but still freed by reference counting), and,
once the run has ended, unfreezes and collects once, so cyclic garbage of the run is not kept.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from studio.hub import Hub

__all__ = ["GcPolicy"]

ENDED = frozenset({"done", "error", "cancelled", "idle", "interrupted"})


class GcPolicy:
    def __init__(self, hub: Hub, *, settle_s: float = 0.5) -> None:
        self.hub = hub
        self.settle_s = settle_s
        self.collections = 0
        """How many times the policy collected after a run (for tests and diagnostics)."""
        self._pending: asyncio.TimerHandle | None = None
        gc.freeze()  # start-up objects (modules, classes, the window) are never garbage
        hub.subscribe("events", self._on_events)
        hub.subscribe("status", self._on_status)

    def _on_events(self, _batch: Any) -> None:
        gc.freeze()

    def _on_status(self, status: str) -> None:
        if status not in ENDED:
            return
        if self._pending is not None:
            self._pending.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.collect()
            return
        self._pending = loop.call_later(self.settle_s, self.collect)

    def collect(self) -> None:
        """Collect the cyclic garbage of the run that ended, then freeze the survivors."""
        self._pending = None
        if self.hub.status not in ENDED:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.collections += 1
