"""``CompiledStateGraph``: run a graph (invoke / stream / events) and read its threads' state."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal

from engine.core import foreign
from engine.core.aio import run_sync
from engine.core.batch import per_input
from engine.core.execution import RunControl, coerce_context
from engine.core.ids import new_run_id
from engine.errors import RunStopped
from engine.events import EventBase
from engine.graph.assemble import compile_nodes, draw
from engine.graph.builder import ContextT, InputT, OutputT, StateT
from engine.graph.channels import BaseChannel
from engine.graph.drawing import DrawableGraph
from engine.graph.events_api import EventsAPI
from engine.graph.loop import PregelLoop
from engine.graph.print_mode import printed_modes, printer
from engine.graph.remade import Remake, made_for_run
from engine.graph.run_config import interrupt_list, merge_config, under_caller
from engine.graph.runtime import RunContext, TaskContext, reset_run, set_run
from engine.graph.schemas_api import SchemasAPI
from engine.graph.state import StateSpec
from engine.graph.state_api import StateAPI
from engine.graph.stream_api import StreamAPI
from engine.graph.subgraph import calling_task, run_nested_sync, run_subgraph
from engine.observe.bus import EventBus, RunEmitter, Subscription
from engine.observe.callbacks import NodeRunCallbacks, handlers_from
from engine.observe.run_span import run_span
from engine.types import START, StreamMode

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.builder import StateGraph
    from engine.observe.gate import Gate
    from engine.store import BaseStore

__all__ = ["CompiledStateGraph", "RunStopped"]


async def _run_traced(loop: PregelLoop, config: dict[str, Any], name: str, input: Any) -> Any:
    """Run a top-level graph to its end; handlers in ``config["callbacks"]`` see it as one run
    (named after the graph) whose children are its tasks."""
    handlers = handlers_from(config)
    if not handlers:
        return await loop.run_to_end()
    callbacks = NodeRunCallbacks(handlers, name, None, config)
    callbacks.start(input)
    try:
        with callbacks.active():
            output = await loop.run_to_end()
    except BaseException as exc:
        callbacks.error(exc)
        raise
    callbacks.end(output)
    return output


class CompiledStateGraph(
    StateAPI, EventsAPI, SchemasAPI, StreamAPI, Generic[StateT, ContextT, InputT, OutputT]
):
    """A runnable graph. Create it with ``StateGraph.compile()``."""

    default_recursion_limit = 10_007
    """The superstep limit of a run whose config gives none (LangGraph's default since 1.2)."""
    loop_class: type[PregelLoop] = PregelLoop
    """The loop that runs this graph (the functional API's entrypoints use a subclass)."""
    cache: Any = None
    """The node-result cache (``compile(cache=...)``); see ``engine.cache``."""
    remake: Remake | None = None
    """Made by a graph factory (``langgraph.json``): how to make the graph again for a run
    (``engine.graph.remade``); set by the loader."""
    made_saver: Any = None
    """The checkpointer the factory's graph had when it was loaded (see ``remake``)."""
    stream_mode: Any = "updates"
    """What ``stream`` gives without a ``stream_mode`` (LangGraph's ``graph.stream_mode``)."""
    input_channels: Any = START
    """Where a run's input goes (LangGraph's ``input_channels``: the START node's channel)."""
    stream_spec: Any = None
    """The keys the ``values`` and ``updates`` streams show, or None: the state's."""
    output_spec: Any = None
    """The keys a run shows (``output_keys=``), or None: the output schema's (see
    ``_with_output_keys``)."""
    step_timeout: float | None = None
    """Seconds a superstep may take (``graph.step_timeout = 10``); past it the step's tasks
    are cancelled and the run raises ``TimeoutError``, as LangGraph's does."""

    def __init__(
        self,
        builder: StateGraph,
        *,
        checkpointer: BaseCheckpointSaver | bool | None,
        store: BaseStore | None,
        interrupt_before: list[str],
        interrupt_after: list[str],
        debug: bool,
        name: str,
    ) -> None:
        self.builder = builder
        self.checkpointer: Any = checkpointer
        self.store = store
        self.interrupt_before_nodes = interrupt_before
        self.interrupt_after_nodes = interrupt_after
        self.debug = debug
        self.name = name
        self.config: dict[str, Any] = {}
        self.stream_transformers: tuple[Any, ...] = ()
        """Stream transformer factories every ``stream_events(version="v3")`` run registers
        (after the built-ins; ``engine.graph.run_stream``)."""
        self.bus = EventBus()
        self.spec = StateSpec(builder.state_schema)
        self.channels: dict[str, BaseChannel] = dict(self.spec.channels)
        in_keys = (
            list(StateSpec(builder.input_schema).fields)
            if builder.input_schema
            else self.spec.input_keys()
        )
        out_keys = (
            list(StateSpec(builder.output_schema).fields)
            if builder.output_schema
            else self.spec.output_keys()
        )
        for extra in (builder.input_schema, builder.output_schema):
            if extra is not None:
                for k, ch in StateSpec(extra).channels.items():
                    self.channels.setdefault(k, ch)
        self.input_keys = in_keys
        self.output_keys = out_keys
        stream_keys = list(self.channels)
        self.nodes = compile_nodes(self.builder, self.spec, self.channels)
        for node in self.nodes.values():  # a node's own input schema adds its keys (private)
            stream_keys += [k for k in node.spec.channels if k not in stream_keys]
        self.stream_keys = stream_keys
        """Every key of the state, the input and output schemas and the nodes' own schemas
        (private keys): what the ``values`` stream and ``get_state`` show, as LangGraph's
        stream channels; ``invoke`` returns the output keys only."""

    # -- drawing -----------------------------------------------------------------------------

    def get_graph(self, config: Any = None, *, xray: bool | int = False) -> DrawableGraph:
        """The graph's shape (nodes, static and conditional edges), available before any run.
        ``xray``: draw subgraphs inside their nodes (True: all levels; a number: that many)."""
        g = draw(self.builder, self.name, self.interrupt_before_nodes, self.interrupt_after_nodes)
        if not xray:
            return g
        deeper = xray if isinstance(xray, bool) else xray - 1
        for name, node in self.nodes.items():
            for sub in node.subgraphs:
                if hasattr(sub, "get_graph"):
                    g.inline(name, sub.get_graph(xray=deeper))
        return g

    # -- cache -------------------------------------------------------------------------------

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget the cached results of ``nodes`` (default: every node with a cache policy)."""
        run_sync(self.aclear_cache(nodes))

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        if self.cache is None:
            return
        names = [n for n, node in self.nodes.items() if node.cache_policy is not None]
        if nodes is not None:
            names = [n for n in names if n in nodes]
        await self.cache.aclear([("__node__", n) for n in names])

    def _input_writes(self, value: Any) -> list[tuple[str, Any]]:
        """The writes that hand a run's input to the graph (the START node reads it)."""
        return [(START, value)]

    # -- config ------------------------------------------------------------------------------

    def with_config(
        self, config: dict[str, Any] | None = None, **kwargs: Any
    ) -> CompiledStateGraph:
        clone = copy.copy(self)
        clone.config = merge_config(self.config, {**(config or {}), **kwargs})
        return clone

    def subscribe(self, callback: Callable[[EventBase], Any]) -> Subscription:
        """Receive every event of every run of this graph (also runs started elsewhere)."""
        return self.bus.subscribe(callback)

    def _context_schema(self) -> Any:
        own = getattr(self, "context_schema", None)
        return own if own is not None else getattr(self.builder, "context_schema", None)

    def _saver(self) -> BaseCheckpointSaver | None:
        cp = self.checkpointer
        return cp if cp not in (None, True, False) else None

    # -- running -----------------------------------------------------------------------------

    async def _arun(
        self,
        input: Any,
        config: dict[str, Any] | None,
        *,
        stream: Callable[[str, Any, str], None] | None = None,
        stream_modes: Sequence[str] = (),
        debugger: Gate | None = None,
        extra_buses: Sequence[EventBus] = (),
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: str | None = None,
        sync_call: bool = False,
        control: RunControl | None = None,
        streams_nested: bool = True,
        pace: Callable[[], Awaitable[None]] | None = None,
    ) -> Any:
        foreign.meet_loaded_libraries()  # e.g. langchain models in nodes take our messages
        caller = calling_task(config)
        if caller is not None:  # a node of a running graph calls us: run as its subgraph
            return await run_subgraph(
                self,
                input,
                caller,
                caller.loop,
                config=merge_config(self.config, config or {}),
                stream=stream,
                stream_modes=frozenset(stream_modes),
            )
        if self.remake is not None:  # made by a graph factory: made again for this run
            async with made_for_run(self, self.remake, config, context) as made:
                return await made._arun(
                    input,
                    config,
                    stream=stream,
                    stream_modes=stream_modes,
                    debugger=debugger,
                    extra_buses=[self.bus, *extra_buses],
                    context=context,
                    interrupt_before=interrupt_before,
                    interrupt_after=interrupt_after,
                    durability=durability,
                    sync_call=sync_call,
                    control=control,
                    streams_nested=streams_nested,
                    pace=pace,
                )
        cfg = merge_config(self.config, config or {})
        context = coerce_context(self._context_schema(), context)
        conf = cfg.setdefault("configurable", {})
        if debugger is None:
            debugger = conf.get("debugger") or cfg.get("debugger")
        run_id = str(cfg.get("run_id") or new_run_id())
        thread_id = conf.get("thread_id")
        em = RunEmitter(
            run_id,
            None if thread_id is None else str(thread_id),
            [self.bus, *extra_buses],
            debugger,
        )
        saver = self._saver()
        run = RunContext(
            run_id=run_id,
            emitter=em,
            store=self.store,
            context=context,
            checkpointer=saver,
            debugger=debugger,
            sync_call=sync_call,
            stream=stream,
            stream_modes=frozenset(stream_modes),
            streams_nested=streams_nested,
            model_override=conf.get("model_override"),
            control=control,
            pace=pace,
        )
        ib = interrupt_list(interrupt_before, self.interrupt_before_nodes)
        ia = interrupt_list(interrupt_after, self.interrupt_after_nodes)
        run_token = set_run(run)
        em_token = em.bind()
        try:
            async with run_span(
                em,
                run,
                graph=self.name,
                input=input,
                resumed=input is None or type(input).__name__ == "Command",
                config={
                    "thread_id": thread_id,
                    "checkpoint_id": conf.get("checkpoint_id"),
                    "recursion_limit": cfg.get("recursion_limit", self.default_recursion_limit),
                },
                gate=debugger,
                lease=saver,
            ) as span:
                loop = self.loop_class(
                    self,
                    input=input,
                    config=cfg,
                    run=run,
                    checkpointer=saver,
                    interrupt_before=ib,
                    interrupt_after=ia,
                    durability=durability or cfg.get("durability") or "async",
                )
                span.output = await _run_traced(loop, cfg, self.name, input)
                span.interrupted = loop.status != "done"
            return span.output
        finally:
            em.unbind(em_token)
            reset_run(run_token)

    async def _arun_as_subgraph(
        self, input: Any, parent: TaskContext, parent_loop: PregelLoop
    ) -> Any:
        own = under_caller(self.config, parent.config) if self.config else None
        return await run_subgraph(self, input, parent, parent_loop, config=own)

    async def ainvoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: str | None = None,
        debugger: Gate | None = None,
        stream_mode: StreamMode | Sequence[StreamMode] = "values",
        version: Literal["v1", "v2"] = "v1",
        **kwargs: Any,
    ) -> Any:
        """Run to the end (or to an interrupt) and return the final state values; with another
        ``stream_mode`` (or a list of modes), the list of chunks ``astream`` would give.
        ``version="v2"``: a ``GraphOutput`` (the values, the interrupts apart), or the list of
        v2 stream parts (``engine.graph.stream_parts``).  With ``subgraphs``, the output is
        read from the stream of every graph's values, as LangGraph reads it (the last values
        of any graph, the interrupts of all)."""
        subgraphs = kwargs.pop("subgraphs", False)
        printed = printed_modes(self, kwargs.pop("print_mode", ()), kwargs.pop("debug", None))
        view = self._with_output_keys(kwargs.pop("output_keys", None))
        if stream_mode != "values" or subgraphs:
            from engine.graph.stream_parts import output_from_stream, values_stream_modes

            values = stream_mode == "values"
            chunks = view.astream(
                input,
                config,
                stream_mode=values_stream_modes(version) if values else stream_mode,
                subgraphs=subgraphs,
                context=context,
                interrupt_before=interrupt_before,
                interrupt_after=interrupt_after,
                durability=durability,
                debugger=debugger,
                _sync_call=kwargs.pop("_sync_call", False),
                control=kwargs.pop("control", None),
                version=version,
                print_mode=printed,
            )
            if values:
                return await output_from_stream(chunks, version)
            return [chunk async for chunk in chunks]
        output = await view._arun(
            input,
            config,
            context=context,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            durability=durability,
            debugger=debugger,
            sync_call=kwargs.pop("_sync_call", False),
            control=kwargs.pop("control", None),
            stream=printer if printed else None,
            stream_modes=printed,
        )
        if version == "v2":
            from engine.graph.stream_parts import graph_output, mappers_of

            return graph_output(output, mappers_of(self)[0])
        return output

    def invoke(self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        caller = calling_task()
        if caller is not None:
            return run_nested_sync(lambda: self.ainvoke(input, config, **kwargs), caller)
        return run_sync(self.ainvoke(input, config, _sync_call=True, **kwargs))

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``ainvoke`` each input concurrently (one config for all, or one per input)."""
        if not inputs:
            return []
        configs = per_input(inputs, config)
        runs = [self.ainvoke(i, c, **kwargs) for i, c in zip(inputs, configs, strict=True)]
        return list(await asyncio.gather(*runs, return_exceptions=return_exceptions))

    def batch(
        self,
        inputs: Sequence[Any],
        config: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> list[Any]:
        return run_sync(self.abatch(inputs, config, _sync_call=True, **kwargs))

    def _with_output_keys(self, keys: str | Sequence[str] | None) -> CompiledStateGraph:
        """This graph with a run's ``output_keys``: the keys its output, ``values`` and
        ``updates`` show (a single key's value bare), as LangGraph's ``output_keys=``."""
        if keys is None:
            return self
        from engine.graph.pregel_api import ChannelsSpec

        names = [keys] if isinstance(keys, str) else list(keys)
        spec = ChannelsSpec({k: self.channels[k] for k in names}, keys)
        view = copy.copy(self)
        view.stream_spec = view.output_spec = spec
        view.output_keys = names
        return view

    def copy(self, update: dict[str, Any] | None = None) -> CompiledStateGraph:
        """A shallow copy of this compiled graph, with ``update`` applied to its attributes."""
        clone = copy.copy(self)
        for k, v in (update or {}).items():
            setattr(clone, k, v)
        return clone
