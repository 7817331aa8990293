"""Execution policies of one task attempt: its ``Runtime`` (execution info), timeouts,
the pause between retries, and the node's ``error_handler`` once retries are exhausted."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, get_type_hints

from engine.core.aio import in_thread
from engine.core.execution import ExecutionInfo, server_info_from
from engine.errors import NodeCancelledError, NodeError, NodeTimeoutError
from engine.graph.runtime import Runtime

if TYPE_CHECKING:
    from engine.graph.algo import PregelNode, Task
    from engine.graph.loop import PregelLoop
    from engine.types import TimeoutPolicy

__all__ = ["attempt_runtime", "call_with_timeout", "error_handler_node", "pause"]


def attempt_runtime(
    loop: PregelLoop,
    task: Task,
    config: dict[str, Any],
    writer: Callable[[Any], None],
    first_attempt_time: float,
) -> Runtime[Any]:
    conf = config.get("configurable", {})
    run = loop.run
    return Runtime(
        context=run.context,
        store=run.store,
        stream_writer=writer,
        execution_info=ExecutionInfo(
            checkpoint_id=str(loop.checkpoint["id"]),
            checkpoint_ns=str(conf.get("checkpoint_ns") or ""),
            task_id=task.id,
            thread_id=loop.thread_id,
            run_id=None if config.get("run_id") is None else str(config.get("run_id")),
            node_attempt=task.attempt,
            node_first_attempt_time=first_attempt_time,
        ),
        server_info=server_info_from(conf),
        control=run.control,
    )


async def pause(loop: PregelLoop, seconds: float) -> None:
    """The wait before the next attempt (a sync call sleeps a worker thread, as upstream)."""
    if seconds <= 0:
        return
    if loop.run.sync_call:
        await asyncio.to_thread(time.sleep, seconds)
    else:
        await asyncio.sleep(seconds)


async def call_with_timeout(
    node: PregelNode, make_call: Callable[[], Awaitable[Any]], policy: TimeoutPolicy | None
) -> Any:
    """Run one attempt under ``policy.run_timeout``; a node's own ``CancelledError`` is a
    failure (``NodeCancelledError``), not a silent cancellation."""
    limit = policy.run_timeout if policy is not None else None
    limit = limit if limit is not None else (policy.idle_timeout if policy is not None else None)
    current = asyncio.current_task()
    before = current.cancelling() if current is not None else 0
    try:
        if limit is None:
            return await make_call()
        try:
            return await asyncio.wait_for(make_call(), limit)
        except TimeoutError as exc:
            assert policy is not None
            kind = "run" if policy.run_timeout is not None else "idle"
            raise NodeTimeoutError(
                node.name,
                limit,
                kind=kind,
                run_timeout=policy.run_timeout,
                idle_timeout=policy.idle_timeout,
            ) from exc
    except asyncio.CancelledError:
        if current is not None and current.cancelling() > before:
            raise  # cancelled from outside (a sibling failed, the run stopped)
        raise NodeCancelledError(node.name) from None


def error_handler_node(node: PregelNode) -> PregelNode | None:
    """The node's ``error_handler`` as a runnable node with no edges of its own."""
    from engine.graph.algo import PregelNode as _Node

    handler = node.error_handler
    if handler is None:
        return None
    return _Node(
        name=f"__error_handler__{node.name}",
        fn=handler,
        triggers=[],
        input_keys=node.input_keys,
        spec=node.spec,
        retry_policy=[],
        is_async=inspect.iscoroutinefunction(handler),
    )


async def call_error_handler(
    node: PregelNode,
    state: Any,
    exc: BaseException,
    config: dict[str, Any],
    runtime: Runtime[Any] | None,
) -> Any:
    handler = node.error_handler
    try:
        params = inspect.signature(handler).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    try:
        hints = get_type_hints(handler)
    except Exception:
        hints = {}
    kwargs: dict[str, Any] = {}
    for name in list(params)[1:]:
        if hints.get(name) is NodeError or name == "error":
            kwargs[name] = NodeError(node=node.name, error=exc)
        elif name == "config":
            kwargs[name] = config
        elif name == "runtime":
            kwargs[name] = runtime
    if inspect.iscoroutinefunction(handler):
        out = await handler(state, **kwargs)
    else:
        out = await in_thread(handler, state, **kwargs)
    if inspect.isawaitable(out):
        out = await out
    return out
