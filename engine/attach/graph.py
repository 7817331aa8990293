"""``AttachedGraph``: a user's real compiled LangGraph graph, run on the installed libraries,
with the API the studio and the CLI use on our graphs (events, drawing, state, resume)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.attach.graph_runs import AttachedRuns
from engine.attach.routes import RouteBook
from engine.attach.run import STREAM_MODES, stream_modes
from engine.attach.state import AttachedState
from engine.attach.unknown_saves import UnknownSaves
from engine.events import EventBase
from engine.graph.drawing import DrawableGraph
from engine.observe.bus import EventBus, Subscription

if TYPE_CHECKING:
    from engine.attach.factory import GraphFactory
    from engine.attach.mirror import CheckpointMirror

__all__ = ["STREAM_MODES", "AttachedGraph", "stream_modes"]


def _xrayed(drawn: DrawableGraph, real: Any, xray: bool | int) -> DrawableGraph:
    """``drawn`` with the subgraphs of ``real``'s nodes drawn inside them, ``xray`` deep."""
    from engine.attach.drawing import draw_real

    if not xray:
        return drawn
    deeper = xray if isinstance(xray, bool) else xray - 1
    for name, node in (getattr(real, "nodes", None) or {}).items():
        for sub in getattr(node, "subgraphs", None) or ():
            drawn.inline(name, _xrayed(draw_real(sub, name), sub, deeper))
    return drawn


def _sync_only_saver(saver: Any) -> bool:
    """Does ``saver`` refuse the async API (its ``aget_tuple`` only raises
    ``NotImplementedError``, as LangGraph's sync savers do)?"""
    method = getattr(type(saver), "aget_tuple", None)
    code = getattr(method, "__code__", None)
    if code is None:
        return False
    names = set(code.co_names)
    return "NotImplementedError" in names and len(names) <= 2


class AttachedGraph(AttachedRuns, AttachedState):
    """Wraps ``graph`` (a ``langgraph`` ``CompiledStateGraph`` / ``Pregel``); never changes it."""

    runtime = "langgraph"

    def __init__(
        self,
        graph: Any,
        *,
        name: str | None = None,
        stream_tokens: bool = False,
        sync: bool | None = None,
        scan_models: bool = True,
    ) -> None:
        """``scan_models``: register the credentials of every LangChain model alive now
        (``register_live_models``; False for another wrapper of a graph already scanned)."""
        from engine.attach.secrets import register_live_models
        from engine.attach.wrappers import instrument

        self.real = graph
        self.name = name or str(getattr(graph, "name", None) or "graph")
        self.stream_tokens = stream_tokens
        self.bus = EventBus()
        self.instrumented = instrument(graph)
        """The copy of ``graph`` that runs (its create_agent middleware layers emit events) and
        what was learnt of its middleware."""
        if scan_models:  # the app's LangChain models: their credentials are scrubbed
            register_live_models()
        self._sync = sync
        self.async_parts: list[str] = []
        """What keeps the graph on ``astream`` (``engine.attach.sync_ready``), when judged."""
        self.sync_optional = False
        """Sync only because it costs less (the graph could run on ``astream`` as well)."""
        self.sync = self._choose_sync(sync)
        """Run with LangGraph's sync ``stream`` (on a worker thread) instead of ``astream``."""
        self.factory: GraphFactory | None = None
        """The factory the graph was made by: each run opens it again (``_arun``)."""
        self._saver: Any = None
        """The saver ``with_checkpointer`` gave, for the graphs a factory makes too."""
        self.mirrors: list[CheckpointMirror] = []
        self.unstreamable: set[type] = set()
        """Model classes whose stream gave nothing: the runs of this graph do not stream
        them (``engine.attach.innermost``)."""
        self.unknown_saves = UnknownSaves()
        """Per thread, checkpoints whose save outcome is not known yet: asked about again at
        the thread's next run (``engine.attach.unknown_saves``)."""
        self._announced: set[tuple[str | None, str, str]] = set()
        self.route_book = RouteBook(graph)
        """Where each node routes, read from the graph's edges (``engine.attach.routes``)."""

    def __getattr__(self, name: str) -> Any:
        """What describes the app's graph, as the app's graph has it; LangChain's composition
        API (``with_retry``, ``as_tool``, ``pipe``...) on the attached graph as a runnable, so
        the composed runs go through Stepwise (``engine.attach.as_runnable``)."""
        from engine.attach.as_runnable import RUNNABLE_METHODS, SHARED, Attached

        if name in SHARED:
            return getattr(self.__dict__["real"], name)
        if name in RUNNABLE_METHODS:
            return getattr(Attached(self), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __or__(self, other: Any) -> Any:
        from engine.attach.as_runnable import Attached

        return Attached(self) | other

    def __ror__(self, other: Any) -> Any:
        from engine.attach.as_runnable import Attached

        return other | Attached(self)

    def validate(self) -> AttachedGraph:
        """The app's graph's own check of its nodes and channels (LangGraph's ``validate``);
        the attached graph back, as LangGraph gives the graph back."""
        self.real.validate()
        return self

    async def aget_graph(self, config: Any = None, *, xray: bool | int = False) -> DrawableGraph:
        return self.get_graph(config, xray=xray)

    def notices(self) -> list[str]:
        """What the user should know about how this app is seen (one line each)."""
        return [
            f"the middleware of node {where!r} could not be seen into (this LangChain composes it "
            "differently): its model and tool calls show directly under the node"
            for where in self.instrumented.blind
        ]

    def _choose_sync(self, sync: bool | None) -> bool:
        """``sync`` when given; else async when some middleware has only async ``wrap_*``
        methods; sync when the app cannot run under ``astream`` (some middleware has only sync
        ``wrap_*`` methods, or the graph's checkpointer is sync only: LangGraph's
        ``SqliteSaver`` and ``PostgresSaver``); else sync when nothing in the graph needs the
        async API (``engine.attach.sync_ready``: the sync stream costs less), async when
        something does or cannot be judged (``async_parts`` says what)."""
        if sync is not None:
            return sync
        if self.instrumented.async_only:
            return False
        if self.instrumented.sync_only or _sync_only_saver(self.checkpointer):
            return True
        from engine.attach.sync_ready import async_only_parts

        self.async_parts = async_only_parts(self.real)
        self.sync_optional = not self.async_parts
        return self.sync_optional

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
        again = self._rewrapped(self.real.copy(update={"checkpointer": saver}))
        again._saver = saver
        return again

    def with_store(self, store: Any) -> AttachedGraph:
        """A wrapper of a copy of the graph on ``store`` (a LangGraph store)."""
        return self._rewrapped(self.real.copy(update={"store": store}))

    def with_options(self, *, stream_tokens: bool | None = None) -> AttachedGraph:
        """A wrapper of the same graph with other options."""
        return self._rewrapped(self.real, stream_tokens)

    def _rewrapped(self, real: Any, stream_tokens: bool | None = None) -> AttachedGraph:
        # the same graph (or its copy with another saver): no model was made since this one's
        # scan but by the app itself, and those are registered as they are called, as after
        # any scan (``register_calling_model``)
        again = AttachedGraph(
            real,
            name=self.name,
            stream_tokens=self.stream_tokens if stream_tokens is None else stream_tokens,
            sync=self._sync,
            scan_models=False,
        )
        again.mirrors = list(self.mirrors)
        again.factory = self.factory
        again._saver = self._saver
        return again

    def _made_for_run(self, made: Any) -> AttachedGraph:
        """A wrapper of ``made`` (what the factory made for one run) that runs as this one:
        same options and saver, its events to this graph's subscribers and mirrors."""
        if self._saver is not None:
            made = made.copy(update={"checkpointer": self._saver})
        # no heap scan per run: the models the factory made are registered as they are called
        run = AttachedGraph(
            made,
            name=self.name,
            stream_tokens=self.stream_tokens,
            sync=self._sync,
            scan_models=False,
        )
        run.bus, run.mirrors = self.bus, self.mirrors
        run.unstreamable, run._announced = self.unstreamable, self._announced
        run.unknown_saves = self.unknown_saves
        return run

    def mirror_checkpoints(self, saver: Any) -> None:
        """Copy every checkpoint of the runs from now on into ``saver`` too (a session file's:
        the recorder asks, so attach-mode sessions replay offline with their states)."""
        from engine.attach.mirror import CheckpointMirror

        if all(m.saver is not saver for m in self.mirrors):
            self.mirrors.append(CheckpointMirror(saver))

    def with_config(self, config: dict[str, Any] | None = None, **kw: Any) -> AttachedGraph:
        """The graph with ``config`` as its defaults for every run (LangGraph's
        ``with_config``), still attached."""
        return self._rewrapped(self.real.with_config(config, **kw))

    def get_input_jsonschema(self) -> dict[str, Any]:
        """The JSON Schema of the app's input (LangGraph's own)."""
        return self.real.get_input_jsonschema()  # type: ignore[no-any-return]

    def get_output_jsonschema(self) -> dict[str, Any]:
        """The JSON Schema of the app's output (LangGraph's own)."""
        return self.real.get_output_jsonschema()  # type: ignore[no-any-return]

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON Schema of the app's run context (``context_schema``), None without one."""
        get = getattr(self.real, "get_context_jsonschema", None)
        schema = get() if callable(get) else None
        return schema if isinstance(schema, dict) else None

    def get_graph(self, config: Any = None, *, xray: bool | int = False) -> DrawableGraph:
        """The app's graph as LangGraph draws it; ``xray``: its subgraphs drawn inside their
        nodes (True: all levels; a number: that many)."""
        from engine.attach.drawing import draw_real

        return _xrayed(draw_real(self.real, self.name, self.instrumented.wrappers), self.real, xray)

    def subscribe(self, callback: Callable[[EventBase], Any]) -> Subscription:
        return self.bus.subscribe(callback)


def _a_runnable_to_langchain() -> None:
    """LangChain takes an attached graph wherever it takes the app's graph: a runnable (a
    virtual subclass of ``Runnable``), so ``prompt | attached`` and a node made of it compose
    it as they compose the app's graph (its ``invoke`` / ``stream``, which run through
    Stepwise), instead of refusing it as "not a Runnable, callable or dict"."""
    try:
        from langchain_core.runnables import Runnable
    except ImportError:  # attach needs LangGraph, which brings langchain_core
        return
    Runnable.register(AttachedGraph)


_a_runnable_to_langchain()
