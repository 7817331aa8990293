"""Cached node and task results: look a task up before it runs, store its writes after.

The key is ``(("__node__" | "__task__", name), policy key of the input)``; the value is the
task's writes.  A hit replays the writes without calling the node; it is still reported
(``node.started``/``node.finished`` with ``cached=True``, and an ``updates`` chunk carrying
``"__metadata__": {"cached": True}``; as in LangGraph, the ``tasks`` stream shows its start
but no result, and the ``messages`` stream nothing).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engine.events import NodeFinished, NodeStarted
from engine.observe.bus import span

if TYPE_CHECKING:
    from engine.graph.algo import Task
    from engine.graph.loop import PregelLoop
    from engine.observe.bus import RunEmitter

__all__ = ["cache_key", "cached_writes", "emit_settled_node", "store_writes"]

FullKey = tuple[tuple[str, ...], str]


def _cache_of(loop: PregelLoop) -> Any:
    """The cache of the running graph (a subgraph without one uses its root's)."""
    cache = getattr(loop.graph, "cache", None)
    if cache is None and loop.run.loop is not None:
        cache = getattr(loop.run.loop.graph, "cache", None)
    return cache


def cache_key(task: Task) -> FullKey | None:
    policy = task.node.cache_policy
    if policy is None:
        return None
    if task.node.writer is not None and isinstance(task.input, tuple) and len(task.input) == 2:
        args, kwargs = task.input  # a task call: key its arguments
        key = policy.key(*args, **kwargs)
        return (("__task__", task.name), key)
    return (("__node__", task.name), policy.key(task.input))


async def emit_settled_node(
    em: RunEmitter,
    node: str,
    task_id: str,
    started: dict[str, Any] | None = None,
    finished: dict[str, Any] | None = None,
) -> None:
    """The ``node.started`` / ``node.finished`` pair of a node task whose writes were settled
    without running its body (served from the cache, or decided by an error handler)."""
    if not em.active:
        return
    s = span()
    t0 = time.perf_counter()
    ids = {"span_id": s.id, "parent_span_id": s.parent, "node": node, "task_id": task_id}
    await em.emit(NodeStarted, **ids, **(started or {}))
    await em.emit(
        NodeFinished,
        **ids,
        status="ok",
        duration_ms=(time.perf_counter() - t0) * 1000,
        **(finished or {}),
    )


def _served_task(loop: PregelLoop, key: FullKey) -> str | None:
    """Of the tasks planned for this step with the cache key ``key``, the one a hit serves:
    LangGraph looks a step's tasks up together, by key, so of several tasks with one key only
    the last is served (the others run).  None: no planned task has it (a functional-API call
    made during the step, served itself)."""
    known = loop.cache_served
    if known is None or known[0] != loop.step:
        served: dict[FullKey, str] = {}
        for t in loop.tasks:
            if t.node.cache_policy is None or t.cached:
                continue
            try:
                k = cache_key(t)
            except Exception:  # that task's own lookup raises it
                continue
            if k is not None:
                served[k] = t.id
        known = loop.cache_served = (loop.step, served)
    return known[1].get(key)


async def cached_writes(loop: PregelLoop, task: Task, *, started: bool = False) -> bool:
    """Fill ``task.writes`` from the cache; True on a hit (reported as a cached node run).
    ``started``: the task's start was streamed already (a step of several streams them all
    first)."""
    cache = _cache_of(loop)
    key = cache_key(task)
    if cache is None or key is None:
        return False
    served = _served_task(loop, key)
    if served is not None and served != task.id:
        return False  # another task of this step has the same key (see _served_task)
    found = await cache.aget([key])
    if key not in found:
        return False
    task.writes = [(str(c), v) for c, v in found[key]]
    task.cached = True
    if not started:  # the ``tasks`` stream names it; its result is not streamed
        loop.push_task_start(task)
    await loop.save_task_writes(task, task.writes)
    if not task.node.hidden:
        await emit_settled_node(
            loop.run.emitter, task.name, task.id, {"task_kind": task.kind}, {"cached": True}
        )
    loop.push_task_result(task, None, cached=True)
    return True


async def store_writes(loop: PregelLoop, task: Task) -> None:
    cache = _cache_of(loop)
    key = cache_key(task)
    if cache is None or key is None:
        return
    await cache.aset({key: ([[c, v] for c, v in task.writes], task.node.cache_policy.ttl)})
