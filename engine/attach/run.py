"""``AttachedRun``: one run of an attached graph, inside the shared run lifecycle (``run_span``).

It runs the app's graph (the instrumented copy) on LangGraph's stream, with

- our callback handler (nodes, model and tool calls, middleware layers: ``callbacks``),
- the app's saver watched (``confirm``: only checkpoints the saver confirmed are shown), and
- the thread leased in the app's database (``leases``: one run per thread, as the engine),

and translates the stream into our events (``translate``).  Stepwise never closes the stream
early nor cancels LangGraph under the app: whatever of ours fails or stops aborts the run from
inside (``abort``, ``stopping``), so nothing of it is written into the app's thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.attach.abort import cause_of
from engine.attach.base import ACTIVE
from engine.attach.callbacks import AttachCallbacks
from engine.attach.confirm import SaveWatch
from engine.attach.leases import lease_for
from engine.attach.real_input import to_real_input
from engine.attach.resumed import PendingInterrupt, answered, pending_interrupts
from engine.attach.run_output import (
    output_of,
    with_handler,
    with_interrupts,
)
from engine.attach.run_stream import RunStream
from engine.attach.stopping import CooperativeStop
from engine.attach.streaming_off import streaming_handlers
from engine.attach.sync_ready import async_handlers
from engine.attach.translate import StreamTranslator
from engine.core.ids import new_run_id
from engine.errors import CheckpointError
from engine.events import InterruptResumed, MiddlewareAction
from engine.observe.bus import EventBus, RunEmitter
from engine.observe.run_span import run_span
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.attach.echo import Echo
    from engine.attach.graph import AttachedGraph
    from engine.observe.gate import Gate

__all__ = ["STREAM_MODES", "AttachedRun", "stream_modes"]

STREAM_MODES: tuple[str, ...] = ("updates", "checkpoints", "custom")
"""LangGraph streams every attached run asks for: ``updates`` (which nodes wrote which
channels, and the interrupts), ``checkpoints`` (each superstep's end: its values, next tasks,
ids) and ``custom`` (the app's own stream writes)."""


def stream_modes(*, checkpointer: bool, tokens: bool = False) -> list[str]:
    """The stream modes an attached run asks LangGraph for, and no more (each mode costs
    LangGraph a copy of its payload per superstep and a stream chunk to hand over).

    ``values`` only for a graph without a checkpointer: there no checkpoint ends a superstep
    nor carries its values, so each ``values`` chunk does (and the last one is the run's
    output); with a checkpointer the checkpoints carry the same values and the output is read
    back from the saver.  ``messages`` only with ``tokens``: it makes LangGraph stream the
    chat models, so their tokens reach our callbacks as ``model.token`` events."""
    modes: list[str] = list(STREAM_MODES)
    if not checkpointer:
        modes.insert(0, "values")
    if tokens:
        modes.append("messages")
    return modes


def _names(nodes: Any) -> list[str]:
    """Node names given as run options (``"*"`` for all, a name, or a list of them)."""
    if not nodes:
        return []
    return [nodes] if isinstance(nodes, str) else [str(n) for n in nodes]


_DURABILITY = "__pregel_durability"
"""LangGraph's config key for the durability of a run (``async`` unless the app says)."""


_HELD_AT_MOST = 0.02
"""Seconds an event of a sync run's stream thread may wait before the loop delivers it (the
thread does not wake the loop for every event: ``LoopInbox.hold``)."""


class _RunInfo:
    """What the debugger may know of an attached run (``RunView``): the committed state is the
    values of the last checkpoint translated (what the events have said so far; the app's
    saver may not have stored it yet), else read back from the app's checkpointer."""

    def __init__(
        self,
        run_id: str,
        graph: Any,
        config: dict[str, Any],
        latest: Callable[[], Mapping[str, Any] | None] = lambda: None,
    ) -> None:
        self.run_id = run_id
        self.graph = graph
        self.config = config
        self.latest = latest

    def committed_state(self) -> dict[str, Any] | None:
        if getattr(self.graph, "checkpointer", None) in (None, True, False):
            return None
        latest = self.latest()
        if latest is not None:
            return dict(latest)
        conf = {
            k: v for k, v in self.config.get("configurable", {}).items() if k != "checkpoint_id"
        }
        return self.graph.get_state({"configurable": conf}).values  # type: ignore[no-any-return]


class AttachedRun(RunStream):
    """One run of ``graph`` (see the module docstring); ``await run()`` once."""

    def __init__(
        self,
        graph: AttachedGraph,
        input: Any,
        config: dict[str, Any] | None,
        debugger: Gate | None,
        extra: list[EventBus],
        context: Any = None,
        *,
        echo: Echo | None = None,
        options: Mapping[str, Any] | None = None,
        asynchronous: bool = False,
    ) -> None:
        self.graph = graph
        self.input = input
        self.context = context
        self.echo = echo
        """The caller's own stream (``AttachedGraph.stream``): its modes are asked for too,
        and their parts handed to it unchanged."""
        self.options = dict(options or {})
        """LangGraph stream options the caller gave (``interrupt_before`` / ``_after``)."""
        cfg = dict(config or {})
        # the graph's own defaults (``with_config``) under the run's, as LangGraph merges them
        defaults = (getattr(graph.real, "config", None) or {}).get("configurable") or {}
        conf = {**defaults, **(cfg.get("configurable") or {})}
        if debugger is None:
            debugger = conf.pop("debugger", None) or cfg.pop("debugger", None)
        conf.pop("debugger", None)
        override = conf.pop("model_override", None)
        cfg["configurable"] = conf
        self.debugger = debugger
        given = cfg.get("run_id")  # the app's own run id: LangGraph's root run keeps it too
        self.run_id = str(given or new_run_id())
        thread = conf.get("thread_id")
        self.thread_id = None if thread is None else str(thread)
        self.em = RunEmitter(self.run_id, self.thread_id, [graph.bus, *extra], debugger)
        self.em.active = True
        self.cb = AttachCallbacks(self.em, self.run_id)
        self.cb.model_override = override
        self.cb.stream_tokens = graph.stream_tokens
        self.cb.unstreamable = graph.unstreamable
        apps = cfg.get("callbacks")
        self.cb.app_streams_messages = (
            echo is not None and "messages" in echo.modes
        ) or streaming_handlers(apps)
        self.sync = graph.sync and not (
            graph.sync_optional and (asynchronous or self._gated_now() or async_handlers(apps))
        )
        """Run on LangGraph's sync ``stream`` (a worker thread): the graph must, or it may
        (``engine.attach.sync_ready``), the app's code did not call the async API
        (``asynchronous``), no async callback handler of the app's is given, and nothing
        makes each event of the stream's thread wait for the loop as the run starts
        (``_gated_now``)."""
        cfg["callbacks"] = with_handler(apps, self.cb)
        self.config = cfg
        saver = graph.checkpointer
        self.saver = None if saver in (None, True, False) else saver
        self.modes = stream_modes(checkpointer=self.saver is not None, tokens=graph.stream_tokens)
        """The modes the run translates into events (``stream_modes``)."""
        self.output_from_values = self.saver is not None and bool(getattr(input, "goto", None))
        """A command that sends tasks itself (``Command(goto=...)``): tasks outside the
        checkpoint's plan may finish in a superstep that stops at an interrupt, and LangGraph's
        output (its last ``values``) shows their writes, where its state does not: the run
        asks for ``values`` too and returns the last."""
        if self.output_from_values and "values" not in self.modes:
            self.modes.insert(0, "values")
        self._callers_only = set(echo.modes if echo is not None else ()) - set(self.modes)
        """Modes asked for by the caller's stream only: handed over, not translated."""
        self.watch = None if self.saver is None else SaveWatch(self.em.loop)
        self._translating = threading.RLock()
        """Held while a part is translated off the loop (``_tapped_part``)."""
        self._nested: deque[tuple[tuple[str, ...], str, Any]] = deque()
        """An ``astream`` run's nested parts and stream writes, tapped where they were made,
        waiting for the loop to translate them (``_drain``)."""
        self._drain_lock = asyncio.Lock()
        self._drainer: asyncio.Task[Any] | None = None
        """The task translating the nested parts (its own events must not wait for itself)."""
        self.tr = StreamTranslator(
            self.cb,
            graph.mirrors,
            graph._announced,
            checkpoints=self.saver is not None,
            watch=self.watch,
            durability=self._durability(),
            stops=(
                [
                    *(getattr(graph.real, "interrupt_before_nodes", None) or ()),
                    *_names(self.options.get("interrupt_before")),
                ],
                [
                    *(getattr(graph.real, "interrupt_after_nodes", None) or ()),
                    *_names(self.options.get("interrupt_after")),
                ],
            ),
            routes=getattr(graph, "route_book", None),
            queue_saves=self.sync,
        )

    def _gated_now(self) -> bool:
        """Would each event of a sync run's thread wait for the loop: a debugger that could
        stop on it (a breakpoint, a step, a pause or a stop asked for) or an ``astream_events``
        consumer that pushes back (fallen half its queue behind)?  Measured (issue 26), such a run costs more CPU on
        the sync stream than on ``astream``; an idle debugger or plain subscribers do not
        hold the thread, and there the sync stream costs less."""
        return self.em.gated and self.em.must_wait()

    def _durability(self) -> str:
        from langchain_core.runnables.config import merge_configs

        merged = merge_configs(self.graph.real.config, self.config)  # type: ignore[arg-type]
        return str((merged.get("configurable") or {}).get(_DURABILITY) or "async")

    async def run(self) -> Any:
        graph, em, cb, tr = self.graph, self.em, self.cb, self.tr
        real_input = to_real_input(self.input)
        resumed = type(real_input).__name__ == "Command" or self.input is None
        task = asyncio.current_task()
        assert task is not None
        active = ACTIVE.set(cb)
        conf = self.config["configurable"]
        try:
            async with run_span(
                em,
                _RunInfo(self.run_id, graph.real, self.config, lambda: self.tr.saved.get("")),
                graph=graph.name,
                input=self.input,
                resumed=resumed,
                config={"thread_id": self.thread_id, "checkpoint_id": conf.get("checkpoint_id")},
                gate=self.debugger,
                lease=None if self.saver is None else lease_for(self.saver),
                stopper=CooperativeStop(cb, task, self._seal),
            ) as span:
                resume = getattr(real_input, "resume", None)
                if resumed and resume is not None:
                    await self._resumed(resume)
                if self.saver is not None:  # saves an earlier run could not confirm
                    await graph.unknown_saves.resolve(
                        self.thread_id, self.saver, self.config, self.sync, self._checkpointer_says
                    )
                if self.sync:  # the stream's thread does not wake the loop for every event
                    em.inbox.hold(_HELD_AT_MOST)
                try:
                    await self._follow(self._stream(real_input))
                except asyncio.CancelledError:
                    await cb.cancel_open()
                    raise
                except Exception:
                    await cb.fail_open()
                    raise
                finally:
                    em.inbox.release()
                    if self.watch is not None:
                        graph.unknown_saves.note(self.thread_id, self.watch.unknown_ids)
                await tr.close_open_steps()
                span.interrupted = bool(tr.interrupts)
                # the values as the run made them; stopped at interrupt() with a saver, as
                # LangGraph's state shows them (the tasks done in the superstep applied)
                output = (
                    tr.values
                    if self.saver is None or not tr.interrupts or self.output_from_values
                    else None
                )
                if isinstance(output, dict) and "__interrupt__" in output:
                    output = {k: v for k, v in output.items() if k != "__interrupt__"}
                span.output = output if output is not None else await self._values()
            return with_interrupts(output_of(graph.real, span.output), tr.interrupts)
        finally:
            ACTIVE.reset(active)

    async def _checkpointer_says(self, action: str, detail: dict[str, Any]) -> None:
        await self.cb._emit(
            MiddlewareAction, "", middleware="checkpointer", action=action, detail=detail
        )

    async def _follow(self, stream: AsyncIterator[Any]) -> None:
        """Translate the run's stream to its end.  Stepwise never closes LangGraph's stream
        early (that would cancel the tasks in flight, and LangGraph would save their
        ``CancelledError`` in the app's thread): a failure of the translation aborts the run
        from inside instead (``engine.attach.abort``), and the stream ends soon after."""
        cb, tr, echo = self.cb, self.tr, self.echo
        try:
            while True:
                if echo is not None:  # the caller's pace (``Echo.until_taken``)
                    await echo.until_taken()
                try:
                    ns, mode, data = await anext(stream)
                except StopAsyncIteration:
                    break
                await self._part(tuple(ns), mode, data)
        except Exception as exc:
            cause = cause_of(exc)
            if cause is not None:
                raise cause from None
            self._saving_failed(exc)
            raise
        if cb.aborted is not None:
            raise cb.aborted.cause
        await tr.settle_parked()
        self._saving_failed(None)

    def _seal(self) -> None:
        """The run is cancelled after all: the app's saver gets none of its later writes."""
        if self.watch is not None:
            self.watch.seal()

    def _saving_failed(self, exc: BaseException | None) -> None:
        """Say clearly when the app's saver failed (LangGraph raises its error at the end)."""
        watch = self.watch
        if watch is None or watch.failure is None:
            return
        error = watch.failure
        lines = str(error).strip().splitlines()
        detail = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
        kept = self.tr.last_saved.get("")
        where = f"; the thread's newest saved checkpoint is {kept}" if kept else ""
        if watch.unknown_ids:  # cut off with the connection: the database could not be asked
            where += (
                f"; whether the app's database holds checkpoint {watch.unknown_ids[0]} is not "
                "known (the connection was lost while it was being saved)"
            )
        failed = len([c for c in watch.failed_ids if c not in watch.unknown_ids])
        if failed or not (watch.found_ids or watch.unknown_ids):
            what = f"failed to save {failed or 1} checkpoint(s) of this run"
        elif watch.unknown_ids:
            what = "failed while saving"
        else:
            what = "raised while saving a checkpoint, which its database holds all the same"
        raise CheckpointError(
            f"the app's checkpointer {what} ({detail}){where}",
            thread_id=self.thread_id,
        ) from exc or error

    async def _resumed(self, resume: Any) -> None:
        """``interrupt.resumed`` for each interrupt the resume answers, with its id and node (as
        the engine reports it), or one for the whole resume when the thread cannot say; none
        for a resume LangGraph refuses (one value for several interrupts)."""
        pending: list[PendingInterrupt] = []
        if self.saver is not None:
            snap = await self.graph.aget_state(self.config, subgraphs=True)
            pending = pending_interrupts(snap)
        pairs = answered(pending, resume)
        if pairs is None:
            await self.em.emit(
                InterruptResumed, parent_span_id=self.run_id, value=to_jsonable(resume)
            )
            return
        for p, value in pairs:
            await self.cb._emit(
                InterruptResumed,
                p.ns,
                parent_span_id=self.run_id,
                interrupt_id=p.interrupt_id,
                value=to_jsonable(value),
                node=p.node,
            )

    async def _values(self) -> Any:
        if self.saver is None:
            return None
        snap = await self.graph.aget_state(self.config)
        return snap.values
