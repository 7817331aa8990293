"""``AttachedGraph``: a user's real compiled LangGraph graph, run on the installed libraries,
with the API the studio and the CLI use on our graphs (events, drawing, state, resume)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from engine.attach.state import AttachedState
from engine.core.aio import aiter_thread, iter_sync, run_sync
from engine.core.ids import new_run_id
from engine.events import EventBase, InterruptResumed
from engine.graph.drawing import DrawableGraph
from engine.observe.bus import EventBus, RunEmitter, Subscription, drain_events
from engine.observe.run_span import run_span
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.attach.mirror import CheckpointMirror
    from engine.observe.gate import Gate

__all__ = ["STREAM_MODES", "AttachedGraph"]

STREAM_MODES = ["values", "updates", "checkpoints", "custom"]
"""LangGraph streams an attached run asks for.  With ``stream_tokens=True`` it also asks for
``messages``, which makes LangGraph stream chat models, so their tokens reach our callbacks as
``model.token`` events (off by default: the app is called as it calls itself)."""


def _sync_only_saver(saver: Any) -> bool:
    """Does ``saver`` refuse the async API (its ``aget_tuple`` only raises
    ``NotImplementedError``, as LangGraph's sync savers do)?"""
    method = getattr(type(saver), "aget_tuple", None)
    code = getattr(method, "__code__", None)
    if code is None:
        return False
    names = set(code.co_names)
    return "NotImplementedError" in names and len(names) <= 2


class _RunInfo:
    """What the debugger may know of an attached run (``RunView``): the committed state is read
    back from the app's checkpointer."""

    def __init__(self, run_id: str, graph: Any, config: dict[str, Any]) -> None:
        self.run_id = run_id
        self.graph = graph
        self.config = config

    def committed_state(self) -> dict[str, Any] | None:
        if getattr(self.graph, "checkpointer", None) in (None, True, False):
            return None
        conf = {
            k: v for k, v in self.config.get("configurable", {}).items() if k != "checkpoint_id"
        }
        return self.graph.get_state({"configurable": conf}).values  # type: ignore[no-any-return]


class AttachedGraph(AttachedState):
    """Wraps ``graph`` (a ``langgraph`` ``CompiledStateGraph`` / ``Pregel``); never changes it."""

    runtime = "langgraph"

    def __init__(
        self,
        graph: Any,
        *,
        name: str | None = None,
        stream_tokens: bool = False,
        sync: bool | None = None,
    ) -> None:
        from engine.attach.secrets import register_live_models
        from engine.attach.wrappers import instrument

        self.real = graph
        self.name = name or str(getattr(graph, "name", None) or "graph")
        self.stream_tokens = stream_tokens
        self.bus = EventBus()
        self.instrumented = instrument(graph)
        register_live_models()  # the app's LangChain models: their credentials are scrubbed
        """The copy of ``graph`` that runs (its create_agent middleware layers emit events) and
        what was learnt of its middleware."""
        self._sync = sync
        self.sync = self._choose_sync(sync)
        """Run with LangGraph's sync ``stream`` (on a worker thread) instead of ``astream``."""
        self.mirrors: list[CheckpointMirror] = []
        self._announced: set[tuple[str | None, str, str]] = set()

    def notices(self) -> list[str]:
        """What the user should know about how this app is seen (one line each)."""
        return [
            f"the middleware of node {where!r} could not be seen into (this LangChain composes it "
            "differently): its model and tool calls show directly under the node"
            for where in self.instrumented.blind
        ]

    def _choose_sync(self, sync: bool | None) -> bool:
        """``sync`` when given; else sync only when the app cannot run under ``astream``: some
        middleware has only sync ``wrap_*`` methods (and none only async ones), or the graph's
        checkpointer is sync only (LangGraph's ``SqliteSaver`` and ``PostgresSaver``)."""
        if sync is not None:
            return sync
        if self.instrumented.async_only:
            return False
        return bool(self.instrumented.sync_only) or _sync_only_saver(self.checkpointer)

    # -- shape -------------------------------------------------------------------------------

    @property
    def nodes(self) -> dict[str, Any]:
        return dict(getattr(self.real, "nodes", {}) or {})

    @property
    def channels(self) -> dict[str, Any]:
        return dict(getattr(self.real, "channels", {}) or {})

    @property
    def input_keys(self) -> list[str]:
        keys = getattr(self.real, "input_channels", None)
        if isinstance(keys, str):
            return [keys]
        return list(keys or self.channels)

    @property
    def checkpointer(self) -> Any:
        return getattr(self.real, "checkpointer", None)

    def with_checkpointer(self, saver: Any) -> AttachedGraph:
        """A wrapper of a copy of the graph that saves to ``saver`` (a LangGraph saver)."""
        return self._rewrapped(self.real.copy(update={"checkpointer": saver}))

    def with_options(self, *, stream_tokens: bool | None = None) -> AttachedGraph:
        """A wrapper of the same graph with other options."""
        return self._rewrapped(self.real, stream_tokens)

    def _rewrapped(self, real: Any, stream_tokens: bool | None = None) -> AttachedGraph:
        again = AttachedGraph(
            real,
            name=self.name,
            stream_tokens=self.stream_tokens if stream_tokens is None else stream_tokens,
            sync=self._sync,
        )
        again.mirrors = list(self.mirrors)
        return again

    def mirror_checkpoints(self, saver: Any) -> None:
        """Copy every checkpoint of the runs from now on into ``saver`` too (a session file's:
        the recorder asks, so attach-mode sessions replay offline with their states)."""
        from engine.attach.mirror import CheckpointMirror

        if all(m.saver is not saver for m in self.mirrors):
            self.mirrors.append(CheckpointMirror(saver))

    def get_graph(self, xray: bool | int = False) -> DrawableGraph:
        from engine.attach.translate import draw_real

        return draw_real(self.real, self.name, self.instrumented.wrappers)

    def subscribe(self, callback: Callable[[EventBase], Any]) -> Subscription:
        return self.bus.subscribe(callback)

    # -- running -----------------------------------------------------------------------------

    async def _arun(
        self,
        input: Any,
        config: dict[str, Any] | None,
        debugger: Gate | None,
        extra: list[EventBus],
        context: Any = None,
    ) -> Any:
        from engine.attach.base import ACTIVE
        from engine.attach.callbacks import AttachCallbacks, SyncAttachCallbacks
        from engine.attach.translate import StreamTranslator, to_real_input

        cfg = dict(config or {})
        conf = dict(cfg.get("configurable") or {})
        if debugger is None:
            debugger = conf.pop("debugger", None) or cfg.pop("debugger", None)
        conf.pop("debugger", None)
        cfg["configurable"] = conf
        run_id = str(cfg.pop("run_id", None) or new_run_id())
        thread_id = conf.get("thread_id")
        em = RunEmitter(
            run_id, None if thread_id is None else str(thread_id), [self.bus, *extra], debugger
        )
        em.active = True
        cb = AttachCallbacks(em, run_id)
        active = ACTIVE.set(cb)
        tr = StreamTranslator(cb, self.mirrors, self._announced)
        handler = SyncAttachCallbacks(cb) if self.sync else cb
        cfg["callbacks"] = [*(cfg.get("callbacks") or []), handler]
        real_input = to_real_input(input)
        resumed = type(real_input).__name__ == "Command" or input is None
        try:
            async with run_span(
                em,
                _RunInfo(run_id, self.real, cfg),
                graph=self.name,
                input=input,
                resumed=resumed,
                config={"thread_id": thread_id, "checkpoint_id": conf.get("checkpoint_id")},
                gate=debugger,
            ) as span:
                resume = getattr(real_input, "resume", None)
                if resumed and resume is not None:
                    await em.emit(
                        InterruptResumed, parent_span_id=run_id, value=to_jsonable(resume)
                    )
                async for ns, mode, data in self._stream(real_input, cfg, context):
                    await tr.part(tuple(ns), mode, data)
                await tr.close_open_steps()
                span.interrupted = bool(tr.interrupts)
                output = tr.values if self.checkpointer in (None, False, True) else None
                span.output = output if output is not None else await self._values(cfg)
            return span.output
        finally:
            ACTIVE.reset(active)

    def _stream(self, real_input: Any, cfg: dict[str, Any], context: Any) -> AsyncIterator[Any]:
        """LangGraph's stream of the run: ``astream``, or ``stream`` on a worker thread."""
        run = self.instrumented.graph
        kw: dict[str, Any] = {
            "stream_mode": [*STREAM_MODES, "messages"] if self.stream_tokens else STREAM_MODES,
            "subgraphs": True,
        }
        if context is not None:
            kw["context"] = context
        if self.sync:
            return aiter_thread(lambda: run.stream(real_input, cfg, **kw))
        return run.astream(real_input, cfg, **kw)  # type: ignore[no-any-return]

    async def _values(self, cfg: dict[str, Any]) -> Any:
        if self.checkpointer in (None, False, True):
            return None
        snap = await self.aget_state(cfg)
        return snap.values

    async def ainvoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
    ) -> Any:
        return await self._arun(input, config, debugger, [], context)

    def invoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
    ) -> Any:
        return run_sync(self.ainvoke(input, config, debugger=debugger, context=context))

    async def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
        **_: Any,
    ) -> AsyncIterator[EventBase]:
        """Run and yield every event of the run (ours, translated from LangGraph's)."""
        local = EventBus()
        sink = local.add_sink()
        task = asyncio.ensure_future(self._arun(input, config, debugger, [local], context))
        task.add_done_callback(lambda _t: local.close_streams())
        try:
            async for ev in drain_events(sink, task):
                yield ev
        finally:
            local.remove_sink(sink)

    def stream_events(
        self, input: Any, config: dict[str, Any] | None = None, **kw: Any
    ) -> Iterator[EventBase]:
        return iter_sync(self.astream_events(input, config, **kw))
