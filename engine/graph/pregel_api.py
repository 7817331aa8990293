"""The low-level Pregel API: nodes that subscribe to channels and write to channels.

``NodeBuilder().subscribe_only("a").do(fn).write_to("b")`` describes one node; ``Pregel(nodes=,
channels=, input_channels=, output_channels=)`` runs them superstep by superstep on the same
loop as ``StateGraph`` (a node runs when a channel it subscribes to was updated).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.graph.algo import TASKS, ChannelWrites, PregelNode
from engine.graph.builder import sync_timeout_error
from engine.graph.channels import (
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    Topic,
)
from engine.graph.compiled import CompiledStateGraph
from engine.graph.drawing import DrawableGraph
from engine.graph.schema_json import schema_json
from engine.graph.state import StateSpec
from engine.message_log import plain
from engine.observe.bus import EventBus
from engine.types import START, RetryPolicy, coerce_timeout

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.store import BaseStore

__all__ = ["ChannelWrites", "NodeBuilder", "Pregel"]


@dataclass
class _Write:
    channel: str
    value: Any = None
    mapper: Callable[[Any], Any] | None = None
    passthrough: bool = True


class NodeBuilder:
    """Describe one node: what it reads, the functions it runs, the channels it writes."""

    def __init__(self) -> None:
        self._channels: str | list[str] = []
        self._triggers: list[str] = []
        self._steps: list[tuple[str, Any]] = []
        self._retry: list[RetryPolicy] = []
        self._metadata: dict[str, Any] = {}
        self._tags: list[str] = []
        self._timeout: Any = None

    def subscribe_only(self, channel: str) -> NodeBuilder:
        """Run when ``channel`` is updated; the input is that channel's value."""
        if self._channels:
            raise ValueError("subscribe_only cannot be combined with other subscriptions")
        self._channels = channel
        self._triggers.append(channel)
        return self

    def subscribe_to(self, *channels: str, read: bool = True) -> NodeBuilder:
        """Run when any of ``channels`` is updated; the input is a dict of the channels read."""
        if isinstance(self._channels, str):
            raise ValueError("subscribe_to cannot be combined with subscribe_only")
        if read:
            self._channels = [*self._channels, *channels]
        self._triggers.extend(channels)
        return self

    def read_from(self, *channels: str) -> NodeBuilder:
        """Also read ``channels`` into the input dict (without being triggered by them)."""
        if isinstance(self._channels, str):
            raise ValueError("read_from cannot be combined with subscribe_only")
        self._channels = [*self._channels, *channels]
        return self

    def do(self, fn: Any) -> NodeBuilder:
        """Run ``fn`` on the current value (steps run in the order they were added)."""
        self._steps.append(("do", fn))
        return self

    def write_to(self, *channels: str, **kwargs: Any) -> NodeBuilder:
        """Write the current value to ``channels``; a keyword writes a fixed value, or the
        result of calling it on the current value."""
        entries = [_Write(c) for c in channels]
        for k, v in kwargs.items():
            if callable(v):
                entries.append(_Write(k, mapper=v))
            else:
                entries.append(_Write(k, value=v, passthrough=False))
        self._steps.append(("write", entries))
        return self

    def meta(self, *tags: str, **metadata: Any) -> NodeBuilder:
        self._tags.extend(tags)
        self._metadata.update(metadata)
        return self

    def add_retry_policies(self, *policies: RetryPolicy) -> NodeBuilder:
        self._retry.extend(policies)
        return self

    def set_timeout(self, timeout: Any) -> NodeBuilder:
        """A ``TimeoutPolicy`` (or seconds) for the node's run; only async nodes take one."""
        self._timeout = timeout
        return self

    def build(self) -> NodeBuilder:
        return self

    # -- runtime -------------------------------------------------------------------------------

    @property
    def reads(self) -> list[str]:
        return [self._channels] if isinstance(self._channels, str) else list(self._channels)

    @property
    def triggers(self) -> list[str]:
        return list(dict.fromkeys(self._triggers))

    def timeout_policy(self, name: str) -> Any:
        """The node's timeout as the runner takes it; a sync node's is refused."""
        if self._timeout is None:
            return None
        if not self.is_async():
            raise sync_timeout_error(name)
        return coerce_timeout(self._timeout)

    def is_async(self) -> bool:
        return any(kind == "do" and _is_async(fn) for kind, fn in self._steps)

    def writer_only(self) -> Callable[[Any], ChannelWrites]:
        """The node's write steps applied to a given value (what ``update_state`` writes)."""
        entries = [e for kind, item in self._steps if kind == "write" for e in item]

        def write(value: Any) -> ChannelWrites:
            return ChannelWrites(_writes_of(entries, value))

        return write

    def runner(self) -> Callable[..., Any]:
        steps = list(self._steps)
        if self.is_async():

            async def run_async(value: Any, config: dict[str, Any]) -> ChannelWrites:
                writes = ChannelWrites()
                for kind, item in steps:
                    if kind == "write":
                        writes.extend(_writes_of(item, value))
                        continue
                    value = _call_step(item, value, config)
                    if inspect.isawaitable(value):
                        value = await value
                return writes

            return run_async

        def run(value: Any, config: dict[str, Any]) -> ChannelWrites:
            writes = ChannelWrites()
            for kind, item in steps:
                if kind == "write":
                    writes.extend(_writes_of(item, value))
                    continue
                value = _call_step(item, value, config)
            return writes

        return run


def _is_async(fn: Any) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method of a callable object
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def _call_step(fn: Any, value: Any, config: dict[str, Any]) -> Any:
    if isinstance(fn, CompiledStateGraph | _Mapper):
        return fn.invoke(value, _child_config(config))
    return fn(value)


def _child_config(config: dict[str, Any]) -> dict[str, Any]:
    conf = {
        k: v
        for k, v in config.get("configurable", {}).items()
        if k not in ("checkpoint_ns", "checkpoint_id")
    }
    return {"configurable": conf} if conf else {}


def _writes_of(entries: list[_Write], value: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for e in entries:
        if e.mapper is not None:
            out.append((e.channel, e.mapper(value)))
        elif e.passthrough:
            out.append((e.channel, value))
        else:
            out.append((e.channel, e.value))
    return out


class ChannelsSpec(StateSpec):
    """The ``StateSpec`` view of a set of named channels read as one value or as a dict."""

    def __init__(self, channels: Mapping[str, BaseChannel], keys: str | Sequence[str]) -> None:
        self.schema = None
        self.single = keys if isinstance(keys, str) else None
        self.key_list = [keys] if isinstance(keys, str) else list(keys)
        self.channels = dict(channels)
        self.fields = {k: Any for k in self.channels}
        self.markers = {k: set() for k in self.channels}
        self.is_root = self.single is not None
        self.is_pydantic = False
        self.is_dataclass = False

    @property
    def result_key(self) -> str | None:
        return self.single

    def to_state(self, values: dict[str, Any]) -> Any:
        if self.single is not None:
            return values.get(self.single)
        return {k: values[k] for k in self.key_list if k in values}

    def present(self, values: dict[str, Any]) -> Any:
        return self.to_state(values)

    def validate_input(self, value: Any) -> dict[str, Any]:
        if self.single is not None:
            return {self.single: value}
        if not isinstance(value, dict):
            raise TypeError(f"Expected a dict input with keys {self.key_list}, got {value!r}")
        return {k: v for k, v in value.items() if k in self.key_list}


class _Mapper:
    """``Pregel.map()``: run the graph once per item of a list input."""

    def __init__(self, graph: Pregel) -> None:
        self.graph = graph

    def invoke(self, items: Sequence[Any], config: dict[str, Any] | None = None) -> list[Any]:
        return [self.graph.invoke(i, config) for i in items]


class Pregel(CompiledStateGraph):
    """A graph of ``NodeBuilder`` nodes over explicit channels."""

    def __init__(
        self,
        *,
        nodes: Mapping[str, NodeBuilder | PregelNode],
        channels: Mapping[str, BaseChannel] | None = None,
        input_channels: str | Sequence[str],
        output_channels: str | Sequence[str],
        stream_channels: str | Sequence[str] | None = None,
        stream_mode: str = "values",
        checkpointer: BaseCheckpointSaver | bool | None = None,
        store: BaseStore | None = None,
        interrupt_before_nodes: Sequence[str] = (),
        interrupt_after_nodes: Sequence[str] = (),
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        context_schema: Any = None,
        debug: bool = False,
        name: str = "LangGraph",
        **_ignored: Any,
    ) -> None:
        self.builder = None  # type: ignore[assignment]
        self.checkpointer = checkpointer
        self.store = store
        self.interrupt_before_nodes = list(interrupt_before_nodes)
        self.interrupt_after_nodes = list(interrupt_after_nodes)
        self.debug = debug
        self.name = name
        self.config = {}
        self.bus = EventBus()
        self.context_schema = context_schema
        self.stream_mode = stream_mode
        user_channels: dict[str, BaseChannel] = {}
        for k, ch in (channels or {}).items():
            ch.key = k
            user_channels[k] = ch
        self.input_channels = input_channels
        self.output_channels = output_channels
        self.stream_channels = (
            stream_channels if stream_channels is not None else list(user_channels)
        )
        self.spec = ChannelsSpec(user_channels, output_channels)
        self.stream_spec = ChannelsSpec(user_channels, self.stream_channels)
        self.input_spec = ChannelsSpec(user_channels, input_channels)
        self.input_keys = list(self.input_spec.key_list)
        self.output_keys = list(self.spec.key_list)
        policies: list[RetryPolicy] = (
            [retry_policy] if isinstance(retry_policy, RetryPolicy) else list(retry_policy or [])
        )
        self.channels = dict(user_channels)
        start = EphemeralValue(Any)
        start.key = START
        self.channels[START] = start
        tasks = Topic(Any, accumulate=False)
        tasks.key = TASKS
        self.channels[TASKS] = tasks
        self.nodes = {
            START: PregelNode(
                name=START, fn=None, triggers=[START], input_keys=[], spec=self.spec, hidden=True
            )
        }
        for node_name, nb in nodes.items():
            if isinstance(nb, PregelNode):
                self.nodes[node_name] = nb
                continue
            self.nodes[node_name] = PregelNode(
                name=node_name,
                fn=nb.runner(),
                triggers=nb.triggers,
                input_keys=nb.reads,
                spec=ChannelsSpec(user_channels, nb._channels),
                retry_policy=[*nb._retry, *policies],
                call_kwargs=frozenset({"config"}),
                is_async=nb.is_async(),
                metadata=dict(nb._metadata),
                write_values=nb.writer_only(),
                timeout=nb.timeout_policy(node_name),
            )
        self._nodes_spec = nodes
        self.validate()

    def validate(self) -> Pregel:
        """Check every node reads, triggers on and writes to channels that exist."""
        known = set(self.channels)
        for name, node in self.nodes.items():
            for c in [*node.triggers, *node.input_keys]:
                if c not in known:
                    raise TypeError(f"Node {name!r} uses channel {c!r}, which does not exist")
        for c in [*self.input_keys, *self.output_keys]:
            if c not in known:
                raise TypeError(f"Channel {c!r} is an input/output channel but does not exist")
        return self

    # -- what the loop asks of a graph ---------------------------------------------------------

    def _input_writes(self, value: Any) -> list[tuple[str, Any]]:
        return list(self.input_spec.validate_input(value).items())

    def _state_values(self, channels: dict[str, BaseChannel]) -> Any:
        keys = self.stream_spec.key_list
        return self.stream_spec.present(
            {k: plain(channels[k].get()) for k in keys if channels[k].is_available()}
        )

    # -- running -------------------------------------------------------------------------------

    def _with_output(self, output_keys: str | Sequence[str] | None) -> Pregel:
        if output_keys is None:
            return self
        clone = copy.copy(self)
        clone.spec = ChannelsSpec(self.spec.channels, output_keys)
        clone.output_keys = list(clone.spec.key_list)
        return clone

    async def ainvoke(self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        kwargs.pop("debug", None)
        target = self._with_output(kwargs.pop("output_keys", None))
        return await CompiledStateGraph.ainvoke(target, input, config, **kwargs)

    async def astream(  # type: ignore[override]
        self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        kwargs.pop("debug", None)
        target = self._with_output(kwargs.pop("output_keys", None))
        if kwargs.get("stream_mode") is None:
            kwargs["stream_mode"] = self.stream_mode
        async for chunk in CompiledStateGraph.astream(target, input, config, **kwargs):
            yield chunk

    def map(self) -> _Mapper:
        """A step for ``NodeBuilder.do`` that runs this graph on each item of a list."""
        return _Mapper(self)

    # -- shape and schemas ---------------------------------------------------------------------

    def get_graph(self, config: Any = None, *, xray: bool | int = False) -> DrawableGraph:
        """The nodes of a low-level ``Pregel`` graph (it has no edges to draw; ``xray`` has
        no subgraph to expand)."""
        g = DrawableGraph(name=self.name)
        for name in self.nodes:
            if name != START:
                g.add_node(name, "node")
        return g

    def _channel_type(self, key: str) -> Any:
        ch = self.channels[key]
        if isinstance(ch, Topic):
            return list[ch.typ]  # type: ignore[name-defined]
        if isinstance(ch, LastValue | BinaryOperatorAggregate | EphemeralValue):
            return ch.typ
        return Any

    def _io_model(self, keys: str | Sequence[str], title: str) -> Any:
        from pydantic import RootModel, create_model

        if isinstance(keys, str):
            return type(title, (RootModel[self._channel_type(keys)],), {})  # type: ignore[misc]
        fields: dict[str, Any] = {k: (self._channel_type(k), None) for k in keys}
        return create_model(title, **fields)

    @property
    def input_schema(self) -> Any:  # type: ignore[override]
        return self._io_model(self.input_channels, "LangGraphInput")

    @property
    def output_schema(self) -> Any:  # type: ignore[override]
        return self._io_model(self.output_channels, "LangGraphOutput")

    def get_input_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.input_schema.model_json_schema()

    def get_output_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.output_schema.model_json_schema()

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        if self.context_schema is None:
            return None
        return schema_json(self.context_schema, None, "Context")

    def __repr__(self) -> str:
        return f"Pregel(name={self.name!r}, nodes={[n for n in self.nodes if n != START]})"
