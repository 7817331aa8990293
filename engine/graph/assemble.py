"""Compiling a ``StateGraph`` builder: runtime nodes and channels, and the drawable shape."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from engine.graph.algo import TASKS, PregelNode, trigger_channel
from engine.graph.builder import (
    StateGraph,
    is_sync_callable,
    node_destinations,
    sync_timeout_error,
)
from engine.graph.channels import BaseChannel, EphemeralValue, NamedBarrierValue, Topic
from engine.graph.channels_defer import LastValueAfterFinish
from engine.graph.drawing import DrawableGraph, Edge
from engine.graph.state import StateSpec
from engine.graph.subgraph_detect import find_subgraph
from engine.types import END, START, RetryPolicy

__all__ = ["compile_nodes", "draw"]

DEFAULT_HANDLER = "__default_error_handler__"
_CALL_KWARGS = ("config", "runtime", "writer", "store")


def _is_graph(fn: Any) -> bool:
    """A compiled graph used as a node (a subgraph)."""
    return hasattr(fn, "_arun_as_subgraph")


def _runnable_call(fn: Any) -> Any:
    """What runs a node given as a runnable that is not a function (a tool, a LangChain
    runnable): its ``ainvoke``; else the node itself."""
    if not callable(fn) and callable(getattr(fn, "ainvoke", None)):
        return fn.ainvoke
    return fn


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
        deferred = name in b.nodes and b.nodes[name].defer
        ch = LastValueAfterFinish(Any) if deferred else EphemeralValue(Any, guard=False)
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
        spec=StateSpec(b.input_schema) if b.input_schema is not None else spec,
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
        fn = ns.fn if is_sub else _runnable_call(ns.fn)
        kwargs, is_async = (frozenset(), True) if is_sub else _call_kwargs(fn)
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
            fn=fn,
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


def draw(
    b: StateGraph,
    name: str,
    interrupt_before: Sequence[str] = (),
    interrupt_after: Sequence[str] = (),
) -> DrawableGraph:
    """The drawable shape of a builder's graph (``CompiledStateGraph.get_graph``).  A node
    with a static breakpoint says so in its metadata (``__interrupt``: before/after), a
    deferred one has ``defer``, a tools node the user added its tools (``__tools``), as
    LangGraph draws them."""
    g = DrawableGraph(name=name)
    g.add_node(START, "start")
    for name, ns in b.nodes.items():
        meta = dict(ns.metadata)
        kind = meta.pop("kind", "subgraph" if _is_graph(ns.fn) else "node")
        tools = getattr(ns.fn, "tools_by_name", None)
        if kind == "node" and isinstance(tools, Mapping) and tools:
            meta["__tools"] = list(tools)  # a ToolNode the user added: its tools, as drawn
        if ns.defer:
            meta["defer"] = True
        when = [
            w
            for w, names in (("before", interrupt_before), ("after", interrupt_after))
            if name in names or "*" in names
        ]
        if when:
            meta["__interrupt"] = ",".join(when)
        g.add_node(name, kind, **meta)
    has_end = False
    for src, dst in sorted(b.edges):
        g.add_edge(src, dst)
        has_end |= dst == END
    for starts, end in sorted(b.waiting_edges):
        for s in starts:
            g.add_edge(s, end)
        has_end |= end == END
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
        dests = ns.destinations if ns.destinations is not None else node_destinations(ns)
        if dests:
            items = dests.items() if isinstance(dests, dict) else ((d, None) for d in dests)
            for d, label in items:
                g.add_edge(name, d, conditional=True, data=label)
                has_end |= d == END
    # LangGraph's order: by source and target, the plain edges into the end last; then the
    # implied ends below
    g.edges.sort(key=_edge_order)
    # a node some edge leads to but that leads nowhere ends the run (drawn as an edge to END)
    sources = {e.source for e in g.edges}
    termini = sorted({e.target for e in g.edges if e.target != END} - sources)
    for t in termini:
        g.add_edge(t, END)
    has_end |= bool(termini)
    if not has_end and g.edges:
        last = _last_step(b, g)
        if last is not None:  # a graph that never ends: its last step is where it stops
            g.add_edge(last, END, conditional=True)
            has_end = True
    if has_end or not g.edges:
        g.add_node(END, "end")
    return g


def _last_step(b: StateGraph, g: DrawableGraph, limit: int = 250) -> str | None:
    """Step the graph as LangGraph does to draw it (every edge taken, a join once all its
    sources ran) for ``limit`` steps: the one node of the last step, if it is alone."""
    out: dict[str, set[str]] = {}
    for e in g.edges:
        out.setdefault(e.source, set()).add(e.target)
    joins = {end: set(starts) for starts, end in b.waiting_edges}
    join_sources = {s for starts in joins.values() for s in starts}
    seen: dict[str, set[str]] = {end: set() for end in joins}
    step = {START}
    for _ in range(limit):
        nxt: set[str] = set()
        for node in step:
            for t in out.get(node, ()):
                if t in joins and node in join_sources:
                    continue
                nxt.add(t)
            for end, starts in joins.items():
                if node in starts:
                    seen[end].add(node)
                    if seen[end] == starts:
                        nxt.add(end)
                        seen[end] = set()
        nxt.discard(END)
        if not nxt:
            return None
        step = nxt
    return next(iter(step)) if len(step) == 1 else None


def _edge_order(e: Edge) -> tuple[bool, str, str, bool, str]:
    into_end = e.target == END and not e.conditional
    return (into_end, e.source, e.target, e.conditional, e.data or "")
