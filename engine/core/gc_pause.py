"""``paused_gc()``: no automatic garbage collection while a bulk decode makes many objects.

Decoding a long message log makes tens of thousands of objects that all stay alive.  CPython
counts allocations and collects the young generation every few hundred of them, and the old
one as it grows, rescanning those live objects again and again; a decode spends about half
its time there.  Nothing in such a decode makes reference cycles, so pausing the collector
for its duration frees nothing later than it would have been freed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause automatic collection inside the block (restored as it was, even if nested)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
