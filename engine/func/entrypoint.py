"""``@entrypoint``: a function run as a one-node Pregel graph (the functional API).

The graph has three channels: ``__start__`` (the input), ``__end__`` (the return value) and
``__previous__`` (what the function saved for the next run on the same thread).  The one node
is the function; every ``@task`` it calls is a push task of the same superstep.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args, get_origin

from engine.func.constants import PREVIOUS
from engine.func.inject import injected_kwargs, params_of, settle, settle_async
from engine.func.loop import EntrypointLoop, EntrySpec
from engine.graph.algo import PregelNode
from engine.graph.builder import sync_timeout_error
from engine.graph.channels import BaseChannel, EphemeralValue, LastValue
from engine.graph.compiled import CompiledStateGraph
from engine.graph.drawing import DrawableGraph
from engine.graph.runtime import current_task
from engine.observe.bus import EventBus
from engine.types import END, START, RetryPolicy, TimeoutLike, coerce_timeout

if TYPE_CHECKING:
    from engine.cache import BaseCache, CachePolicy
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.store import BaseStore

__all__ = ["EntrypointGraph", "entrypoint"]

ContextT = TypeVar("ContextT")
R = TypeVar("R")
S = TypeVar("S")


class EntrypointGraph(CompiledStateGraph):
    """The runnable an ``@entrypoint`` makes: ``invoke``/``stream``/``get_state`` like a graph."""

    loop_class = EntrypointLoop

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        checkpointer: BaseCheckpointSaver | bool | None,
        store: BaseStore | None,
        cache: BaseCache | None,
        context_schema: Any,
        retry_policy: list[RetryPolicy],
        cache_policy: CachePolicy | None,
        timeout: TimeoutLike = None,
    ) -> None:
        self.builder = None  # type: ignore[assignment]
        self.func = func
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.context_schema = context_schema
        self.interrupt_before_nodes = []
        self.interrupt_after_nodes = []
        self.debug = False
        self.name = getattr(func, "__name__", "entrypoint")
        self.config = {}
        self.bus = EventBus()
        self.spec = EntrySpec()
        self.input_type, self.output_type = _io_types(func)
        self.channels: dict[str, BaseChannel] = {
            START: EphemeralValue(Any),
            END: LastValue(Any),
            PREVIOUS: LastValue(Any),
        }
        for k, ch in self.channels.items():
            ch.key = k
        self.input_keys = [START]
        self.output_keys = [END]
        self.nodes = {
            START: PregelNode(
                name=START, fn=None, triggers=[], input_keys=[], spec=self.spec, hidden=True
            ),
            self.name: PregelNode(
                name=self.name,
                fn=_node_fn(func),
                triggers=[START],
                input_keys=[START, PREVIOUS],
                spec=self.spec,
                retry_policy=retry_policy,
                is_async=inspect.iscoroutinefunction(func),
                metadata={"kind": "entrypoint"},
                cache_policy=cache_policy,
                timeout=timeout,
                writer=_entry_writes,
                update_key=END,
                inline_ok=False,
                callback_input=lambda inp: inp.get(START) if isinstance(inp, dict) else inp,
            ),
        }

    def get_graph(self, config: Any = None, *, xray: bool | int = False) -> DrawableGraph:
        """START -> the entrypoint -> END (``xray`` has nothing to expand: an entrypoint's
        tasks are not nodes)."""
        g = DrawableGraph(name=self.name)
        g.add_node(START, "start")
        g.add_node(self.name, "node", functional="entrypoint")
        g.add_node(END, "end")
        g.add_edge(START, self.name)
        g.add_edge(self.name, END)
        return g

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """As LangGraph names an entrypoint's graph: ``LangGraph`` (its ``name`` stays the
        function's, which its node and every event it reports carry)."""
        return super().get_name(suffix, name=name or "LangGraph")

    def _infer_as_node(self, checkpoint: Any) -> str:
        return self.name  # an update is always "as if the function had returned it"

    def _state_values(self, channels: dict[str, BaseChannel]) -> Any:
        ch = channels.get(END)
        return ch.get() if ch is not None and ch.is_available() else None

    # -- JSON schemas ----------------------------------------------------------------------

    def get_input_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return _json_schema(self.input_type, "LangGraphInput")

    def get_output_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return _json_schema(self.output_type, "LangGraphOutput")

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        if self.context_schema is None:
            return None
        return _json_schema(self.context_schema, "Context")


def _json_schema(tp: Any, title: str) -> dict[str, Any]:
    from pydantic import TypeAdapter

    schema = TypeAdapter(tp).json_schema()
    schema.setdefault("title", title)
    return schema


def _io_types(func: Callable[..., Any]) -> tuple[Any, Any]:
    sig = inspect.signature(func)
    first = next(iter(sig.parameters.values()), None)
    if first is None:
        raise ValueError("Entrypoint function must have at least one parameter")
    in_t = Any if first.annotation is inspect.Signature.empty else first.annotation
    ret = sig.return_annotation
    out_t: Any = Any
    if ret is not inspect.Signature.empty and ret is not entrypoint.final:
        if get_origin(ret) is entrypoint.final:
            type_args = get_args(ret)
            if len(type_args) != 2:
                raise TypeError("entrypoint.final needs two type arguments: [return, save]")
            out_t = type_args[0]
        else:
            out_t = ret
    return in_t, out_t


def _entry_writes(output: Any) -> list[tuple[str, Any]]:
    if isinstance(output, entrypoint.final):
        return [(END, output.value), (PREVIOUS, output.save)]
    return [(END, output), (PREVIOUS, output)]


def _node_fn(func: Callable[..., Any]) -> Callable[[dict[str, Any]], Any]:
    sig = params_of(func)
    if inspect.iscoroutinefunction(func):

        async def run_async(values: dict[str, Any]) -> Any:
            inp = values.get(START)
            kwargs = injected_kwargs(sig, (inp,), {}, previous=values.get(PREVIOUS))
            try:
                return await func(inp, **kwargs)
            finally:
                await settle_async(current_task())

        return run_async

    def run_sync(values: dict[str, Any]) -> Any:
        inp = values.get(START)
        kwargs = injected_kwargs(sig, (inp,), {}, previous=values.get(PREVIOUS))
        try:
            return func(inp, **kwargs)
        finally:
            settle(current_task())

    return run_sync


class entrypoint(Generic[ContextT]):
    """Make a function a workflow: ``@entrypoint(checkpointer=...)`` over ``def f(input)``.

    The function takes one input; it may also declare ``previous`` (what the last run on
    the thread returned or saved), ``config``, ``runtime``, ``store`` and ``writer``.  Return
    ``entrypoint.final(value=..., save=...)`` to return one thing and save another.
    """

    def __init__(
        self,
        checkpointer: BaseCheckpointSaver | bool | None = None,
        store: BaseStore | None = None,
        cache: BaseCache | None = None,
        context_schema: Any = None,
        cache_policy: CachePolicy | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        timeout: TimeoutLike = None,
        **kwargs: Any,
    ) -> None:
        self.timeout = coerce_timeout(timeout)
        if "config_schema" in kwargs and context_schema is None:
            context_schema = kwargs.pop("config_schema")
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.context_schema = context_schema
        self.cache_policy = cache_policy
        if retry_policy is None:
            self.retry_policy: list[RetryPolicy] = []
        elif isinstance(retry_policy, RetryPolicy):
            self.retry_policy = [retry_policy]
        else:
            self.retry_policy = list(retry_policy)

    @dataclass
    class final(Generic[R, S]):
        """Return ``value`` to the caller and save ``save`` as the next run's ``previous``."""

        value: R
        save: S

    def __call__(self, func: Callable[..., Any]) -> EntrypointGraph:
        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            raise NotImplementedError("Generators are not supported in the Functional API.")
        if self.timeout is not None and not inspect.iscoroutinefunction(func):
            raise sync_timeout_error(getattr(func, "__name__", "entrypoint"), "Entrypoint")
        return EntrypointGraph(
            func,
            checkpointer=self.checkpointer,
            store=self.store,
            cache=self.cache,
            context_schema=self.context_schema,
            retry_policy=self.retry_policy,
            cache_policy=self.cache_policy,
            timeout=self.timeout,
        )
