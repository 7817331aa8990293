"""Event delivery: ``EventBus`` (subscribers) and ``RunEmitter`` (one run's event source).

Ordering: every event of a run gets its ``seq`` on the run's event-loop thread at the moment
it is delivered, so subscribers see strictly increasing ``seq`` even when events originate
in worker threads (sync nodes, sync tools), which hand them over through the emitter's
``LoopInbox`` (in order, one wake-up of the loop per batch) or ``run_coroutine_threadsafe``
(when the debugger or a bounded queue may make the worker wait).

Buffering policy (documented contract):
- Sync callbacks are called inline, in ``seq`` order, on the loop thread.  A callback that
  raises is reported once on stderr and unsubscribed; the run goes on.
- Async subscribers (``EventBus.stream()`` / ``astream_events``) each get a bounded queue
  (default 10,000 events).  When a queue is full the run *waits* for that subscriber
  (back-pressure): events are never dropped and never reordered; a slow subscriber slows the
  run instead.
- Nothing is built when nobody listens: ``RunEmitter.active`` is False and ``emit`` returns
  before constructing the event.  A debugger listens only while something could stop the run
  (``Debugger.watching``: a breakpoint, a step, a pause or a stop asked for): a run with an idle
  debugger and no subscriber costs what a bare run costs, and builds events again as soon as
  the debugger has something to stop on.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from engine.events import EventBase
from engine.observe.emitter import RunEmitter, construct
from engine.observe.run_context import CURRENT_SPAN, current_emitter, emit, emit_sync, span
from engine.observe.token_runs import TokenMerge

__all__ = [
    "CURRENT_SPAN",
    "EventBus",
    "RunEmitter",
    "Subscription",
    "construct",
    "current_emitter",
    "drain_events",
    "emit",
    "emit_sync",
    "span",
    "stream_run",
]
"""``RunEmitter`` (``engine.observe.emitter``) and the run context (``engine.observe.run_context``)
are offered here too, where they always were."""

EventCallback = Callable[[EventBase], Any]

DEFAULT_QUEUE_SIZE = 10_000


class Subscription:
    """Handle returned by ``EventBus.subscribe``; call ``close()`` (or use ``with``) to stop."""

    def __init__(self, bus: EventBus, callback: EventCallback) -> None:
        self._bus = bus
        self.callback = callback

    def close(self) -> None:
        self._bus._remove(self.callback)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _AsyncSink:
    """An async subscriber's bounded queue (back-pressure when full)."""

    def __init__(self, maxsize: int) -> None:
        self.queue: asyncio.Queue[EventBase | None] = asyncio.Queue(maxsize=maxsize)

    async def put(self, event: EventBase) -> None:
        await self.queue.put(event)


class EventBus:
    """Fan-out of events to sync callbacks and async iterators, in ``seq`` order."""

    def __init__(self) -> None:
        self._callbacks: list[EventCallback] = []
        self._sinks: list[_AsyncSink] = []
        self._lock = threading.Lock()

    @property
    def has_subscribers(self) -> bool:
        return bool(self._callbacks or self._sinks)

    @property
    def token_merge(self) -> TokenMerge | None:
        """How every subscriber takes token events merged (``engine.observe.token_runs``), when they
        all say so the same way; None when one of them wants every token event."""
        if self._sinks or not self._callbacks:
            return None
        rules = {getattr(cb, "merge_tokens", None) for cb in self._callbacks}
        rule = rules.pop() if len(rules) == 1 else None
        return rule if isinstance(rule, TokenMerge) else None

    def subscribe(self, callback: EventCallback) -> Subscription:
        """Call ``callback(event)`` for every event (on the run's loop thread)."""
        with self._lock:
            self._callbacks = [*self._callbacks, callback]
        return Subscription(self, callback)

    def _remove(self, callback: EventCallback) -> None:
        with self._lock:
            self._callbacks = [c for c in self._callbacks if c is not callback]

    def add_sink(self, maxsize: int = DEFAULT_QUEUE_SIZE) -> _AsyncSink:
        sink = _AsyncSink(maxsize)
        with self._lock:
            self._sinks = [*self._sinks, sink]
        return sink

    def remove_sink(self, sink: _AsyncSink) -> None:
        with self._lock:
            self._sinks = [s for s in self._sinks if s is not sink]

    async def stream(self, maxsize: int = DEFAULT_QUEUE_SIZE) -> AsyncIterator[EventBase]:
        """Iterate over events as they arrive (until the bus is closed with ``close_streams``)."""
        sink = self.add_sink(maxsize)
        try:
            while True:
                ev = await sink.queue.get()
                if ev is None:
                    return
                yield ev
        finally:
            self.remove_sink(sink)

    def close_streams(self) -> None:
        for sink in self._sinks:
            sink.queue.put_nowait(None)

    def deliver_sync(self, event: EventBase) -> None:
        for cb in self._callbacks:
            try:
                cb(event)
            except Exception as exc:  # a broken listener must not break the run
                print(
                    f"stepwise: event listener {cb!r} failed and was removed: {exc!r}",
                    file=sys.stderr,
                )
                self._remove(cb)

    async def deliver(self, event: EventBase) -> None:
        self.deliver_sync(event)
        for sink in self._sinks:
            q = sink.queue
            if q.full():
                await q.put(event)
            else:
                q.put_nowait(event)


async def drain_events(sink: _AsyncSink, run: asyncio.Future[Any]) -> AsyncIterator[EventBase]:
    """The events ``run`` puts in ``sink`` until its end marker (None), then the run's own
    outcome (its exception re-raised).  A consumer that stops early cancels the run."""
    try:
        while (ev := await sink.queue.get()) is not None:
            yield ev
        await run
    finally:
        if not run.done():
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await run


async def stream_run(start: Callable[[EventBus], Awaitable[Any]]) -> AsyncIterator[EventBase]:
    """Start a run with ``start(bus)`` (a private bus the run publishes to, besides its own
    listeners) and yield its events until it ends (``drain_events``: its exception re-raised,
    a consumer that stops early cancels it)."""
    local = EventBus()
    sink = local.add_sink()
    task = asyncio.ensure_future(start(local))
    task.add_done_callback(lambda _t: local.close_streams())
    try:
        async for ev in drain_events(sink, task):
            yield ev
    finally:
        local.remove_sink(sink)
