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
import contextvars
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from engine.core.handoff import LoopInbox
from engine.core.ids import new_span_id
from engine.events import EventBase, LoopDetected, ModelToken
from engine.observe.loops import LoopWatch
from engine.observe.request_log import RequestLog, SeqOf
from engine.observe.token_runs import HeldTokens, TokenMerge

if TYPE_CHECKING:
    from engine.observe.gate import Gate

__all__ = [
    "CURRENT_SPAN",
    "EventBus",
    "RunEmitter",
    "Subscription",
    "current_emitter",
    "drain_events",
    "emit_sync",
    "stream_run",
]

EventCallback = Callable[[EventBase], Any]

#: The span the running code is inside (set by the runtime around nodes, wrappers, attempts).
CURRENT_SPAN: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "stepwise_span", default=None
)
_CURRENT_EMITTER: contextvars.ContextVar[RunEmitter | None] = contextvars.ContextVar(
    "stepwise_emitter", default=None
)

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


class RunEmitter:
    """The event source of one run: assigns ``seq``, fills the envelope, applies the gate.

    The runtime keeps ``step`` and ``checkpoint_id`` current; ``ns`` is set for subgraphs
    (``child``).  Events are delivered to every bus in ``buses`` and then passed to the
    debugger's gate, which may pause the run (awaiting a future, never blocking the loop).
    """

    def __init__(
        self,
        run_id: str,
        thread_id: str | None,
        buses: list[EventBus],
        debugger: Gate | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        ns: str = "",
    ) -> None:
        self.run_id = run_id
        self.thread_id = thread_id
        self.buses = [b for b in buses if b is not None]
        self.debugger = debugger
        self.loop = loop or asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()
        self.inbox = LoopInbox(self.loop)
        """What worker threads hand to the loop (events, stream chunks), in order, with one
        wake-up of the loop per batch (shared with the subgraph emitters)."""
        self.ns = ns
        self.step: int | None = None
        self.checkpoint_id: str | None = None
        self._seq = [0]  # shared with children
        self._listened = any(b.has_subscribers for b in self.buses)
        self.gated = debugger is not None or any(b._sinks for b in self.buses)
        merges = {b.token_merge for b in self.buses if b.has_subscribers}
        self._merge: TokenMerge | None = merges.pop() if len(merges) == 1 else None
        self._held: list[HeldTokens | None] = [None]  # shared with children
        self.loops: LoopWatch | None = (
            LoopWatch() if self._listened or debugger is not None else None
        )
        """Finds loops in the run's events (shared with the subgraph emitters)."""
        self.requests = RequestLog()
        """The run's model requests, so each records only what the previous one did not."""

    @property
    def active(self) -> bool:
        """Whether events are built and delivered now: a subscriber listens, or the debugger
        could stop on one (see ``Debugger.watching``)."""
        if self._listened:
            return True
        dbg = self.debugger
        return dbg is not None and dbg.watching

    @active.setter
    def active(self, value: bool) -> None:
        """Listen (or not) whatever the subscribers: callers that deliver elsewhere too."""
        self._listened = value

    @property
    def listened(self) -> bool:
        """Whether a subscriber (not only the debugger) receives the events."""
        return self._listened

    def child(self, ns: str) -> RunEmitter:
        """An emitter for a subgraph: same run, same seq counter, its own namespace."""
        c = RunEmitter.__new__(RunEmitter)
        c.__dict__.update(self.__dict__)
        c.ns = ns
        c.step = None
        c.checkpoint_id = None
        return c

    # -- emitting ------------------------------------------------------------------------

    def _build(self, cls: type[EventBase], fields: dict[str, Any]) -> EventBase:
        fields.setdefault("parent_span_id", CURRENT_SPAN.get())
        fields.setdefault("step", self.step)
        fields.setdefault("checkpoint_id", self.checkpoint_id)
        fields["run_id"] = self.run_id
        fields["thread_id"] = self.thread_id
        fields["ts"] = time.time()
        fields["mono_ns"] = time.monotonic_ns()
        fields["ns"] = self.ns
        return construct(cls, fields)

    async def _deliver(self, ev: EventBase, gate: bool = True) -> None:
        if self._held[0] is not None:
            self.release_tokens()
        self._seq[0] += 1
        fields = vars(ev)
        fields["seq"] = self._seq[0]  # no pydantic __setattr__ on the hot path
        base = fields.get("messages_base")
        if base is not None and type(base) is SeqOf:
            fields["messages_base"] = base.event.seq or None
        for bus in self.buses:
            await bus.deliver(ev)
        if gate and self.debugger is not None:
            await self.debugger.gate(ev, self)
        found = self.loops.see(ev) if self.loops is not None else None
        if found is not None:
            await self._deliver(self._build(LoopDetected, found), gate)

    # -- token events merged at the source (engine.observe.token_runs) ----------------------------

    def token_merge(self) -> TokenMerge | None:
        """How token events may be merged now: every subscriber takes them merged and no
        debugger could stop on one (None: deliver each token event)."""
        merge = self._merge
        if merge is None:
            return None
        dbg = self.debugger
        return None if dbg is not None and dbg.watching else merge

    def hold_token(
        self, fields: dict[str, Any], merge: TokenMerge, text: str, chunks: list[Any]
    ) -> None:
        """Add a token to the held merged event of its call (it still takes its ``seq``)."""
        held = self._held[0]
        if held is not None and (
            held.span_id != fields.get("span_id")
            or held.size + len(text) > merge.max_text
            or time.monotonic() > held.deadline
        ):
            self.release_tokens()
            held = None
        self._seq[0] += 1
        if held is None:
            ev = self._build(ModelToken, {**fields, "text": "", "tool_call_chunks": []})
            vars(ev)["seq"] = self._seq[0]  # no pydantic __setattr__ on the hot path
            held = self._held[0] = HeldTokens(ev, merge.interval)  # type: ignore[arg-type]
        held.texts.append(text)
        held.size += len(text)
        if chunks:
            held.chunks.extend(chunks)

    def release_tokens(self) -> None:
        """Deliver the held merged token event, if any (before any other event)."""
        held = self._held[0]
        if held is None:
            return
        self._held[0] = None
        ev = held.finish()
        for bus in self.buses:
            bus.deliver_sync(ev)

    def _deliver_sync(self, ev: EventBase) -> None:
        if self._held[0] is not None:
            self.release_tokens()
        self._seq[0] += 1
        fields = vars(ev)
        fields["seq"] = self._seq[0]  # no pydantic __setattr__ on the hot path
        base = fields.get("messages_base")
        if base is not None and type(base) is SeqOf:  # a request based on one in flight
            fields["messages_base"] = base.event.seq or None
        for bus in self.buses:
            bus.deliver_sync(ev)
            if bus._sinks:
                for sink in bus._sinks:
                    try:
                        sink.queue.put_nowait(ev)
                    except asyncio.QueueFull:  # cannot wait on the loop thread from sync code
                        self.loop.create_task(sink.put(ev))
        found = self.loops.see(ev) if self.loops is not None else None
        if found is not None:
            self._deliver_sync(self._build(LoopDetected, found))

    async def emit(self, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """Build and deliver an event (async contexts). Returns it, or None when nobody listens."""
        if not self.active:
            return None
        ev = self._build(cls, fields)
        if self.debugger is None:
            for bus in self.buses:
                if bus._sinks:
                    break
            else:  # nothing can pause the run or push back: no coroutines per event
                self._deliver_sync(ev)
                return ev
        await self._deliver(ev)
        return ev

    async def emit_ungated(self, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """Deliver without consulting the debugger (used for the debugger's own events)."""
        if not self.active:
            return None
        ev = self._build(cls, fields)
        await self._deliver(ev, gate=False)
        return ev

    def emit_sync(self, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """Emit from synchronous code.

        In a worker thread: hands the event to the loop, blocking while the debugger holds the
        run (or a subscriber applies back-pressure).  On the loop thread itself (sync code run
        inline): delivers at once, without the gate, because it cannot wait there.
        """
        if not self.active:
            return None
        ev = self._build(cls, fields)
        if threading.get_ident() == self.loop_thread:
            self._deliver_sync(ev)
            return ev
        if self.gated:
            fut = asyncio.run_coroutine_threadsafe(self._deliver(ev), self.loop)
            fut.result()
        else:
            self.inbox.put(self._deliver_sync, ev)
        return ev

    def emit_nowait(self, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """Deliver without the gate and without waiting, from any thread (the events that
        close the spans of a run being aborted: nothing may pause or raise there)."""
        if not self.active:
            return None
        ev = self._build(cls, fields)
        if threading.get_ident() == self.loop_thread:
            self._deliver_sync(ev)
        else:
            self.inbox.put(self._deliver_sync, ev)
        return ev

    # -- context -------------------------------------------------------------------------

    def bind(self) -> contextvars.Token[RunEmitter | None]:
        """Make this the current emitter for code running in this context."""
        return _CURRENT_EMITTER.set(self)

    @staticmethod
    def unbind(token: contextvars.Token[RunEmitter | None]) -> None:
        _CURRENT_EMITTER.reset(token)


_DEFAULTS: dict[type[EventBase], tuple[dict[str, Any], tuple[tuple[str, Any], ...]]] = {}


def construct(cls: type[EventBase], fields: dict[str, Any]) -> EventBase:
    """Build a trusted event without validation: ``model_construct`` with its per-call
    default bookkeeping precomputed (events are built on the hot path)."""
    spec = _DEFAULTS.get(cls)
    if spec is None:
        static: dict[str, Any] = {}
        factories: list[tuple[str, Any]] = []
        for name, f in cls.model_fields.items():
            if f.default_factory is not None:
                factories.append((name, f.default_factory))
            elif not f.is_required():
                static[name] = f.default
        spec = _DEFAULTS[cls] = (static, tuple(factories))
    data = dict(spec[0])
    for name, factory in spec[1]:
        if name not in fields:
            data[name] = factory()
    data.update(fields)
    ev = cls.__new__(cls)
    object.__setattr__(ev, "__dict__", data)
    object.__setattr__(ev, "__pydantic_fields_set__", {*fields, "seq"})  # seq: set on delivery
    object.__setattr__(ev, "__pydantic_extra__", None)
    object.__setattr__(ev, "__pydantic_private__", None)
    return ev


def current_emitter() -> RunEmitter | None:
    """The emitter of the run this code belongs to (None outside a run)."""
    return _CURRENT_EMITTER.get()


async def emit(cls: type[EventBase], **fields: Any) -> EventBase | None:
    """Emit on the current run, if any (middleware and tools use this)."""
    em = _CURRENT_EMITTER.get()
    if em is None:
        return None
    return await em.emit(cls, **fields)


def emit_sync(cls: type[EventBase], **fields: Any) -> EventBase | None:
    """``emit`` from synchronous code."""
    em = _CURRENT_EMITTER.get()
    if em is None:
        return None
    return em.emit_sync(cls, **fields)


class span:
    """Open a span: sets ``CURRENT_SPAN`` for the code inside, so nested events nest.

    The caller emits the start and end events itself (it knows their payloads); this only
    mints the id and manages the context variable.
    """

    __slots__ = ("_token", "id", "parent")

    def __init__(self) -> None:
        self.parent = CURRENT_SPAN.get()
        self.id = new_span_id()
        self._token: contextvars.Token[str | None] | None = None

    def __enter__(self) -> span:
        self._token = CURRENT_SPAN.set(self.id)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            CURRENT_SPAN.reset(self._token)


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
