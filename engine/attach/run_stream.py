"""How an attached run reads LangGraph's stream (``RunStream``, a part of ``AttachedRun``).

A sync run streams on a thread of its own and translates each part there, as it comes
(``_translated_here``); an ``astream`` run translates on the loop.  Where LangGraph allows it,
nested graphs' parts and stream writes are tapped where they are made (``engine.attach.tapped``)
and translated in their place, before what the root's stream hands over next (``_drain``).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from engine.attach import quiet_fakes
from engine.attach.callbacks import AttachCallbacks
from engine.attach.confirm import SaveWatch, watched
from engine.attach.run_output import aat_root, at_root, paced
from engine.attach.tapped import can_tap, tapped_astream, tapped_stream
from engine.attach.translate import StreamTranslator
from engine.core.aio import aiter_thread
from engine.observe.bus import RunEmitter

if TYPE_CHECKING:
    from engine.attach.echo import Echo
    from engine.attach.graph import AttachedGraph

__all__ = ["RunStream"]


class RunStream:
    """``AttachedRun``'s reading of LangGraph's stream (see the module docstring)."""

    graph: AttachedGraph
    options: dict[str, Any]
    context: Any
    config: dict[str, Any]
    echo: Echo | None
    em: RunEmitter
    cb: AttachCallbacks
    tr: StreamTranslator
    sync: bool
    saver: Any
    watch: SaveWatch | None
    modes: list[str]
    _callers_only: set[str]
    _translating: threading.RLock
    _nested: deque[tuple[tuple[str, ...], str, Any]]
    _drain_lock: asyncio.Lock
    _drainer: asyncio.Task[Any] | None

    async def _part(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        """Translate one part of the stream (nothing more once the run is aborted)."""
        cb = self.cb
        if cb.aborted is not None:
            return
        if self.echo is not None:
            self.echo(ns, mode, data)
            if mode in self._callers_only:
                return
        try:
            await self.tr.part(ns, mode, data)
        except Exception as exc:
            cb.abort(exc, f"the {mode!r} stream")

    def _translated_here(self, parts: Iterator[Any]) -> Iterator[Any]:
        """LangGraph's sync stream translated on its own thread, part by part as it comes:
        what runs next there finds its superstep's checkpoint translated (the superstep
        closed, the next tasks planned) without a round trip to the loop for any part, and
        the events go out as the callbacks' do (``RunEmitter.emit_sync``): held in the loop's
        inbox, in order, until the loop's next tick (``_HELD_AT_MOST``) or the stream's end.
        Nothing here waits for the loop: what a later event refers to by its ``seq`` (a model
        request to the one it continues) is numbered when that event is delivered
        (``request_log.SeqOf``)."""
        echo = self.echo
        try:
            for ns, mode, data in paced(parts, echo):
                self._tapped_part(tuple(ns), mode, data)
        finally:  # the last checkpoint's end waits for its save here, not on the loop
            self.cb.settle_deferred()
            if self.watch is not None:  # LangGraph's saves are over: none is pending now
                self.watch.finish()
        yield from ()

    def _tapped_part(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        """``_part_here`` for a part from the stream's thread or tapped on the thread of the
        nested graph or node that made it (``tapped``): one at a time, the translator's
        state being shared.  A checkpoint's end waiting for its save is settled before the
        lock is taken, so no thread waits for a save while holding it."""
        if self.cb.deferred is not None:
            self.cb.settle_deferred()
        with self._translating:
            self._part_here(ns, mode, data)

    def _part_here(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        """``_part`` run to its end on this (the stream's) thread: off the loop, the translator
        never waits on the loop (it waits for the saver here: ``SaveWatch.wait``), so the
        coroutine finishes at its first step."""
        coro = self._part(ns, mode, data)
        try:
            coro.send(None)
        except StopIteration:
            return
        coro.close()
        bug = RuntimeError(
            "the translation of the stream waited on the loop in the stream's thread"
        )
        self.cb.abort(bug, f"the {mode!r} stream")

    def _stream(self, real_input: Any) -> AsyncIterator[Any]:
        """LangGraph's stream of the run: ``astream``, or ``stream`` on a worker thread."""
        graph = self.graph
        run = graph.instrumented.graph
        if graph.stream_tokens:
            quiet_fakes.install()  # LangChain's fake models called anywhere in the run
        if self.saver is not None and self.watch is not None:
            run = run.copy(update={"checkpointer": watched(self.saver, self.watch)})
        modes = (
            [*self.modes, *(m for m in self.echo.modes if m in self._callers_only)]
            if self.echo
            else list(self.modes)
        )
        kw: dict[str, Any] = {**self.options, "stream_mode": modes, "subgraphs": True}
        if self.context is not None:
            kw["context"] = self.context
        cfg = self.config
        # The caller's own stream (``echo``) as LangGraph gives it:
        # - ``custom`` parts come in order with the others only through LangGraph's own queue
        #   (tapped, a write could overtake an update made before it): not tapped;
        # - ``messages`` (and ``custom``) of nested graphs come only from a stream asked for
        #   ``subgraphs`` as the caller asked: LangGraph's stream takes the caller's
        #   ``subgraphs`` (without it, a nested graph's supersteps are seen only through the
        #   callbacks); tapping streams nested graphs only, so ``messages`` with ``subgraphs``
        #   is not tapped either.
        asked = set(self.echo.modes) if self.echo is not None else set()
        nested = self.echo is not None and self.echo.subgraphs
        tap = can_tap(cfg) and "custom" not in asked and not (nested and "messages" in asked)
        if asked & {"messages", "custom"} and not nested:
            kw["subgraphs"] = False
        if self.sync and tap:
            # nested parts and stream writes tapped where they are made: LangGraph runs a
            # lone task on the stream's thread, as the app's own ``invoke`` (``tapped``)
            return aiter_thread(
                lambda: self._translated_here(
                    tapped_stream(run, real_input, cfg, kw, self._tapped_part)
                ),
                inbox=self.em.inbox,
            )
        if self.sync:
            return aiter_thread(
                lambda: self._translated_here(
                    run.stream(real_input, cfg, **kw)
                    if kw["subgraphs"]
                    else at_root(run.stream(real_input, cfg, **kw))
                ),
                inbox=self.em.inbox,
            )
        if tap:
            self.cb.before_emit = self._drain
            return self._drained(tapped_astream(run, real_input, cfg, kw, self._tap_nested))
        if not kw["subgraphs"]:
            return aat_root(run.astream(real_input, cfg, **kw))
        return run.astream(real_input, cfg, **kw)  # type: ignore[no-any-return]

    async def _drained(
        self, parts: AsyncIterator[tuple[tuple[str, ...], str, Any]]
    ) -> AsyncIterator[tuple[tuple[str, ...], str, Any]]:
        """The root's parts of a tapped ``astream``, each after the nested parts made before
        it (``_drain``), and the last nested ones at the end."""
        async for part in parts:
            await self._drain()
            yield part
        await self._drain()

    def _tap_nested(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        """A nested part of an ``astream`` run: translated by the loop before what follows, or
        right here when a sync node runs the nested graph on a worker thread (whose callbacks
        report from there too)."""
        if threading.get_ident() != self.em.loop_thread:
            self._tapped_part(ns, mode, data)
        else:
            self._nested.append((ns, mode, data))

    async def _drain(self) -> None:
        """Translate on the loop the nested parts tapped so far, in the order they were made:
        before the root's next part and before any event of the callbacks, so a nested
        graph's supersteps and checkpoints come in their place (``subgraphs=True`` hands them
        over only when the root's stream gets to them, after the nested graph went on)."""
        if not self._nested and not self._drain_lock.locked():
            return  # nothing made since, nobody translating: every event passes here
        me = asyncio.current_task()
        if self._drainer is me:  # the translation's own events
            return
        async with self._drain_lock:  # another task's drain first: what it holds comes first
            self._drainer = me
            try:
                while self._nested:
                    ns, mode, data = self._nested.popleft()
                    await self._part(ns, mode, data)
            finally:
                self._drainer = None
