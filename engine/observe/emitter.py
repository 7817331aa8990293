"""``RunEmitter``: one run's event source (``seq``, envelope, gate, token merging, loops).

Delivery to subscribers is ``engine.observe.bus`` (its docstring states the ordering and
buffering contract); the context a run's code emits in (current span and emitter) is
``engine.observe.run_context``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from engine.core.handoff import LoopInbox
from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase, LoopDetected, ModelToken
from engine.observe.loops import LoopWatch
from engine.observe.request_log import RequestLog, SeqOf
from engine.observe.run_context import _CURRENT_EMITTER, CURRENT_SPAN
from engine.observe.token_runs import HeldTokens, TokenMerge

if TYPE_CHECKING:
    from engine.observe.bus import EventBus
    from engine.observe.gate import Gate

__all__ = ["RunEmitter", "construct"]


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
        """``construct(cls, fields + envelope)``, in one pass: the event's ``__dict__`` has the
        same keys in the same order (the recorded JSON follows it) and the same values."""
        spec = _DEFAULTS.get(cls) or _spec_of(cls)
        data = spec[0].copy()
        if spec[1]:
            for name, factory in spec[1]:
                if name not in fields:
                    data[name] = factory()
        # the envelope's keys are all in the defaults: setting them keeps their places
        data["parent_span_id"] = _current_span()
        data["step"] = self.step
        data["checkpoint_id"] = self.checkpoint_id
        data.update(fields)  # the caller's own envelope values win over those three
        data["run_id"] = self.run_id
        data["thread_id"] = self.thread_id
        data["ts"] = _time()
        data["mono_ns"] = _monotonic_ns()
        data["ns"] = self.ns
        ev = _new(cls)
        _set_dict(ev, data)
        _set_fields_set(ev, _ENVELOPE_SET.union(fields))
        _set_extra(ev, None)
        _set_private(ev, None)
        return ev

    def _stamp(self, ev: EventBase) -> None:
        """Give ``ev`` its ``seq`` (after any held token event), and a request based on one
        in flight that one's ``seq``."""
        if self._held[0] is not None:
            self.release_tokens()
        self._seq[0] += 1
        # the attribute, not ``vars(ev)``: a builtin call costs more than the whole store
        fields: dict[str, Any] = ev.__dict__  # type: ignore[assignment]
        fields["seq"] = self._seq[0]  # no pydantic __setattr__ on the hot path
        base = fields.get("messages_base")
        if base is not None and type(base) is SeqOf:
            fields["messages_base"] = base.event.seq or None

    async def _deliver(self, ev: EventBase, gate: bool = True) -> None:
        self._stamp(ev)
        for bus in self.buses:
            await bus.deliver(ev)
        if gate and self.debugger is not None:
            await self.debugger.gate(ev, self)
        loops = self.loops
        if loops is not None and ev.__dict__["kind"] in _SPAN_KINDS:  # others never make a loop
            found = loops.see(ev)
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
        self._stamp(ev)
        for bus in self.buses:
            bus.deliver_sync(ev)
            if bus._sinks:
                for sink in bus._sinks:
                    try:
                        sink.queue.put_nowait(ev)
                    except asyncio.QueueFull:  # cannot wait on the loop thread from sync code
                        self.loop.create_task(sink.put(ev))
        loops = self.loops
        if loops is not None and ev.__dict__["kind"] in _SPAN_KINDS:  # others never make a loop
            found = loops.see(ev)
            if found is not None:
                self._deliver_sync(self._build(LoopDetected, found))

    async def emit(self, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """Build and deliver an event (async contexts). Returns it, or None when nobody listens."""
        dbg = self.debugger
        if not self._listened and (dbg is None or not dbg.watching):  # not ``self.active``
            return None
        ev = self._build(cls, fields)
        if dbg is None:
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
        return self.emit_fields_sync(cls, fields)

    def emit_fields_sync(self, cls: type[EventBase], fields: dict[str, Any]) -> EventBase | None:
        """``emit_sync`` with the fields as one dict, read and not kept (a caller that has
        them in a dict already: no second ``**`` packing per event)."""
        if not self._listened:  # ``self.active``, without the property call
            dbg = self.debugger
            if dbg is None or not dbg.watching:
                return None
        ev = self._build(cls, fields)
        if _get_ident() == self.loop_thread:
            self._deliver_sync(ev)
            return ev
        if self.gated and self.must_wait():
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            self.inbox.put_now(self._start_gated, ev, done)  # after what the inbox holds
            done.result()
        elif self.debugger is not None:
            self.inbox.put(self._deliver_passed, ev)
        else:
            self.inbox.put(self._deliver_sync, ev)
        return ev

    def must_wait(self) -> bool:
        """Must a worker thread wait for its event to pass the loop?  Only while the debugger
        could stop on it, or a stream consumer pushes back (its queue half full): an idle
        debugger (no breakpoint, step, pause or stop asked for) and a consumer keeping up let
        a sync node or tool run on at once, as a plain subscriber does (in the studio the
        loop may be busy drawing the window for tens of milliseconds)."""
        dbg = self.debugger
        if dbg is not None and dbg.watching:
            return True
        for bus in self.buses:
            for sink in bus._sinks:
                queue = sink.queue
                if queue.qsize() * 2 >= queue.maxsize:
                    return True
        return False

    def _start_gated(self, ev: EventBase, done: concurrent.futures.Future[None]) -> None:
        """On the loop: deliver ``ev`` through the gate, then release the waiting thread."""

        async def deliver() -> None:
            try:
                await self._deliver(ev)
            except asyncio.CancelledError:
                done.cancel()  # the thread sees what ``run_coroutine_threadsafe`` gave it
                raise
            except BaseException as exc:
                done.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            else:
                done.set_result(None)

        self.loop.create_task(deliver())

    def _deliver_passed(self, ev: EventBase) -> None:
        """Deliver an event nothing could stop on; the debugger still notes it."""
        self._deliver_sync(ev)
        if self.debugger is not None:
            self.debugger.passed(ev)

    def build_event(self, cls: type[EventBase], fields: dict[str, Any]) -> EventBase:
        """An event of this run with ``fields`` and the envelope as it is now, not delivered
        (``deliver_passed`` delivers it later, on the loop)."""
        return self._build(cls, fields)

    def deliver_passed(self, ev: EventBase) -> None:
        """On the loop: deliver an event built earlier (``build_event``) that nothing could
        stop on (the debugger notes it)."""
        self._deliver_passed(ev)

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

_ENVELOPE = ("parent_span_id", "step", "checkpoint_id", "run_id", "thread_id", "ts", "mono_ns")
_ENVELOPE += ("ns", "seq")  # seq: set on delivery
"""The fields every event built by an emitter has set (``__pydantic_fields_set__``)."""
_ENVELOPE_SET: set[str] = set(_ENVELOPE)
_SPAN_KINDS = frozenset(SPAN_OPENERS) | frozenset(SPAN_CLOSERS)
"""The kinds ``LoopWatch.see`` looks at (it finds loops in spans that open and close)."""

# pydantic models keep these in slots: set through the slots themselves (what
# ``object.__setattr__`` ends up calling, without looking the name up each time)
_new = object.__new__
_get_ident = threading.get_ident
_current_span = CURRENT_SPAN.get
_time = time.time
_monotonic_ns = time.monotonic_ns
_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__


def _spec_of(cls: type[EventBase]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """(the defaults of ``cls``'s fields, the default factories), computed once per class."""
    static: dict[str, Any] = {}
    factories: list[tuple[str, Any]] = []
    for name, f in cls.model_fields.items():
        if f.default_factory is not None:
            factories.append((name, f.default_factory))
        elif not f.is_required():
            static[name] = f.default
    spec = _DEFAULTS[cls] = (static, tuple(factories))
    return spec


def construct(cls: type[EventBase], fields: dict[str, Any]) -> EventBase:
    """Build a trusted event without validation: ``model_construct`` with its per-call
    default bookkeeping precomputed (events are built on the hot path)."""
    spec = _DEFAULTS.get(cls) or _spec_of(cls)
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
