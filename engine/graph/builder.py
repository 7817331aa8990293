"""``StateGraph``: the builder users write graphs with (LangGraph's API)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, get_args, get_origin, get_type_hints

from typing_extensions import TypeVar

from engine.graph.state import StateSpec
from engine.types import (
    END,
    START,
    Command,
    RetryPolicy,
    Send,
    TimeoutLike,
    TimeoutPolicy,
    coerce_timeout,
)

if TYPE_CHECKING:
    from engine.cache import BaseCache, CachePolicy
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.compiled import CompiledStateGraph
    from engine.store import BaseStore

StateT = TypeVar("StateT", default=Any)
ContextT = TypeVar("ContextT", default=Any)
InputT = TypeVar("InputT", default=StateT)
OutputT = TypeVar("OutputT", default=StateT)

__all__ = ["Branch", "NodeSpec", "StateGraph"]

RESERVED = {START, END}


@dataclass(frozen=True)
class NodeCallable:
    """What a node runs, as LangGraph shows it on ``builder.nodes[name].runnable``: ``func``
    for a sync callable, ``afunc`` for an async one (the other is None)."""

    name: str
    func: Any
    afunc: Any


@dataclass
class NodeSpec:
    name: str
    fn: Any
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None
    destinations: tuple[str, ...] | dict[str, str] | None = None
    input_schema: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    defer: bool = False
    cache_policy: CachePolicy | None = None
    error_handler: Any = None
    timeout: TimeoutPolicy | None = None

    @property
    def runnable(self) -> Any:
        """The node's callable (``.func`` / ``.afunc``); a compiled subgraph is itself."""
        fn = self.fn
        if hasattr(fn, "_arun_as_subgraph") or hasattr(fn, "ainvoke"):
            return fn
        if is_sync_callable(fn):
            return NodeCallable(self.name, fn, None)
        return NodeCallable(self.name, None, fn)


@dataclass
class Branch:
    """A conditional edge: ``path(state)`` returns node name(s) or ``Send``(s)."""

    path: Callable[..., Any]
    path_map: dict[Hashable, str] | None = None
    name: str = ""

    def ends(self, all_nodes: Sequence[str]) -> list[str]:
        if self.path_map is not None:
            return list(dict.fromkeys(self.path_map.values()))
        hinted = _literal_return(self.path)
        if hinted:
            return hinted
        return [*all_nodes, END]

    def resolve(self, result: Any) -> list[str | Send]:
        items = result if isinstance(result, list | tuple) else [result]
        out: list[str | Send] = []
        for r in items:
            if isinstance(r, Send):
                out.append(r)
            elif self.path_map is not None:
                try:
                    out.append(self.path_map[r])
                except (KeyError, TypeError) as exc:  # LangGraph's own error, explained
                    exc.add_note(
                        f"Branch '{self.name}' returned {r!r}, which is not in its path map "
                        f"{list(self.path_map)}"
                    )
                    raise
            elif r is None:
                continue
            else:
                out.append(str(r))
        return out


def node_destinations(spec: NodeSpec) -> tuple[str, ...]:
    """Where a node says its ``Command`` may go: its ``destinations`` (a dict's keys), else
    its ``-> Command[Literal[...]]`` annotation; () when it says nothing."""
    dests = spec.destinations
    if dests is None:
        return tuple(_literal_return(spec.fn, command_only=True))
    return tuple(dests)


def _literal_return(fn: Any, *, command_only: bool = False) -> list[str]:
    """The names in a ``-> Literal[...]`` (or ``-> Command[Literal[...]]``) annotation.  A
    node's destinations come only from the ``Command`` form (``command_only``): a node that
    returns a literal value does not route there."""
    try:
        hints = get_type_hints(fn)
    except Exception:
        return []
    ret = hints.get("return")
    if ret is None:
        return []
    if get_origin(ret) is Command:
        args = get_args(ret)
        ret = args[0] if args else None
    elif command_only:
        return []
    if get_origin(ret) is Literal:
        return [str(a) for a in get_args(ret)]
    return []


def _node_name(fn: Any) -> str:
    name = getattr(fn, "name", None) or getattr(fn, "__name__", None)
    if (not isinstance(name, str) or not name) and callable(fn):
        name = type(fn).__name__  # a callable object is named after its class
    if not isinstance(name, str) or not name:
        raise ValueError(f"Cannot infer a node name from {fn!r}; pass the name explicitly")
    return name


class StateGraph(Generic[StateT, ContextT, InputT, OutputT]):
    """A graph whose nodes read and write a shared state.

    ``StateGraph(State)`` where State is a TypedDict, dataclass or pydantic model;
    ``add_node``, ``add_edge``, ``add_conditional_edges``, then ``compile()``.
    """

    def __init__(
        self,
        state_schema: Any = None,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
    ) -> None:
        if state_schema is None:
            raise ValueError(
                "StateGraph needs a state schema (a TypedDict, dataclass or pydantic model)"
            )
        StateSpec(state_schema)  # a bad key (e.g. a reducer that is not (a, b) -> c) fails here
        self.state_schema = state_schema
        self.context_schema = context_schema
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: set[tuple[str, str]] = set()
        self.waiting_edges: set[tuple[tuple[str, ...], str]] = set()
        self.branches: dict[str, dict[str, Branch]] = {}
        self.compiled = False
        self.node_defaults: dict[str, Any] = {}

    # -- nodes -------------------------------------------------------------------------------

    def add_node(
        self,
        node: str | Any,
        action: Any = None,
        *,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        destinations: tuple[str, ...] | dict[str, str] | None = None,
        input_schema: Any = None,
        metadata: dict[str, Any] | None = None,
        defer: bool = False,
        retry: RetryPolicy | None = None,
        cache_policy: CachePolicy | None = None,
        error_handler: Any = None,
        timeout: TimeoutLike = None,
    ) -> StateGraph:
        if action is None:
            action, name = node, _node_name(node)
        else:
            if not isinstance(node, str):
                raise TypeError("add_node(name, action): name must be a string")
            name = node
        if name in self.nodes:
            raise ValueError(f"Node `{name}` already present.")
        if name in RESERVED:
            raise ValueError(f"Node `{name}` is reserved.")
        for ch in ("|", ":"):
            if ch in name:
                raise ValueError(
                    f"'{ch}' is a reserved character and is not allowed in the node names."
                )
        if not callable(action) and not hasattr(action, "ainvoke"):
            raise TypeError(
                f"Node `{name}` must be a function or a compiled graph, got {type(action).__name__}"
            )
        self.nodes[name] = NodeSpec(
            name=name,
            fn=action,
            retry_policy=retry_policy or retry,
            destinations=destinations,
            input_schema=input_schema or _first_param_schema(action, self.state_schema),
            metadata=dict(metadata or {}),
            defer=defer,
            cache_policy=cache_policy,
            error_handler=error_handler,
            timeout=coerce_timeout(timeout),
        )
        return self

    def set_node_defaults(
        self,
        *,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy | None = None,
        error_handler: Any = None,
        timeout: TimeoutLike = None,
    ) -> StateGraph:
        """Policies for every node that does not set its own (applied at ``compile()``)."""
        if retry_policy is not None:
            self.node_defaults["retry_policy"] = retry_policy
        if cache_policy is not None:
            self.node_defaults["cache_policy"] = cache_policy
        if error_handler is not None:
            self.node_defaults["error_handler"] = error_handler
        if timeout is not None:
            self.node_defaults["timeout"] = coerce_timeout(timeout)
        return self

    def add_sequence(self, nodes: Sequence[Any | tuple[str, Any]]) -> StateGraph:
        """Add nodes and chain them with edges, in order."""
        if not nodes:
            raise ValueError("Sequence requires at least one node.")
        previous: str | None = None
        for item in nodes:
            if isinstance(item, tuple):
                name, fn = item
                self.add_node(name, fn)
            else:
                name = _node_name(item)
                self.add_node(name, item)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    # -- edges -------------------------------------------------------------------------------

    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> StateGraph:
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be a start node")
            if end_key == START:
                raise ValueError("START cannot be an end node")
            self.edges.add((start_key, end_key))
            return self
        starts = tuple(start_key)
        for s in starts:
            if s == END:
                raise ValueError("END cannot be a start node")
        if end_key == START:
            raise ValueError("START cannot be an end node")
        self.waiting_edges.add((starts, end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any],
        path_map: dict[Hashable, str] | Sequence[str] | None = None,
    ) -> StateGraph:
        name = getattr(path, "__name__", None) or type(path).__name__
        if name == "<lambda>":
            name = "condition"
        if source in self.branches and name in self.branches[source]:
            raise ValueError(f"Branch with name `{name}` already exists for node `{source}`")
        pmap: dict[Hashable, str] | None
        if path_map is None:
            pmap = None
        elif isinstance(path_map, dict):
            pmap = dict(path_map)
        else:
            pmap = {p: p for p in path_map}
        self.branches.setdefault(source, {})[name] = Branch(path, pmap, name)
        return self

    def set_entry_point(self, key: str) -> StateGraph:
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self, path: Callable[..., Any], path_map: Any = None
    ) -> StateGraph:
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> StateGraph:
        return self.add_edge(key, END)

    # -- compile -----------------------------------------------------------------------------

    def validate(self, interrupt: Sequence[str] = ()) -> None:
        all_sources = {s for s, _ in self.edges} | {
            s for starts, _ in self.waiting_edges for s in starts
        }
        all_sources |= set(self.branches)
        for s in all_sources:
            if s != START and s not in self.nodes:
                raise ValueError(f"Found edge starting at unknown node '{s}'")
        if START not in all_sources:
            raise ValueError(
                "Graph must have an entrypoint: add at least one edge from START to another node"
            )
        targets = {t for _, t in self.edges} | {t for _, t in self.waiting_edges}
        targets |= {t for spec in self.nodes.values() for t in node_destinations(spec)}
        for t in targets:
            if t != END and t not in self.nodes:
                raise ValueError(f"Found edge ending at unknown node `{t}`")
        for src, branches in self.branches.items():
            for b in branches.values():
                if b.path_map is not None:
                    for t in b.path_map.values():
                        if t != END and t not in self.nodes:
                            raise ValueError(
                                f"At '{src}' node, '{b.name}' branch found unknown target '{t}'"
                            )
        for n in interrupt:
            if n != "*" and n not in self.nodes:
                raise ValueError(f"Interrupt node `{n}` not found")

    def compile(
        self,
        checkpointer: BaseCheckpointSaver | bool | None = None,
        *,
        store: BaseStore | None = None,
        cache: BaseCache | None = None,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        debug: bool = False,
        name: str | None = None,
        transformers: Sequence[Any] = (),
    ) -> CompiledStateGraph:
        from engine.checkpoint.base import ensure_valid_checkpointer
        from engine.graph.compiled import CompiledStateGraph

        ensure_valid_checkpointer(checkpointer)
        ib = (
            [interrupt_before]
            if isinstance(interrupt_before, str)
            else list(interrupt_before or [])
        )
        ia = [interrupt_after] if isinstance(interrupt_after, str) else list(interrupt_after or [])
        self.validate([*ib, *ia])
        self.compiled = True
        compiled = CompiledStateGraph(
            self,
            checkpointer=checkpointer,
            store=store,
            interrupt_before=ib,
            interrupt_after=ia,
            debug=debug,
            name=name or "LangGraph",
        )
        compiled.cache = cache
        compiled.stream_transformers = tuple(transformers)
        return compiled

    def state_spec(self) -> StateSpec:
        return StateSpec(self.state_schema)

    @property
    def managed(self) -> dict[str, Any]:
        """The state's managed keys (``RemainingSteps``, ``IsLastStep``) and their managers."""
        return dict(StateSpec(self.state_schema).managed)


def _first_param_schema(fn: Any, state_schema: Any) -> Any:
    """A node may declare its own input schema as the annotation of its first parameter."""
    if hasattr(fn, "builder") or not callable(fn):
        return None
    target = fn
    if not inspect.isfunction(target) and not inspect.ismethod(target):
        target = getattr(fn, "__call__", fn)  # noqa: B004
    try:
        params = list(inspect.signature(target).parameters.values())
        hints = get_type_hints(target)
    except Exception:
        return None
    if not params:
        return None
    ann = hints.get(params[0].name)
    if ann is None or ann is state_schema or not isinstance(ann, type):
        return None
    if ann is dict:
        return None
    from engine.graph.state import schema_fields

    return ann if schema_fields(ann) else None


def sync_timeout_error(name: str, kind: str = "Node") -> ValueError:
    return ValueError(
        f"{kind} `{name}` has a timeout, but timeouts are only supported for async nodes "
        "(a sync function cannot be cancelled safely)"
    )


def is_sync_callable(fn: Any) -> bool:
    """A plain sync function or callable object (compiled graphs and runnables are not)."""
    if hasattr(fn, "ainvoke") or hasattr(fn, "_arun_as_subgraph"):
        return False
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method of a callable object
    return not (inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call))
