"""LangGraph's sync ``stream`` with the nested graphs' parts and the app's stream writes tapped
where they are made, so that LangGraph runs its supersteps as an app's own ``invoke`` does.

Asked for ``subgraphs=True`` or the ``custom`` mode, LangGraph's sync loop streams
concurrently: every superstep hands each of its tasks, even a lone one, to its thread pool, and
a waiter for the stream as well, where ``invoke`` runs a lone task on its own thread (two
thread hops a superstep, about a tenth of a plain agent's run: issue 26).  What those two
options deliver is taken here another way, the same parts in the same order:

- the nested graphs' parts: LangGraph hands a nested graph's loop the stream protocol found
  under ``CONFIG_KEY_STREAM`` in its task's config (``subgraphs=True`` puts the root loop's
  own there); the run's config carries ours instead, and each nested part goes to ``tap`` as
  the nested loop puts it, with its namespace, as the root stream would have yielded it;
- the app's stream writes (``get_stream_writer()``): a run's writer is its parent runtime's
  when it streams no ``custom`` mode itself; the run's config carries a runtime whose writer
  hands each write to ``tap`` with the namespace of the graph that wrote it, as LangGraph's
  own ``custom`` writer names it.

The root graph's own parts still come from the stream (``(ns, mode, data)`` with ``ns=()``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.attach.store_access import observed

__all__ = ["Tap", "Written", "can_tap", "inside_a_run", "tapped_astream", "tapped_stream"]

Tap = Callable[[tuple[str, ...], str, Any], None]
"""Takes one part (graph namespace, mode, data) on the thread that made it."""


@dataclass(frozen=True)
class Written:
    """A ``custom`` part tapped where the app wrote it: the data, and the LangGraph run
    metadata of the node that wrote it (which LangGraph's own ``custom`` stream leaves out)."""

    data: Any
    meta: dict[str, Any]


def _check_thread(run: Any, config: dict[str, Any]) -> None:
    """LangGraph's own refusal of a run with a saver and no ``configurable`` keys: the keys
    the tap adds would hide their absence from it (and the saver would fail on them)."""
    resolve = getattr(run, "_resolve_checkpointer", None)
    saver = resolve(config) if resolve is not None else getattr(run, "checkpointer", None)
    if saver:
        raise ValueError(
            "Checkpointer requires one or more of the following 'configurable' keys: "
            "thread_id, checkpoint_ns, checkpoint_id"
        )


def _tapped(
    run: Any, config: dict[str, Any], kw: dict[str, Any], tap: Tap
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's config and stream options with the nested parts and the app's stream writes
    handed to ``tap`` (see the module docstring)."""
    from langgraph._internal._constants import (
        CONF,
        CONFIG_KEY_CHECKPOINT_NS,
        CONFIG_KEY_RUNTIME,
        CONFIG_KEY_STREAM,
        NS_SEP,
    )
    from langgraph.config import get_config
    from langgraph.pregel.protocol import StreamProtocol
    from langgraph.runtime import Runtime

    modes = [m for m in kw["stream_mode"] if m != "custom"]

    def nested(chunk: tuple[tuple[str, ...], str, Any]) -> None:
        ns, mode, data = chunk
        if ns:  # the root's own parts come from the stream
            tap(tuple(ns), mode, data)

    def write(chunk: Any) -> None:
        config = get_config()
        conf: dict[str, Any] = dict(config.get(CONF) or {})
        ns = str(conf.get(CONFIG_KEY_CHECKPOINT_NS) or "").split(NS_SEP)[:-1]
        tap(tuple(ns), "custom", Written(chunk, dict(config.get("metadata") or {})))

    def accessed(fields: dict[str, Any]) -> None:
        try:
            config = get_config()
        except RuntimeError:  # called outside any node (the app's own code around the run)
            return
        conf: dict[str, Any] = dict(config.get(CONF) or {})
        ns = str(conf.get(CONFIG_KEY_CHECKPOINT_NS) or "").split(NS_SEP)[:-1]
        tap(tuple(ns), "store", Written(fields, dict(config.get("metadata") or {})))

    if not config.get(CONF):
        _check_thread(run, config)
    conf = dict(config.get(CONF) or {})
    conf[CONFIG_KEY_STREAM] = StreamProtocol(nested, set(modes))
    # a run given a runtime takes its store from it, not from the graph: the graph's own,
    # each call reported (``engine.attach.store_access``)
    store = observed(getattr(run, "store", None), accessed)
    conf[CONFIG_KEY_RUNTIME] = Runtime(stream_writer=write, store=store)
    return {**config, CONF: conf}, {**kw, "stream_mode": modes, "subgraphs": False}


def tapped_stream(
    run: Any, real_input: Any, config: dict[str, Any], kw: dict[str, Any], tap: Tap
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """``run.stream(real_input, config, **kw)`` as with ``subgraphs=True`` and the ``custom``
    mode (see the module docstring): the root's parts yielded, the rest handed to ``tap``."""
    tapped_config, options = _tapped(run, config, kw, tap)
    for mode, data in run.stream(real_input, tapped_config, **options):
        yield (), mode, data


async def tapped_astream(
    run: Any, real_input: Any, config: dict[str, Any], kw: dict[str, Any], tap: Tap
) -> AsyncIterator[tuple[tuple[str, ...], str, Any]]:
    """``tapped_stream`` for ``astream``: ``tap`` is called where a nested loop or a node on the
    event loop makes the part (or on the worker thread of a sync node)."""
    tapped_config, options = _tapped(run, config, kw, tap)
    async for mode, data in run.astream(real_input, tapped_config, **options):
        yield (), mode, data


def can_tap(config: dict[str, Any]) -> bool:
    """Can a run with ``config`` be tapped: it is not itself run inside a LangGraph run (whose
    stream and runtime it must keep), and this LangGraph has what ``tapped_stream`` uses."""
    try:
        from langgraph.runtime import Runtime
    except ImportError:
        return False
    if not hasattr(Runtime, "merge"):
        return False
    return not inside_a_run(config)


def inside_a_run(config: dict[str, Any] | None) -> bool:
    """Is a run with ``config`` made inside a LangGraph run (a node calling a graph): then
    LangGraph runs it as that run's nested graph, with the enclosing run's stream, runtime and
    checkpoint namespace."""
    try:
        from langchain_core.runnables.config import var_child_runnable_config
        from langgraph._internal._constants import (
            CONFIG_KEY_RUNTIME,
            CONFIG_KEY_STREAM,
            CONFIG_KEY_TASK_ID,
        )
    except ImportError:
        return False
    outer = (var_child_runnable_config.get() or {}).get("configurable") or {}
    conf = (config or {}).get("configurable") or {}
    keys = (CONFIG_KEY_RUNTIME, CONFIG_KEY_STREAM, CONFIG_KEY_TASK_ID)
    return any(k in conf or k in outer for k in keys)
