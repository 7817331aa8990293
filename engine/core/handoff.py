"""``LoopInbox``: calls handed from other threads to one event loop, in order, one wake-up
per batch.

``loop.call_soon_threadsafe`` wakes the loop (a write to its self-pipe, a system call) for
every call.  Sync code on worker threads hands the loop an event at every node, hook, layer,
model and tool call; the loop usually wakes once for several of them.  An inbox queues the
calls and schedules one drain while any are pending: the calls still run on the loop thread,
in the order they were put, each exactly once.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["LoopInbox"]


class LoopInbox:
    """Run ``fn(*args)`` on ``loop`` for every ``put``, in the order of the ``put`` calls."""

    __slots__ = ("_items", "_lock", "_loop", "_scheduled", "wakeups")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._items: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()
        self._scheduled = False
        self.wakeups = 0
        """How many times the loop was woken (for tests and benchmarks)."""

    def put(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` (any thread).  Raises ``RuntimeError`` when the loop is closed,
        as ``call_soon_threadsafe`` does."""
        with self._lock:
            self._items.append((fn, args))
            if self._scheduled:
                return
            self._scheduled = True
            self.wakeups += 1
        try:
            self._loop.call_soon_threadsafe(self._drain)
        except BaseException:
            with self._lock:
                self._scheduled = False
                self._items.clear()  # nothing will ever run them
            raise

    def _drain(self) -> None:
        """On the loop: run what is queued now; what is put meanwhile runs in a later
        callback (other callbacks of the loop get their turn in between)."""
        with self._lock:
            batch = list(self._items)
            self._items.clear()
        try:
            for i, (fn, args) in enumerate(batch):
                try:
                    fn(*args)
                except Exception as exc:  # as a failing loop callback: reported, the rest run
                    self._loop.call_exception_handler(
                        {"message": f"Exception in callback {fn!r}", "exception": exc}
                    )
                except BaseException:
                    with self._lock:  # the rest still run, first, in order
                        self._items.extendleft(reversed(batch[i + 1 :]))
                    raise
        finally:
            with self._lock:
                if self._items:
                    self._loop.call_soon(self._drain)
                else:
                    self._scheduled = False
