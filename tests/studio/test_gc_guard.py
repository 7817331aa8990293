"""The GC guard freezes long-lived objects in bulk and lets a reset release them."""

from __future__ import annotations

import gc

from studio.gc_guard import GcGuard


def test_freezes_every_n_events_and_releases_on_reset() -> None:
    gc.unfreeze()
    guard = GcGuard(every=10)
    try:
        guard.ingested(9)
        assert guard.freezes == 0 and gc.get_freeze_count() == 0
        kept = [[i] for i in range(1000)]  # long-lived containers
        guard.ingested(1)
        assert guard.freezes == 1 and gc.get_freeze_count() >= len(kept)
        guard.start()  # the baseline freeze happens once, and already did
        assert guard.freezes == 1
        guard.released()
        assert gc.get_freeze_count() == 0
        guard.ingested(9)
        assert guard.freezes == 1  # the count restarted at the reset
    finally:
        gc.unfreeze()
