"""``LoopInbox``: calls handed from other threads to one event loop, in order, one wake-up
per batch.

``loop.call_soon_threadsafe`` wakes the loop (a write to its self-pipe, a system call) for
every call.  Sync code on worker threads hands the loop an event at every node, hook, layer,
model and tool call; the loop usually wakes once for several of them.  An inbox queues the
calls and schedules one drain while any are pending: the calls still run on the loop thread,
in the order they were put, each exactly once.

A worker thread that hands the loop something it must wait for anyway (the next part of a
stream) may ask the inbox to hold the calls in between (``hold``): they are queued without
waking the loop, and run, in order, before that next handed-over call, or at the latest
``interval`` seconds after they were queued (a timer on the loop), so a node running for long
still shows at once.

A call may also wait for something another thread will report (a checkpoint's save): it
returns ``WAITING``, and the calls from it on stay queued, in order, until ``kick`` (any
thread) says the outcome may be known; then it is called again.  The thread that put them goes
on meanwhile: only the loop's side waits.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["WAITING", "LoopInbox"]

WAITING = object()
"""What a queued call returns while it cannot run yet: it and the calls after it stay queued
until ``LoopInbox.kick``."""


class LoopInbox:
    """Run ``fn(*args)`` on ``loop`` for every ``put``, in the order of the ``put`` calls."""

    __slots__ = (
        "_held",
        "_items",
        "_kicks",
        "_lock",
        "_loop",
        "_scheduled",
        "_timer",
        "wakeups",
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._items: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()
        self._scheduled = False
        self._held: float | None = None
        """While holding: the longest a held call waits (seconds)."""
        self._timer: asyncio.TimerHandle | None = None
        self.wakeups = 0
        """How many times the loop was woken (for tests and benchmarks)."""
        self._kicks = 0
        """How many times ``kick`` was called (a drain stopped at a ``WAITING`` call sees
        whether one came while it looked)."""

    def hold(self, interval: float) -> None:
        """From now on (until ``release``), ``put`` queues without waking the loop: what is
        held runs before the next ``put_now``, or at the next tick of a timer of the loop
        (every ``interval`` seconds).  Call on the loop thread."""
        self.release()
        self._held = interval
        self._timer = self._loop.call_later(interval, self._tick)

    def release(self) -> None:
        """Stop holding; what is held runs soon.  Call on the loop thread."""
        self._held = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._tick()

    def _tick(self) -> None:
        with self._lock:
            due = bool(self._items) and not self._scheduled
            if due:
                self._scheduled = True
        if self._held is not None:
            self._timer = self._loop.call_later(self._held, self._tick)
        if due:
            self._drain()

    def put(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` (any thread); while holding, without waking the loop.  Raises
        ``RuntimeError`` when the loop is closed, as ``call_soon_threadsafe`` does."""
        # ``_put`` inline: every event a worker thread makes comes through here
        wake = self._held is None
        with self._lock:
            self._items.append((fn, args))
            if self._scheduled or not wake:
                return
            self._scheduled = True
            self.wakeups += 1
        self._wake()

    def put_now(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` and wake the loop, held or not (what was held runs first)."""
        self._put(fn, args, True)

    def _put(self, fn: Callable[..., Any], args: tuple[Any, ...], wake: bool) -> None:
        with self._lock:
            self._items.append((fn, args))
            if self._scheduled or not wake:
                return
            self._scheduled = True
            self.wakeups += 1
        self._wake()

    def _wake(self) -> None:
        """Schedule the drain the caller just marked scheduled (forgetting the queued calls
        when the loop is closed: nothing will ever run them)."""
        try:
            self._loop.call_soon_threadsafe(self._drain)
        except BaseException:
            with self._lock:
                self._scheduled = False
                self._items.clear()  # nothing will ever run them
            raise

    def kick(self) -> None:
        """Something a ``WAITING`` call waits for may have happened (any thread): drain again
        soon, if anything is queued and no drain is due."""
        with self._lock:
            self._kicks += 1
            if not self._items or self._scheduled:
                return
            self._scheduled = True
            self.wakeups += 1
        try:
            self._loop.call_soon_threadsafe(self._drain)
        except RuntimeError:  # the loop is closed: nothing will ever run them
            with self._lock:
                self._scheduled = False
                self._items.clear()

    def _drain(self) -> None:
        """On the loop: run what is queued now; what is put meanwhile runs in a later
        callback (other callbacks of the loop get their turn in between).  A call returning
        ``WAITING`` stops the drain there until ``kick``."""
        with self._lock:
            batch = list(self._items)
            self._items.clear()
            kicks = self._kicks
        stopped = False
        try:
            for i, (fn, args) in enumerate(batch):
                try:
                    if fn(*args) is WAITING:
                        stopped = True
                        with self._lock:
                            self._items.extendleft(reversed(batch[i:]))
                            if self._kicks == kicks:  # nothing reported since it looked
                                self._scheduled = False
                                return
                        self._loop.call_soon(self._drain)  # reported meanwhile: look again
                        return
                except Exception as exc:  # as a failing loop callback: reported, the rest run
                    self._loop.call_exception_handler(
                        {"message": f"Exception in callback {fn!r}", "exception": exc}
                    )
                except BaseException:
                    with self._lock:  # the rest still run, first, in order
                        self._items.extendleft(reversed(batch[i + 1 :]))
                    raise
        finally:
            if not stopped:
                with self._lock:
                    if self._items:
                        self._loop.call_soon(self._drain)
                    else:
                        self._scheduled = False
