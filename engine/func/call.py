"""Task calls as push tasks of the running Pregel loop.

Calling a ``@task`` inside a node schedules a push task in the *current* superstep: it runs
through the same task runner as every node (``node.started``/``node.finished`` events,
retries, interrupts, pending writes).  Its id derives from the calling task's id and the
call's index, so when the step runs again (a resume) the call finds its saved return value
in the checkpoint's pending writes and is not run again.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import RESUME
from engine.core.ids import deterministic_id
from engine.func.constants import PUSH, RETURN
from engine.func.future import TaskFuture
from engine.graph.algo import Task
from engine.graph.runner import run_task
from engine.graph.runtime import TaskScratchpad, current_task

if TYPE_CHECKING:
    from engine.graph.algo import PregelNode
    from engine.graph.loop import PregelLoop

__all__ = ["schedule_call"]

_MISSING = object()
_RUNNING: set[asyncio.Future[Any]] = set()


def _saved(loop: PregelLoop, task_id: str) -> tuple[Any, list[Any]]:
    """The call's checkpointed return value (or ``_MISSING``) and its saved resume values."""
    value: Any = _MISSING
    resume: list[Any] = []
    for tid, c, v in loop.pending_writes:
        if tid != task_id:
            continue
        if c == RETURN:
            value = v
        elif c == RESUME:
            resume = list(v)
    return value, resume


def schedule_call(
    name: str, make_node: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> TaskFuture[Any]:
    """Start one task call from inside a running node; returns its future."""
    ctx = current_task()
    if ctx is None or ctx.loop is None:
        raise RuntimeError(
            f"Task {name!r} was called outside of a running graph: call tasks from inside an "
            "@entrypoint, another @task or a graph node"
        )
    loop: PregelLoop = ctx.loop
    index = ctx.calls
    ctx.calls += 1
    task_id = deterministic_id(ctx.task_id, "call", index, name)
    fut: TaskFuture[Any] = TaskFuture(name, task_id, loop._aio_loop, loop._loop_thread)
    ctx.in_flight.append(fut)
    value, resume = _saved(loop, task_id)
    node: PregelNode = make_node(loop)
    task = Task(task_id, name, ("push", index), (args, kwargs), [PUSH], node)
    if value is not _MISSING:
        # the call is scheduled again and answered from its saved write (streamed as a
        # task, as LangGraph does, but not run and with no result of its own)
        _on_loop(loop, lambda: loop.push_task_start(task))
        fut.set_result(value)
        return fut
    task.scratchpad = TaskScratchpad(task_id, loop.ns, resume=resume)
    if threading.get_ident() == loop._loop_thread:
        _start(loop, task, fut)
    else:
        # run in the caller's context (its span, its task) even on loops that ignore
        # call_soon_threadsafe's ``context=`` (qasync's does)
        caller = contextvars.copy_context()
        loop._aio_loop.call_soon_threadsafe(lambda: caller.run(_start, loop, task, fut))
    return fut


def _on_loop(loop: PregelLoop, fn: Any) -> None:
    if threading.get_ident() == loop._loop_thread:
        fn()
    else:
        caller = contextvars.copy_context()
        loop._aio_loop.call_soon_threadsafe(lambda: caller.run(fn))


def _start(loop: PregelLoop, task: Task, fut: TaskFuture[Any]) -> None:
    if fut.done():  # cancelled before it started
        return
    job = asyncio.ensure_future(_run_call(loop, task, fut))
    fut._job = job
    _RUNNING.add(job)
    job.add_done_callback(_RUNNING.discard)


async def _run_call(loop: PregelLoop, task: Task, fut: TaskFuture[Any]) -> None:
    try:
        await run_task(loop, task)
    except BaseException as exc:
        fut.set_exception(exc)
        if not isinstance(exc, Exception):
            raise
        return
    fut.set_result(next((v for c, v in task.writes if c == RETURN), None))
