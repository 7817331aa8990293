"""Compiling a ``StateGraph`` builder: runtime nodes and channels, and the drawable shape."""

from __future__ import annotations

import inspect
from typing import Any

from engine.graph.algo import TASKS, PregelNode, trigger_channel
from engine.graph.builder import (
    StateGraph,
    _literal_return,
    is_sync_callable,
    sync_timeout_error,
)
from engine.graph.channels import BaseChannel, EphemeralValue, NamedBarrierValue, Topic
from engine.graph.drawing import DrawableGraph
from engine.graph.state import StateSpec
from engine.graph.subgraph_detect import find_subgraph
from engine.types import END, START, RetryPolicy

__all__ = ["compile_nodes", "draw"]

DEFAULT_HANDLER = "__default_error_handler__"
_CALL_KWARGS = ("config", "runtime", "writer", "store")


def _is_graph(fn: Any) -> bool:
    """A compiled graph used as a node (a subgraph)."""
    return hasattr(fn, "_arun_as_subgraph")


def _call_kwargs(fn: Any) -> tuple[frozenset[str], bool]:
    """Which of config/runtime/writer/store a node function accepts, and whether it is async."""
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method of a callable object
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset(), is_async
    return frozenset(p for p in _CALL_KWARGS if p in params), is_async


def compile_nodes(
    b: StateGraph, spec: StateSpec, channels: dict[str, BaseChannel]
) -> dict[str, PregelNode]:
    """The runtime nodes of a builder; adds the internal channels (triggers, joins, Send topic)
    and node input-schema channels to ``channels``."""
    nodes: dict[str, PregelNode] = {}
    channels[START] = EphemeralValue(Any)
    channels[START].key = START
    tasks = Topic(Any, accumulate=False)
    tasks.key = TASKS
    channels[TASKS] = tasks
    names = [START, *b.nodes]
    for name in names:
        ch = EphemeralValue(Any, guard=False)
        ch.key = trigger_channel(name)
        channels[ch.key] = ch
    joins: dict[str, list[str]] = {}
    for starts, end in b.waiting_edges:
        key = f"join:{'+'.join(starts)}:{end}"
        ch = NamedBarrierValue(set(starts))
        ch.key = key
        channels[key] = ch
        joins.setdefault(end, []).append(key)
        for s in starts:
            joins.setdefault(f"__src__{s}", []).append(key)
    static: dict[str, list[str]] = {}
    for src, dst in sorted(b.edges):
        static.setdefault(src, []).append(dst)
    nodes[START] = PregelNode(
        name=START,
        fn=None,
        triggers=[START],
        input_keys=[],
        spec=spec,
        static_targets=static.get(START, []),
        join_channels=joins.get(f"__src__{START}", []),
        branches=list(b.branches.get(START, {}).values()),
        hidden=True,
    )
    if b.node_defaults.get("error_handler") is not None and DEFAULT_HANDLER in b.nodes:
        raise ValueError(
            f"Node name `{DEFAULT_HANDLER}` is reserved for the default error handler "
            "(set_node_defaults(error_handler=...))"
        )
    for name, ns in b.nodes.items():
        node_spec = spec
        input_keys = list(spec.channels)
        if ns.input_schema is not None:
            node_spec = StateSpec(ns.input_schema)
            for k, ch in node_spec.channels.items():
                channels.setdefault(k, ch)
            input_keys = list(node_spec.channels)
        is_sub = _is_graph(ns.fn)
        kwargs, is_async = (frozenset(), True) if is_sub else _call_kwargs(ns.fn)
        defaults = b.node_defaults
        timeout = ns.timeout if ns.timeout is not None else defaults.get("timeout")
        if timeout is not None and not is_sub and is_sync_callable(ns.fn):
            raise sync_timeout_error(name)
        retry = ns.retry_policy if ns.retry_policy is not None else defaults.get("retry_policy")
        policies: list[RetryPolicy] = []
        if isinstance(retry, RetryPolicy):
            policies = [retry]
        elif retry:
            policies = list(retry)
        nodes[name] = PregelNode(
            name=name,
            fn=ns.fn,
            triggers=[trigger_channel(name), *joins.get(name, [])],
            input_keys=input_keys,
            spec=node_spec,
            retry_policy=policies,
            static_targets=static.get(name, []),
            join_channels=joins.get(f"__src__{name}", []),
            branches=list(b.branches.get(name, {}).values()),
            is_subgraph=is_sub,
            call_kwargs=kwargs,
            is_async=is_async,
            metadata=dict(ns.metadata),
            cache_policy=ns.cache_policy
            if ns.cache_policy is not None
            else defaults.get("cache_policy"),
            error_handler=ns.error_handler
            if ns.error_handler is not None
            else defaults.get("error_handler"),
            timeout=timeout,
        )
        sub = find_subgraph(ns.fn)
        nodes[name].subgraphs = [sub] if sub is not None else []
    return nodes


def draw(b: StateGraph, name: str, xray: bool | int = False) -> DrawableGraph:
    """The drawable shape of a builder's graph (``CompiledStateGraph.get_graph``).

    ``xray`` draws each subgraph node's own graph in its place (``True``: all the way down; an
    int: that many levels), its nodes named ``parent:child`` as LangGraph names them."""
    g = _draw_flat(b, name)
    depth = -1 if xray is True else int(xray or 0)
    if depth != 0:
        for node, ns in b.nodes.items():
            if _is_graph(ns.fn):
                inner = ns.fn.get_graph(xray=True if depth < 0 else depth - 1)
                _inline(g, node, inner)
    return g


def _inline(g: DrawableGraph, node: str, inner: DrawableGraph) -> None:
    """Replace ``node`` in ``g`` by ``inner``'s nodes and edges (``node:child``), wiring the
    edges into ``node`` to ``inner``'s first nodes and its last nodes to the edges out."""
    into = [e for e in g.edges if e.target == node]
    out = [e for e in g.edges if e.source == node]
    g.edges = [e for e in g.edges if node not in (e.source, e.target)]
    del g.nodes[node]
    first = {e.target for e in inner.edges if e.source == START}
    last = {e.source for e in inner.edges if e.target == END}
    for child in inner.nodes.values():
        if child.id not in (START, END):
            g.add_node(f"{node}:{child.id}", child.kind, f"{node}:{child.name}", **child.metadata)
    for e in inner.edges:
        if START not in (e.source, e.target) and END not in (e.source, e.target):
            g.add_edge(
                f"{node}:{e.source}", f"{node}:{e.target}", conditional=e.conditional, data=e.data
            )
    for e in into:
        for child in sorted(first):
            target = END if child == END else f"{node}:{child}"
            g.add_edge(e.source, target, conditional=e.conditional, data=e.data)
    for e in out:
        for child in sorted(last):
            source = START if child == START else f"{node}:{child}"
            g.add_edge(source, e.target, conditional=e.conditional, data=e.data)


def _draw_flat(b: StateGraph, name: str) -> DrawableGraph:
    """The builder's own nodes and edges (subgraphs as one node each)."""
    g = DrawableGraph(name=name)
    g.add_node(START, "start")
    for name, ns in b.nodes.items():
        meta = dict(ns.metadata)
        kind = meta.pop("kind", "subgraph" if _is_graph(ns.fn) else "node")
        g.add_node(name, kind, **meta)
    has_end = False
    for src, dst in sorted(b.edges):
        g.add_edge(src, dst)
        has_end |= dst == END
    for starts, end in sorted(b.waiting_edges):
        for s in starts:
            g.add_edge(s, end)
    all_nodes = list(b.nodes)
    for src, branches in b.branches.items():
        for br in branches.values():
            labels = {v: k for k, v in (br.path_map or {}).items()}
            for end in br.ends(all_nodes):
                label = labels.get(end)
                g.add_edge(
                    src,
                    end,
                    conditional=True,
                    data=str(label) if label is not None and label != end else None,
                )
                has_end |= end == END
    for name, ns in b.nodes.items():
        dests = ns.destinations
        if dests is None:
            dests = tuple(_literal_return(ns.fn)) or None
        if dests:
            items = dests.items() if isinstance(dests, dict) else ((d, None) for d in dests)
            for d, label in items:
                g.add_edge(name, d, conditional=True, data=label)
                has_end |= d == END
    if has_end or not g.edges:
        g.add_node(END, "end")
    return g
