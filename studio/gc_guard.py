"""Keep Python's full garbage collections short while the studio holds a long run in memory.

A 100,000-event run means millions of long-lived objects (events, their payloads, log rows).
CPython's full collection scans every one of them, and it runs each time the old generation
grew by a quarter: pauses of hundreds of milliseconds in the middle of a live run, on the UI
thread.  Those objects stay alive until the next reset, so scanning them again and again finds
nothing.

``GcGuard.ingested(n)`` counts events taken in; every ``every`` events it collects the young
generations (cheap) and ``gc.freeze()``\\ s everything that survived, so later full collections
only scan what arrived since.  ``released()`` (on a reset, when the old run becomes garbage)
unfreezes, so the next full collection reclaims it.  ``start()`` freezes the baseline (imported
modules, Qt wrappers) once.  ``GUARD`` is the studio's one instance.
"""

from __future__ import annotations

import gc

__all__ = ["GUARD", "GcGuard"]


class GcGuard:
    def __init__(self, every: int = 5_000) -> None:
        self.every = every
        self.freezes = 0
        self._since = 0

    def start(self) -> None:
        """Freeze what exists now (the modules, Qt wrappers: the app's baseline), once."""
        if not self.freezes:
            self._freeze()

    def ingested(self, n: int) -> None:
        """``n`` more long-lived events are held; freeze them in bulk now and then."""
        self._since += n
        if self._since >= self.every:
            self._freeze()

    def _freeze(self) -> None:
        self._since = 0
        gc.collect(1)
        gc.freeze()
        self.freezes += 1

    def released(self) -> None:
        """What was frozen may be garbage now (a reset): let collections see it again."""
        self._since = 0
        if gc.get_freeze_count():
            gc.unfreeze()


GUARD = GcGuard()
