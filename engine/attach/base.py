"""Shared state and plumbing of the attach-mode callback handler (see ``callbacks``)."""

from __future__ import annotations

import asyncio
import threading
import types
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler

from engine.attach.abort import StepwiseAbort, abort_for
from engine.events import EventBase, PlannedTask
from engine.observe.bus import RunEmitter

__all__ = ["ACTIVE", "WRAP_SPAN", "HandlerBase", "Open", "either", "layer_context", "task_of"]

ACTIVE: ContextVar[HandlerBase | None] = ContextVar("stepwise_attach_handler", default=None)
"""The handler of the attached run the current code belongs to (LangGraph copies the context
into every task it starts, so the instrumented middleware layers find their run here)."""

IN_LAYER: ContextVar[bool | str] = ContextVar("stepwise_attach_in_layer", default=False)
"""Set inside Stepwise's innermost layer around an agent's model call (True) or tool call (its
tool call id, True without one), which injects the debugger's faults itself; a call outside one
(an agent invoked inside a node function or inside that tool, a summarization model) gets its
fault from the callback of its start (``InjectedFault``)."""


def layer_mark(request: Any) -> bool | str:
    """What ``IN_LAYER`` holds inside the layer around the tool call ``request``."""
    call = getattr(request, "tool_call", None) or {}
    return str(call.get("id") or "") or True


class InjectedFault(Exception):
    """A fault the debugger injects from a callback: the app sees ``error`` itself, raised by
    the call, not Stepwise's failure."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


WRAP_SPAN: ContextVar[str | None] = ContextVar("stepwise_attach_wrap_span", default=None)
"""The innermost ``wrap_model_call`` / ``wrap_tool_call`` layer (or its attempt) running: the
model and tool calls made inside it nest there instead of directly under their node."""


@dataclass
class Open:
    span: str
    kind: str  # node | model | tool
    name: str
    t0: float
    ns: str
    step: int | None
    task_id: str = ""
    attempt: int = 1
    parent: str = ""
    """The span a call nests in (a node's parent is its superstep, kept in ``steps``)."""
    hook: tuple[str, str, str] | None = None
    """(span, middleware, hook) when the node is a create_agent middleware hook."""
    call_id: str | None = None
    """A tool call's ``tool_call_id`` (its end may not name it: a tool that raised)."""


@dataclass
class Interrupted:
    """A node run that stopped at ``interrupt()``: its task, and the ids of the interrupts it
    stopped with (several for a node whose subgraph's parallel tasks interrupted; none known
    when LangGraph's exception did not carry them)."""

    node: str
    span: str
    task_id: str
    interrupt_ids: list[str]


def layer_context() -> tuple[dict[str, Any], UUID | None]:
    """LangGraph's run metadata where a layer (or a tool node's step) runs, and the LangChain run it runs in (the
    node's, or a middleware chain's inside it)."""
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):
        return {}, None
    run_id = getattr(config.get("callbacks"), "parent_run_id", None)
    return dict(config.get("metadata") or {}), run_id if isinstance(run_id, UUID) else None


def interrupt_ids_of(error: BaseException) -> list[str]:
    """The ids of the interrupts a LangGraph ``GraphInterrupt`` carries (its first argument)."""
    found = error.args[0] if error.args else None
    items = found if isinstance(found, list | tuple) else ()
    return [str(i.id) for i in items if getattr(i, "id", None)]


def task_of(meta: dict[str, Any]) -> tuple[str, str]:
    """(namespace of the graph the node runs in, task id) from LangGraph's metadata."""
    cp_ns = str(meta.get("langgraph_checkpoint_ns") or "")
    parts = cp_ns.split("|")
    last = parts[-1] if parts else ""
    task_id = last.split(":", 1)[1] if ":" in last else last
    return "|".join(parts[:-1]), task_id


Callback = Callable[..., Coroutine[Any, Any, None]]
F = TypeVar("F", bound=Callback)
_get_ident = threading.get_ident


def either(fn: F) -> F:
    """Make ``fn`` a callback LangChain may call from async or from sync code (``_Either``)."""
    return cast(F, _Either(fn))


class _Either:
    """A callback LangChain may call from async code or from sync code (see ``HandlerBase``).

    Read on the loop thread, it is the coroutine function itself: LangChain's async callback
    manager awaits it, so the debugger can pause there without blocking the loop.  Read on any
    other thread (a sync tool or node on a worker thread, LangGraph's sync ``stream``), it is a
    plain function that runs the callback to its end right there: its events reach the loop
    through ``RunEmitter.emit_sync``, which blocks that worker thread (never the loop) while the
    debugger holds the run.  LangChain's sync manager would otherwise hand the coroutine to a
    new event loop made for it on a helper thread, and only log what it raises.

    Whatever the callback raises is Stepwise's own (a stop, a bug): it leaves as a
    ``StepwiseAbort`` so that LangGraph records nothing of it (``engine.attach.abort``)."""

    def __init__(self, fn: Callback) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.closing = fn.__name__.endswith("_error")
        """Called while an exception leaves a run: it runs even when the run is aborted."""

        async def on_loop(handler: HandlerBase, *args: Any, **kwargs: Any) -> None:
            if handler.deferred is not None:
                handler.settle_deferred()
            self.check(handler)
            if handler.before_emit is not None:  # what was made before this, first
                await handler.before_emit()
            try:
                await fn(handler, *args, **kwargs)
            except asyncio.CancelledError:
                raise
            except InjectedFault as fault:
                raise fault.error from None
            except Exception as exc:
                raise handler.abort(exc, self.name) from None

        on_loop.__name__ = self.name
        self.on_loop = on_loop

    def __get__(self, handler: HandlerBase | None, owner: type | None = None) -> Any:
        if handler is None:
            return self
        if _get_ident() == handler.em.loop_thread:
            return types.MethodType(self.on_loop, handler)
        return lambda *args, **kwargs: self.run_here(handler, args, kwargs)

    def check(self, handler: HandlerBase) -> None:
        """Once the run is aborted, whatever LangGraph starts or ends next raises the abort
        (only the error callbacks of what the abort leaves still run)."""
        if handler.aborted is not None and not self.closing:
            raise handler.aborted

    def run_here(self, handler: HandlerBase, args: Any, kwargs: Any) -> None:
        """Run the callback to its end in this (worker) thread.  It never waits on a loop
        here (its events go out through ``emit_sync``), so it finishes at its first step."""
        if handler.deferred is not None:
            handler.settle_deferred()
        self.check(handler)
        coro = self.fn(handler, *args, **kwargs)
        try:
            coro.send(None)
        except StopIteration:
            return
        except InjectedFault as fault:
            raise fault.error from None
        except Exception as exc:
            raise handler.abort(exc, self.name) from None
        coro.close()
        bug = RuntimeError("an attach callback waited on an event loop in a worker thread")
        raise handler.abort(bug, self.name)


class HandlerBase(AsyncCallbackHandler):
    """The handler's state: open runs, their parents, open supersteps, pending attempts.

    One handler serves both of LangChain's callback managers: its callbacks are ``either``,
    so sync tools and nodes (run on worker threads, even in an ``astream`` run) report
    through the same handler as the async code on the loop."""

    run_inline = True
    raise_error = True  # so a debugger ``stop`` (as a ``StepwiseAbort``) stops the run

    def __init__(self, emitter: RunEmitter, root_span: str) -> None:
        self.em = emitter
        self.root_span = root_span
        self.parents: dict[UUID, UUID | None] = {}
        self.open: dict[UUID, Open] = {}
        self.steps: dict[tuple[str, int], str] = {}
        self.step_t0: dict[tuple[str, int], float] = {}
        self.closing: dict[tuple[str, int], Any] = {}
        """Supersteps over whose last node has not reported its end yet (their status)."""
        self.planned_tasks: Callable[[str], Sequence[PlannedTask]] | None = None
        """The tasks due in a graph namespace (set by the stream translator, which reads them
        from the checkpoints: ``superstep.started`` lists them)."""
        self.task_spans: dict[tuple[str, str], str] = {}
        """(graph namespace, task id) -> the span of the node running that task."""
        self.task_attempts: dict[tuple[str, str], int] = {}
        """How often each task has started (a node ``RetryPolicy`` reruns it)."""
        self.interrupted: dict[str, list[Interrupted]] = {}
        """Per graph namespace, the node runs whose last run stopped at ``interrupt()``."""
        self.wrap_owner: dict[str, str] = {}
        """Wrapper / attempt span -> the span of the node whose middleware opened it."""
        self.routed: set[tuple[str, str]] = set()
        """(graph namespace, node) whose route was reported from inside it (a handoff), so
        the checkpoint after it draws no second one."""
        self.commands: dict[tuple[str, str], tuple[list[str], list[dict[str, Any]]]] = {}
        """(graph namespace, node) -> where the ``Command`` it returned sends the run (read by
        the translator at the superstep's checkpoint: ``engine.attach.routes``)."""
        self.model_override: Any = None
        """A ``ReplayChatModel`` serving recorded replies (``RunRequest.model_override``)."""
        self.stream_tokens = False
        """Does LangGraph stream the app's models in this run (the ``messages`` mode)?"""
        self.tokens_seen = 0
        """Model tokens reported so far (a stream that gave none can be asked again)."""
        self.unstreamable: set[type] = set()
        """Model classes whose stream gave nothing: not streamed again (the graph's set)."""
        self.app_streams_messages = False
        """The caller's own stream asks for the ``messages`` mode (``AttachedGraph.stream``), or
        the app's callbacks ask its models to stream (``astream_events``: ``streaming_handlers``):
        its models stream as the app set them, as on LangGraph, never quieted by Stepwise."""
        self.aborted: StepwiseAbort | None = None
        """Set once Stepwise aborts the run (a stop, a failure of ours): the spans still open
        close without consulting the debugger again."""
        self.deferred: Callable[[], None] | None = None
        """The end of a checkpoint's translation that waits for the app's saver, put off
        until anything else of the run is reported (``defer``)."""
        self._deferred_lock = threading.RLock()
        self._settling = False
        self._opening = threading.RLock()
        """Held by a worker thread opening a superstep (``superstep_span``)."""
        self.before_emit: Callable[[], Awaitable[None]] | None = None
        """Awaited on the loop before each event: an ``astream`` run translates there the
        nested parts made since (``AttachedRun._drain``), so they come before what follows."""

    def defer(self, finish: Callable[[], None]) -> None:
        """Run ``finish`` (the end of a checkpoint's translation, which waits for its save)
        before anything else of the run is reported or looked at: first thing in every
        callback, emit and stream part (``settle_deferred``), so the events keep their order
        while the save runs alongside what LangGraph does next."""
        self.settle_deferred()
        self.deferred = finish

    def settle_deferred(self) -> None:
        """Run the deferred end of a checkpoint's translation now, if any (once, whichever
        thread comes first; the others wait for it to be done)."""
        if self.deferred is None:
            return
        with self._deferred_lock:
            finish = self.deferred
            if finish is None or self._settling:  # done meanwhile, or its own events
                return
            self._settling = True
            try:
                finish()
            finally:
                self.deferred = None
                self._settling = False

    def abort(self, exc: BaseException, where: str) -> StepwiseAbort:
        """The ``StepwiseAbort`` to raise for ``exc`` (raised by our code at ``where``); the
        first one is the run's."""
        abort = abort_for(exc, where)
        if self.aborted is None:
            self.aborted = abort
        return abort

    # -- plumbing -----------------------------------------------------------------------------

    def _emitter(self, ns: str) -> RunEmitter:
        em = self.em
        return em.child(ns) if ns != em.ns else em

    async def _emit(self, cls: type[EventBase], ns: str, **fields: Any) -> EventBase | None:
        """Emit on the loop (awaiting the debugger) or from a worker thread (blocking it)."""
        if self.deferred is not None:
            self.settle_deferred()
        try:
            if self.aborted is not None:
                return self._emit_ungated(cls, ns, fields)
            if _get_ident() == self.em.loop_thread:
                if self.before_emit is not None:
                    await self.before_emit()
                return await self._emitter(ns).emit(cls, **fields)
            # a sync node or tool running in a worker thread
            em = self.em
            return (em if ns == em.ns else em.child(ns)).emit_fields_sync(cls, fields)
        except Exception as exc:
            raise self.abort(exc, cls.__name__) from None

    def emit_sync(self, cls: type[EventBase], ns: str, **fields: Any) -> None:
        """``_emit`` from synchronous code (a sync middleware layer)."""
        if self.deferred is not None:
            self.settle_deferred()
        try:
            if self.aborted is not None:
                self._emit_ungated(cls, ns, fields)
            else:
                em = self.em
                (em if ns == em.ns else em.child(ns)).emit_fields_sync(cls, fields)
        except Exception as exc:
            raise self.abort(exc, cls.__name__) from None

    def _emit_ungated(
        self, cls: type[EventBase], ns: str, fields: dict[str, Any]
    ) -> EventBase | None:
        """Deliver without the debugger (the run is being aborted), from any thread."""
        if self.deferred is not None:
            self.settle_deferred()
        return self._emitter(ns).emit_nowait(cls, **fields)

    def _open_above(self, run_id: UUID | None) -> Open | None:
        """The nearest node or call that is still open, walking up LangChain's run tree."""
        seen = 0
        while run_id is not None and seen < 1000:
            op = self.open.get(run_id)
            if op is not None:
                return op
            run_id = self.parents.get(run_id)
            seen += 1
        return None

    def parent_span(self, run_id: UUID | None) -> str:
        """The span a call starting under LangChain run ``run_id`` nests in: the nearest open
        call, else the middleware layer running in its node, else its node, else the run."""
        op = self._open_above(run_id)
        wrap = WRAP_SPAN.get()
        if wrap is not None and (op is None or self.wrap_owner.get(wrap) == op.span):
            return wrap
        return op.span if op is not None else self.root_span

    def node_span(self, meta: dict[str, Any]) -> str | None:
        """The span of the node task LangGraph's run metadata ``meta`` belongs to."""
        return self.task_spans.get(task_of(meta))
