"""Running a compiled graph inside a task of another graph (a subgraph).

A subgraph runs either as a node of its parent (``add_node("inner", inner.compile())``) or
because a node calls ``inner.invoke(...)`` / ``ainvoke`` / ``stream`` while it runs.  Either
way it becomes a nested ``PregelLoop`` of the same run:

- its checkpoint namespace is the calling task's, ``parent_ns|node:task_id``; a subgraph
  compiled with ``checkpointer=True`` drops the task ids (``parent|node``) so it finds its own
  history again on the next call;
- it saves checkpoints with the parent's saver (none with ``checkpointer=False``);
- its stream chunks go to the parent's consumers, tagged with that namespace;
- its interrupts surface through the parent and resume there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.core.aio import call_on_loop, run_sync
from engine.graph.runtime import RunContext, TaskContext, current_task, reset_run, set_run

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.compiled import CompiledStateGraph
    from engine.graph.loop import PregelLoop

__all__ = [
    "NS_END",
    "NS_SEP",
    "calling_task",
    "run_subgraph",
    "stable_ns",
    "strip_task_ids",
    "task_ns",
]

NS_SEP = "|"
NS_END = ":"


def task_ns(parent_ns: str, name: str, task_id: str) -> str:
    """The namespace of the task ``name``/``task_id`` of a graph whose namespace is ``parent_ns``."""
    own = f"{name}{NS_END}{task_id}"
    return f"{parent_ns}{NS_SEP}{own}" if parent_ns else own


def stable_ns(ns: str) -> str:
    """A namespace without its task ids: where a ``checkpointer=True`` subgraph keeps its
    history (numeric parts, which tell repeated calls from one task apart, are kept)."""
    return NS_SEP.join(part.split(NS_END)[0] for part in ns.split(NS_SEP)) if ns else ns


def strip_task_ids(ns: str) -> str:
    """The node names of a namespace (``a:1|b:2`` -> ``a|b``), ignoring numeric parts."""
    return NS_SEP.join(
        part.split(NS_END)[0] for part in ns.split(NS_SEP) if part and not part.isdigit()
    )


def calling_task(config: dict[str, Any] | None = None) -> TaskContext | None:
    """The task of a running graph that is calling us, if any (a node invoking a graph).

    A call whose ``config`` names another thread is a separate run, not a subgraph.
    """
    ctx = current_task()
    if ctx is None or getattr(ctx, "loop", None) is None:
        return None
    thread = (config or {}).get("configurable", {}).get("thread_id")
    if thread is not None and str(thread) != str(ctx.loop.thread_id):
        return None
    return ctx


def _saver_for(graph: CompiledStateGraph, parent_loop: PregelLoop) -> BaseCheckpointSaver | None:
    if graph.checkpointer is False:
        return None
    if parent_loop.checkpointer is not None:
        return parent_loop.checkpointer
    return graph._saver()


def _stream_for(
    prun: RunContext,
    local: Callable[[str, Any, str], None] | None,
    local_modes: frozenset[str],
    ns: str,
) -> tuple[Callable[[str, Any, str], None] | None, frozenset[str]]:
    """The subgraph's stream: the parent's consumers, plus a local ``stream()`` consumer of a
    graph a node streams itself (it sees namespaces relative to that graph)."""
    parent = prun.stream if prun.streams_nested else None
    parent_modes = prun.stream_modes if parent is not None else frozenset()
    if local is None:
        return parent, parent_modes

    def both(mode: str, chunk: Any, chunk_ns: str) -> None:
        if parent is not None and mode in parent_modes:
            parent(mode, chunk, chunk_ns)
        if mode in local_modes:
            rel = chunk_ns[len(ns) :].lstrip(NS_SEP) if chunk_ns.startswith(ns) else chunk_ns
            local(mode, chunk, rel)

    return both, parent_modes | local_modes


async def run_subgraph(
    graph: CompiledStateGraph,
    input: Any,
    parent: TaskContext,
    parent_loop: PregelLoop,
    *,
    config: dict[str, Any] | None = None,
    stream: Callable[[str, Any, str], None] | None = None,
    stream_modes: frozenset[str] = frozenset(),
) -> Any:
    """Run ``graph`` as a subgraph of the task ``parent`` (of ``parent_loop``); returns its output.

    Interrupts and ``Command.PARENT`` propagate as exceptions to the calling task.
    """
    ns = task_ns(parent_loop.ns, parent.name, parent.task_id)
    calls = parent.scratchpad.subgraph_calls
    parent.scratchpad.subgraph_calls += 1
    if calls:
        ns = f"{ns}{NS_SEP}{calls}"
    if graph.checkpointer is True:
        ns = stable_ns(ns)
    saver = _saver_for(graph, parent_loop)
    prun = parent.run
    sub_stream, modes = _stream_for(prun, stream, stream_modes, ns)
    run = RunContext(
        run_id=prun.run_id,
        emitter=prun.emitter.child(ns),
        store=graph.store or prun.store,
        context=prun.context,
        checkpointer=saver,
        debugger=prun.debugger,
        sync_call=prun.sync_call,
        stream=sub_stream,
        stream_modes=modes,
        null_resume=prun.null_resume,
        model_override=prun.model_override,
        resume_map=prun.resume_map,
        streamed_message_ids=prun.streamed_message_ids,
        control=prun.control,
    )
    run.emitter.step = None
    base = {**parent.config, **(config or {})}
    if "metadata" in (config or {}):  # merged as LangChain merges configs: the child's wins
        base["metadata"] = {**parent.config.get("metadata", {}), **(config or {})["metadata"]}
    conf = {**parent.config.get("configurable", {}), **(config or {}).get("configurable", {})}
    conf["checkpoint_ns"] = ns
    conf.pop("checkpoint_id", None)
    if parent_loop.thread_id is not None:
        conf["thread_id"] = parent_loop.thread_id
    cfg = {**base, "configurable": conf}
    if "recursion_limit" not in (config or {}):
        cfg["recursion_limit"] = parent_loop.recursion_limit
    resuming = parent_loop.resuming
    token = set_run(run)
    try:
        loop = graph.loop_class(
            graph,
            input=input,
            config=cfg,
            run=run,
            checkpointer=saver,
            ns=ns,
            interrupt_before=graph.interrupt_before_nodes,
            interrupt_after=graph.interrupt_after_nodes,
            durability=parent_loop.durability,
            resuming=resuming,
            parent_checkpoint={**parent_loop.parents, parent_loop.ns: parent_loop.checkpoint["id"]},
            replay=parent_loop.replay,
            checkpoint_map=parent_loop.checkpoint_map,
        )
        return await loop.run_to_end()
    finally:
        reset_run(token)


def run_nested_sync(coro_factory: Callable[[], Any], parent: TaskContext) -> Any:
    """Run a nested graph's coroutine from a sync node: on the parent's event loop when the
    node runs on a worker thread, else (the node runs inline on that loop) on a helper thread."""
    loop = parent.run.emitter.loop
    if threading.get_ident() != parent.run.emitter.loop_thread and loop.is_running():
        return call_on_loop(coro_factory(), loop)
    return run_sync(coro_factory())
