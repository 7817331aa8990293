"""Running the tasks of one superstep: node calls, retries, writes, events, concurrency."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, get_args

from engine.checkpoint.base import ERROR, INTERRUPT, NO_WRITES, RESUME
from engine.core import foreign
from engine.core.aio import in_thread
from engine.errors import (
    GraphBubbleUp,
    GraphInterrupt,
    ParentCommand,
    RunStopped,
    is_invalid_resume,
)
from engine.events import (
    CustomEvent,
    ErrorInfo,
    InterruptRaised,
    NodeFinished,
    NodeStarted,
    Route,
)
from engine.graph.algo import Task, read_values
from engine.graph.node_cache import cached_writes, emit_settled_node, store_writes
from engine.graph.node_payloads import summarize, writes_payload
from engine.graph.policies import (
    attempt_runtime,
    call_error_handler,
    call_with_timeout,
    error_handler_node,
    pause,
)
from engine.graph.runtime import (
    TaskContext,
    blocking_calls_allowed,
    reset_task,
    set_task,
)
from engine.graph.task_writes import compute_writes
from engine.observe.bus import RunEmitter, span
from engine.observe.callbacks import NodeRunCallbacks, handlers_from
from engine.serde import to_jsonable
from engine.types import START, Command, RetryPolicy

if TYPE_CHECKING:
    from engine.graph.loop import PregelLoop

__all__ = ["run_step"]


def _policy_for(policies: Sequence[RetryPolicy], exc: BaseException) -> RetryPolicy | None:
    for p in policies:
        if p.should_retry(exc):
            return p
    return None


def node_run_callbacks(config: dict[str, Any], task: Task) -> NodeRunCallbacks | None:
    """The ``config["callbacks"]`` notifier for this task (None when there are no handlers)."""
    handlers = handlers_from(config)
    if not handlers:
        return None
    node = task.node
    policy = getattr(node, "trace_policy", None) or getattr(node.fn, "trace_policy", None)
    return NodeRunCallbacks(handlers, task.name, policy, config)


async def _call_node(loop: PregelLoop, task: Task, ctx: TaskContext) -> Any:
    node = task.node
    if node.name == START:
        return task.input
    if node.is_subgraph:
        try:
            return await node.fn._arun_as_subgraph(task.input, ctx, loop)
        except ParentCommand as pc:  # a node inside the subgraph addressed this graph
            return pc.command
    kwargs: dict[str, Any] = {}
    if "config" in node.call_kwargs:
        kwargs["config"] = ctx.config
    if "runtime" in node.call_kwargs:
        kwargs["runtime"] = ctx.runtime
    if "writer" in node.call_kwargs:
        kwargs["writer"] = ctx.runtime.stream_writer if ctx.runtime else None
    if "store" in node.call_kwargs:
        kwargs["store"] = loop.run.store
    # a foreign model the node calls itself (a langchain chat model) streams to ``messages``
    leave = foreign.node_scope() if loop.run.wants("messages") else None
    try:
        if node.is_async:
            out = await node.fn(task.input, **kwargs)
        elif ctx.inline:
            out = node.fn(task.input, **kwargs)
            # chunks the node handed over from helper threads (a sync model call streaming
            # tokens) were queued on this blocked loop: deliver them before the task's result
            await asyncio.sleep(0)
        else:
            out = await in_thread(node.fn, task.input, **kwargs)
        if inspect.isawaitable(out):
            out = await out
    finally:
        if leave is not None:
            leave()
    return out


def _make_writer(loop: PregelLoop, task: Task) -> Any:
    run = loop.run
    em = run.emitter
    ns = loop.ns

    def writer(chunk: Any) -> None:
        if run.wants("custom"):
            loop.push_threadsafe("custom", chunk)
        if em.active:
            em.emit_sync(CustomEvent, node=task.name, data=to_jsonable(chunk, max_str=4000))

    _ = ns
    return writer


async def run_task(
    loop: PregelLoop, task: Task, *, inline: bool = False, concurrent: bool = False
) -> None:
    """Run one task to completion: retries per the node's policy; writes saved as pending writes.

    ``concurrent``: one of several tasks of a step.  Its result (``updates``, ``tasks``, its
    messages) is streamed once the siblings ready to run have had their turn, as LangGraph's
    async runner streams it from the task's done callback: parallel async nodes' own stream
    writes come before their results."""
    node = task.node
    em = loop.run.emitter
    policies = node.retry_policy
    if node.cache_policy is not None and await cached_writes(loop, task, started=concurrent):
        return
    attempt = 0
    first_attempt_time = time.time()
    while True:
        attempt += 1
        task.attempt = attempt
        task.writes = []
        task.routes = []
        sp = task.scratchpad
        assert sp is not None
        sp.counter = 0
        sp.subgraph_calls = 0
        config = loop.task_config(task)
        ctx = TaskContext(
            task.name, task.id, loop.step, config, sp, loop.run, loop.ns, inline=inline, loop=loop
        )
        ctx.runtime = attempt_runtime(
            loop, task, config, _make_writer(loop, task), first_attempt_time
        )
        ctx.read_state = lambda: loop.graph.spec.to_state(
            read_values(loop.channels, loop.graph.spec.channels)
        )
        failed = _failed_before(loop, task) if node.error_handler is not None else None
        if failed is not None:  # the node failed in an earlier run; only its handler is left
            await _handle_error(loop, task, ctx, failed)
            return
        s = span()
        t0 = time.perf_counter()
        callbacks = node_run_callbacks(config, task)
        if em.active and not node.hidden:
            await em.emit(
                NodeStarted,
                span_id=s.id,
                parent_span_id=s.parent,
                node=task.name,
                task_id=task.id,
                task_kind=task.kind,
                input_summary=summarize(task.input),
                attempt=attempt,
            )
        if not concurrent or attempt > 1:  # a step of several streams its starts at once
            loop.push_task_start(task)
        pace = loop.run.pace
        if pace is not None and not loop.nested and not task.is_call and not concurrent:
            # as LangGraph's stream: a step's task runs once the consumer took what came
            # before (a call made while the step runs starts at once; the tasks of a step
            # of several start together, once ``run_step`` paced them)
            await pace()
        try:
            with s:
                token = set_task(ctx)
                try:
                    if callbacks is not None:
                        shown = task.input
                        if node.callback_input is not None:
                            shown = node.callback_input(task.input)
                        callbacks.start(shown)
                    try:
                        with callbacks.active() if callbacks is not None else nullcontext():
                            output = await call_with_timeout(
                                node,
                                lambda ctx=ctx: _call_node(loop, task, ctx),
                                task.timeout if task.timeout is not None else node.timeout,
                            )
                    except ParentCommand as pc:  # a graph this node called addressed ours
                        output = pc.command
                    if callbacks is not None:
                        callbacks.end(output)
                    if (to_parent := _to_parent(output)) is not None:
                        raise ParentCommand(
                            Command(
                                update=to_parent.update,
                                goto=to_parent.goto,
                                resume=to_parent.resume,
                            )
                        )
                    task.writes = await _writes(loop, task, output, ctx)
                    if ctx.extra_writes:
                        pushed = [w for w in ctx.extra_writes if w[0] in loop.channels]
                        task.writes = [*pushed, *task.writes]
                finally:
                    reset_task(token)
        except GraphInterrupt as gi:
            if callbacks is not None:
                callbacks.error(gi)
            task.interrupts = list(gi.interrupts)
            writes: list[tuple[str, Any]] = [(INTERRUPT, list(gi.interrupts))]
            if sp.resume:
                writes.append((RESUME, list(sp.resume)))
            await loop.save_task_writes(task, writes)
            if em.active and not gi.shown:
                gi.shown = True
                for intr in gi.interrupts:
                    await em.emit(
                        InterruptRaised,
                        parent_span_id=s.id,
                        interrupt_id=intr.id,
                        value=to_jsonable(intr.value, max_str=8000),
                        node=task.name,
                        task_id=task.id,
                    )
            if em.active:
                await _finished(em, s, task, t0, "interrupted")
            if not task.is_call:  # as LangGraph: a call's interrupts are streamed by the
                # node (or entrypoint) that called it, which re-raises them
                if concurrent:
                    await asyncio.sleep(0)
                loop.push_task_result(task, None, interrupts=gi.interrupts, interrupted=True)
            raise
        except GraphBubbleUp as bubble:
            if callbacks is not None:
                callbacks.error(bubble)
            raise
        except BaseException as exc:
            if callbacks is not None:
                callbacks.error(exc)
            if isinstance(exc, Exception):  # as LangGraph marks a task's failure
                exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
            cancelled = not isinstance(exc, Exception)
            policy = None if cancelled else _policy_for(policies, exc)
            retry = policy is not None and attempt < policy.max_attempts
            if em.active and not node.hidden:
                error = ErrorInfo.from_exception(exc, with_traceback=not retry)
                await _finished(em, s, task, t0, "cancelled" if cancelled else "error", error=error)
            if retry and policy is not None:
                await pause(loop, policy.delay(attempt))
                continue
            if not cancelled and node.error_handler is not None:
                await _handle_error(loop, task, ctx, exc)
                return
            if not cancelled and is_invalid_resume(exc):
                task.error = exc  # nothing saved: the interrupt can be answered again
            elif not cancelled:
                task.error = exc
                kept: list[tuple[str, Any]] = [
                    (ERROR, {"type": type(exc).__name__, "message": str(exc)})
                ]
                if sp.resume:  # answers the node took are kept, as LangGraph keeps them: a
                    kept.append((RESUME, list(sp.resume)))  # retry reruns with them
                await loop.save_task_writes(task, kept)
                loop.push_task_result(task, exc)
            raise
        # success
        await loop.save_task_writes(task, task.writes or [(NO_WRITES, None)])
        if node.cache_policy is not None:
            await store_writes(loop, task)
        if em.active and not node.hidden:
            for r in task.routes:
                await em.emit(
                    Route,
                    parent_span_id=s.id,
                    from_node=task.name,
                    to=r.to,
                    sends=[
                        {"node": x.node, "arg": to_jsonable(x.arg, max_str=400)} for x in r.sends
                    ],
                    reason=r.reason if r.reason in _REASONS else "conditional",
                    detail=r.detail,
                )
            await _finished(em, s, task, t0, "ok", writes=writes_payload(task.writes))
        if concurrent:
            await asyncio.sleep(0)
        loop.push_task_result(task, None)
        return


def _failed_before(loop: PregelLoop, task: Task) -> BaseException | None:
    """The error a resumed task's node raised before its error handler crashed."""
    for tid, c, v in loop.pending_writes:
        if tid == task.id and c == ERROR and isinstance(v, dict) and v.get("handler"):
            return RuntimeError(str(v.get("message", "")))
    return None


async def _handle_error(loop: PregelLoop, task: Task, ctx: TaskContext, exc: BaseException) -> None:
    """The node failed for good: its ``error_handler`` decides the writes instead."""
    handler = error_handler_node(task.node)
    assert handler is not None
    await loop.save_task_writes(
        task, [(ERROR, {"type": type(exc).__name__, "message": str(exc), "handler": True})]
    )
    output = await call_error_handler(task.node, task.input, exc, ctx.config, ctx.runtime)
    probe = Task(task.id, handler.name, task.path, task.input, task.triggers, handler)
    task.writes = await _writes(loop, probe, output, ctx)
    task.routes = probe.routes
    await loop.save_task_writes(task, task.writes or [(NO_WRITES, None)])
    await emit_settled_node(
        loop.run.emitter, handler.name, task.id, finished={"writes": writes_payload(task.writes)}
    )
    loop.push_task_result(task, None)


async def _finished(
    em: RunEmitter, s: span, task: Task, t0: float, status: str, **extra: Any
) -> None:
    """The task's ``node.finished`` event (its span closes)."""
    await em.emit(
        NodeFinished,
        span_id=s.id,
        parent_span_id=s.parent,
        node=task.name,
        task_id=task.id,
        status=status,
        duration_ms=(time.perf_counter() - t0) * 1000,
        attempt=task.attempt,
        **extra,
    )


_REASONS = frozenset(get_args(Route.model_fields["reason"].annotation))


def _to_parent(output: Any) -> Command | None:
    """The first ``Command(graph=Command.PARENT)`` a node returned, alone or in a list (a
    tools node's commands): it goes to the parent graph, and the node's other writes with it
    are dropped, as LangGraph's."""
    items = output if isinstance(output, list | tuple) else (output,)
    for item in items:
        if isinstance(item, Command) and item.graph == Command.PARENT:
            return item
    return None


async def run_step(loop: PregelLoop, tasks: Sequence[Task]) -> None:
    """Run the step's tasks concurrently.

    A plain exception is raised once the siblings are done: cancelled in an async call, run
    to their end (their writes kept) in a sync one, as LangGraph.  Interrupts do not cancel
    siblings: every task finishes, then one ``GraphInterrupt`` carries all interrupts in task
    order.
    """
    pending = [t for t in tasks if not t.cached]
    if not pending:
        return
    if len(pending) == 1:
        # A lone sync node of a sync call (invoke/stream) runs on the call's private event
        # loop: nothing else can be starved, so skip the thread hop.  Not while a debugger
        # watches for a place to stop: its pause must be able to block the node's thread.
        run = loop.run
        inline = (
            run.sync_call
            and (run.debugger is None or not run.debugger.watching)
            and not loop.nested
            and pending[0].node.inline_ok
            and not blocking_calls_allowed()
        )
        await run_task(loop, pending[0], inline=inline)
        return
    limit = loop.config.get("max_concurrency")
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise ValueError(f"max_concurrency must be a whole number of at least 1, got {limit!r}")
    gate = asyncio.Semaphore(limit) if limit is not None and limit < len(pending) else None

    async def run_gated(task: Task) -> None:
        if gate is None:
            return await run_task(loop, task, concurrent=True)
        async with gate:  # config["max_concurrency"]: at most that many tasks at once
            return await run_task(loop, task, concurrent=True)

    for t in pending:  # as LangGraph streams them: every start before any task runs
        loop.push_task_start(t)
    pace = loop.run.pace
    if pace is not None and not loop.nested:
        await pace()  # the step's tasks start together once the consumer took what came before
    futures = {asyncio.ensure_future(run_gated(t)): t for t in pending}
    error: BaseException | None = None
    invalid: BaseException | None = None
    interrupted: list[Task] = []
    shown = True
    try:
        waiting = set(futures)
        while waiting:
            done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_EXCEPTION)
            for f in done:
                if f.cancelled():
                    continue
                exc = f.exception()
                if isinstance(exc, GraphInterrupt):
                    interrupted.append(futures[f])
                    shown = shown and exc.shown
                elif exc is not None and is_invalid_resume(exc):
                    if error is None:
                        invalid = invalid or exc  # raised once the other tasks finish
                elif exc is not None and error is None:
                    error = exc
                    if not loop.run.sync_call or isinstance(exc, RunStopped):
                        for other in waiting:
                            other.cancel()
                    # a sync call (``invoke`` / ``stream``) lets the running siblings finish
                    # and keeps their writes, as LangGraph's thread pool does: the thread
                    # state shows them done and a retry reruns only what failed
            if error is not None and waiting:
                await asyncio.wait(waiting)
                stopped = [futures[f] for f in waiting if f.cancelled()]
                waiting = set()
                if isinstance(error, RunStopped | GraphBubbleUp):
                    stopped = []  # the user's stop, a command for the parent: no failure
                # what LangGraph's thread keeps of a task stopped for a sibling's failure:
                # its cancellation, as the task's error (a retry runs it again)
                for task in sorted(stopped, key=lambda t: t.sort_key):
                    await loop.save_task_writes(
                        task, [(ERROR, {"type": "CancelledError", "message": None})]
                    )
    finally:
        for f in futures:
            if not f.done():
                f.cancel()
        if any(not f.done() for f in futures):
            await asyncio.wait([f for f in futures if not f.done()])
    if error is not None:
        raise error
    if invalid is not None:
        raise invalid
    if interrupted:
        interrupted.sort(key=lambda t: t.sort_key)
        gi = GraphInterrupt([i for t in interrupted for i in t.interrupts])
        gi.shown = shown
        raise gi


async def _writes(loop: PregelLoop, task: Task, output: Any, ctx: TaskContext) -> Any:
    """``task``'s writes for the node's return value ``output`` (state writes, edges, routes)."""
    return await compute_writes(
        task,
        output,
        channels=loop.channels,
        nodes=loop.graph.nodes,
        spec=loop.graph.spec,
        input_keys=loop.graph.input_keys,
        config=ctx.config,
        route_reason=lambda: ctx.route_reason,
        steps=(loop.step, loop.stop),
    )
