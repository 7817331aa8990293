"""``AttachedGraph``: a user's real compiled LangGraph graph, run on the installed libraries,
with the API the studio and the CLI use on our graphs (events, drawing, state, resume)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from engine.aio import aiter_thread, iter_sync, run_sync
from engine.attach.state import AttachedState
from engine.bus import EventBus, RunEmitter, Subscription, drain_events
from engine.events import ErrorInfo, EventBase, InterruptResumed, RunFinished, RunStarted
from engine.graph.drawing import DrawableGraph
from engine.ids import new_run_id
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.attach.mirror import CheckpointMirror
    from engine.debug import Debugger

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


class _StateReader:
    """Stands in for the engine loop the debugger reads the committed state from."""

    def __init__(self, graph: Any, config: dict[str, Any]) -> None:
        self.graph = graph
        self.config = config

    def _values(self) -> Any:
        if getattr(self.graph, "checkpointer", None) in (None, True, False):
            return None
        conf = {
            k: v for k, v in self.config.get("configurable", {}).items() if k != "checkpoint_id"
        }
        return self.graph.get_state({"configurable": conf}).values


class _RunInfo:
    """What ``Debugger._attach`` needs of a run (attached runs have no engine loop)."""

    def __init__(self, run_id: str, loop: _StateReader | None = None) -> None:
        self.run_id = run_id
        self.loop = loop


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
        self, input: Any, config: dict[str, Any] | None, debugger: Debugger | None,
        extra: list[EventBus],
    ) -> Any:  # fmt: skip
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
        if debugger is not None:
            info = _RunInfo(run_id, _StateReader(self.real, cfg))
            debugger._attach(info, asyncio.current_task())  # type: ignore[arg-type]
        t0 = time.perf_counter()
        status, error, output = "done", None, None
        await em.emit(
            RunStarted,
            span_id=run_id,
            parent_span_id=None,
            graph=self.name,
            input=to_jsonable(input, max_str=4000, max_items=20),
            resumed=resumed,
            config={"thread_id": thread_id, "checkpoint_id": conf.get("checkpoint_id")},
        )
        try:
            resume = getattr(real_input, "resume", None)
            if resumed and resume is not None:
                await em.emit(InterruptResumed, parent_span_id=run_id, value=to_jsonable(resume))
            async for ns, mode, data in self._stream(real_input, cfg):
                await tr.part(tuple(ns), mode, data)
            await tr.close_open_steps()
            if tr.interrupts:
                status = "interrupted"
            output = tr.values if self.checkpointer in (None, False, True) else None
            if output is None:
                output = await self._values(cfg)
            return output
        except asyncio.CancelledError:
            status = "cancelled"
            if debugger is not None and debugger.stop_requested:
                from engine.graph.compiled import RunStopped

                raise RunStopped("The run was stopped; the last checkpoint is intact.") from None
            raise
        except BaseException as exc:
            status = "cancelled" if type(exc).__name__ == "RunStopped" else "error"
            error = exc
            raise
        finally:
            ACTIVE.reset(active)
            if debugger is not None:
                debugger._run = None
                debugger._task = None
            await em.emit_ungated(
                RunFinished,
                span_id=run_id,
                parent_span_id=None,
                status=status,  # type: ignore[arg-type]
                output=to_jsonable(output, max_str=2000, max_items=20),
                error=ErrorInfo.from_exception(error, with_traceback=True) if error else None,
                duration_ms=(time.perf_counter() - t0) * 1000,
                step=None,
            )

    def _stream(self, real_input: Any, cfg: dict[str, Any]) -> AsyncIterator[Any]:
        """LangGraph's stream of the run: ``astream``, or ``stream`` on a worker thread."""
        run = self.instrumented.graph
        kw: dict[str, Any] = {
            "stream_mode": [*STREAM_MODES, "messages"] if self.stream_tokens else STREAM_MODES,
            "subgraphs": True,
        }
        if self.sync:
            return aiter_thread(lambda: run.stream(real_input, cfg, **kw))
        return run.astream(real_input, cfg, **kw)  # type: ignore[no-any-return]

    async def _values(self, cfg: dict[str, Any]) -> Any:
        if self.checkpointer in (None, False, True):
            return None
        snap = await self.aget_state(cfg)
        return snap.values

    async def ainvoke(
        self, input: Any, config: dict[str, Any] | None = None, *, debugger: Debugger | None = None
    ) -> Any:
        return await self._arun(input, config, debugger, [])

    def invoke(
        self, input: Any, config: dict[str, Any] | None = None, *, debugger: Debugger | None = None
    ) -> Any:
        return run_sync(self.ainvoke(input, config, debugger=debugger))

    async def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Debugger | None = None,
        **_: Any,
    ) -> AsyncIterator[EventBase]:
        """Run and yield every event of the run (ours, translated from LangGraph's)."""
        local = EventBus()
        sink = local.add_sink()
        task = asyncio.ensure_future(self._arun(input, config, debugger, [local]))
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
