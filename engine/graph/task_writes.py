"""A finished task's writes (``compute_writes``): its state writes, the control writes of a
``Command`` it returned, and the routes out of it (static edges, conditional edges, ``Send``),
each route checked against the graph's nodes."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from engine.graph.algo import (
    TASKS,
    ChannelWrites,
    PregelNode,
    RouteInfo,
    Task,
    is_internal_channel,
    read_values,
    trigger_channel,
)
from engine.graph.builder import Branch
from engine.graph.channels import MISSING, BaseChannel, preview
from engine.graph.state import StateSpec, updates_from_output, warn_unknown_keys
from engine.types import END, START, Command, Send

_log = logging.getLogger("engine.graph")

__all__ = ["compute_writes"]


def _call_branch(branch: Branch, state: Any, config: dict[str, Any]) -> Any:
    fn = branch.path
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    if "config" in params:
        return fn(state, config=config)
    return fn(state)


async def compute_writes(
    task: Task,
    output: Any,
    *,
    channels: dict[str, BaseChannel],
    nodes: dict[str, PregelNode],
    spec: StateSpec,
    input_keys: Sequence[str],
    config: dict[str, Any],
    route_reason: Callable[[], tuple[str, str] | None],
    steps: tuple[int, int] = (0, 0),
) -> list[tuple[str, Any]]:
    """State writes, control writes, static edges and conditional edges of one finished task.
    ``steps``: the run's step and last step, for the managed values a routing function reads."""
    node = task.node
    if node.writer is not None:
        return node.writer(output)
    # the state's keys, plus keys that only some node's input schema declares
    state_keys = set(spec.channels) | {k for k in channels if not is_internal_channel(k)}
    writes: list[tuple[str, Any]] = []
    commands: list[Command] = []
    if node.name == START and not isinstance(output, Command):  # a command starting a
        # thread is the START node's input: its update and goto, as a node's command
        if output is not None:
            data = node.spec.validate_input(output)  # against the input schema, if any
            writes = [(k, v) for k, v in data.items() if k in input_keys]
            # a subgraph given its parent's state takes the keys it shares, quietly (as
            # LangGraph); a run's own input with a key the state lacks is likely a typo
            nested = "|" in str(config.get("configurable", {}).get("checkpoint_ns", ""))
            if not nested and isinstance(output, dict) and any(k not in state_keys for k in output):
                unknown = [str(k) for k in output if k not in state_keys]
                warn_unknown_keys("the input", unknown, state_keys)
    elif isinstance(output, ChannelWrites):  # a low-level Pregel node's own writes
        writes = list(output)
    else:
        dropped: list[str] = []
        writes, commands = updates_from_output(output, set(state_keys), dropped)
        if dropped and not node.is_subgraph:
            # a compiled subgraph returns its whole state: keys only it has are its own, as in
            # LangGraph's shared-schema subgraphs, not a typo of the parent's
            warn_unknown_keys(f"node {node.name!r}", dropped, state_keys)
    for cmd in commands:
        to: list[str] = []
        sends: list[Send] = []
        unknown: list[str] = []
        for g in cmd.goto_list():
            if isinstance(g, Send):
                if g.node not in nodes or g.node == START:
                    unknown.append(_ignored(node.name, g.node, send=True))
                    continue
                writes.append((TASKS, g))
                sends.append(g)
            elif g == END:
                to.append(END)
            else:
                if g not in nodes or g == START:
                    unknown.append(_ignored(node.name, g, send=False))
                    continue
                writes.append((trigger_channel(g), None))
                to.append(g)
        if to or sends or unknown:
            task.routes.append(RouteInfo(to, sends, "command", _unknown_detail(unknown)))
    if node.static_targets:
        for target in node.static_targets:
            if target != END:
                writes.append((trigger_channel(target), None))
        task.routes.append(RouteInfo(list(node.static_targets), [], "static"))
    for jc in node.join_channels:
        writes.append((jc, node.name))
    if node.branches:
        fresh = _fresh_state(channels, writes, spec, steps)
        for branch in node.branches:
            own = _branch_spec(branch, spec)
            state = fresh if own is None else _fresh_state(channels, writes, own, steps)
            result = _call_branch(branch, state, config)
            if inspect.isawaitable(result):
                result = await result
            dests = branch.resolve(result)
            to, sends, unknown = [], [], []
            for d in dests:
                if isinstance(d, Send):
                    if d.node not in nodes:
                        unknown.append(_ignored(node.name, d.node, send=True))
                        continue
                    writes.append((TASKS, d))
                    sends.append(d)
                elif d == END:
                    to.append(END)
                else:
                    if d not in nodes:
                        unknown.append(_ignored(node.name, d, send=False))
                        continue
                    writes.append((trigger_channel(d), None))
                    to.append(d)
            reason = route_reason()
            detail = reason[1] if reason else branch.name
            if unknown:
                detail = (
                    f"{detail}; {_unknown_detail(unknown)}" if detail else _unknown_detail(unknown)
                )
            task.routes.append(RouteInfo(to, sends, reason[0] if reason else "conditional", detail))
    return writes


def _ignored(source: str, target: Any, *, send: bool) -> str:
    """Log that ``source`` routed to ``target``, which is not a node of the graph, and return
    its name: LangGraph drops such a route with a warning and the run goes on without it."""
    if send:
        _log.warning("Ignoring unknown node name %s in pending sends (from %r)", target, source)
    else:
        _log.warning("Node %r routed to unknown node %r; ignoring it", source, target)
    return str(target)


def _unknown_detail(unknown: list[str]) -> str:
    """The route event's note on targets that were dropped (what the debugger shows)."""
    if not unknown:
        return ""
    names = ", ".join(repr(n) for n in unknown)
    return f"ignored unknown node{'s' if len(unknown) > 1 else ''} {names}"


_BRANCH_SPECS: dict[Any, StateSpec | None] = {}


def _branch_spec(branch: Branch, graph_spec: StateSpec) -> StateSpec | None:
    """The spec of a routing function that annotates its state with its own schema."""
    key = (branch.path, graph_spec.schema)
    try:
        return _BRANCH_SPECS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable callable: no caching, no own schema
        return None
    from engine.graph.builder import _first_param_schema

    schema = _first_param_schema(branch.path, graph_spec.schema)
    own = None if schema is None or schema is graph_spec.schema else StateSpec(schema)
    _BRANCH_SPECS[key] = own
    return own


def _fresh_state(
    channels: dict[str, BaseChannel],
    writes: list[tuple[str, Any]],
    spec: StateSpec,
    steps: tuple[int, int],
) -> Any:
    """Committed values plus this task's own writes, as the state type, with the managed
    values (``RemainingSteps``...) of the task's step, as the node itself read them."""
    values = read_values(channels, spec.channels.keys())
    for key, manager in spec.managed.items():
        values[key] = manager.value(*steps)
    grouped: dict[str, list[Any]] = {}
    for c, v in writes:
        if c in spec.channels:
            grouped.setdefault(c, []).append(v)
    for c, vals in grouped.items():
        v = preview(channels[c], vals)
        if v is MISSING:
            values.pop(c, None)
        else:
            values[c] = v
    return spec.to_state(values)
