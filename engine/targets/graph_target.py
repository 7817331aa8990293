"""Targets backed by a graph object in this process: ``EngineTarget`` (our compiled graphs) and
``AttachTarget`` (a user's real LangGraph app, through ``engine.attach``).

Both graphs speak the same API (``astream_events`` with a debugger, ``aget_state``,
``aget_state_history``, ``aupdate_state``, ``get_graph``, ``subscribe``), so one class holds
what they share; the two differ in their capabilities and in what their state values hold
(attach mode converts LangChain messages to ours, so every view shows messages alike).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.targets.base import (
    Capabilities,
    RunRequest,
    TargetError,
    TargetKind,
    ThreadInfo,
    ThreadQuery,
)
from engine.targets.graph_run import GraphRun

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.events import EventBase
    from engine.graph.drawing import DrawableGraph
    from engine.observe.bus import Subscription
    from engine.targets.records import CheckpointRecord
    from engine.types import StateSnapshot

__all__ = ["INTERNAL_CHANNELS", "AttachTarget", "EngineTarget", "GraphTarget", "has_saver"]

INTERNAL_CHANNELS = ("__", "branch:", "join:")
"""Prefixes of the channels a graph keeps for itself (not state keys a user wrote)."""


def has_saver(graph: Any) -> bool:
    """Does ``graph`` keep checkpoints (a checkpointer that is not just a flag)?"""
    return getattr(graph, "checkpointer", None) not in (None, True, False)


def thread_config(
    thread_id: str, checkpoint_id: str | None = None, checkpoint_ns: str = ""
) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        conf["checkpoint_id"] = checkpoint_id
    if checkpoint_ns:
        conf["checkpoint_ns"] = checkpoint_ns
    return {"configurable": conf}


def _schema(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _derived_schema(graph: Any, method: str) -> dict[str, Any] | None:
    """The JSON schema ``graph.<method>()`` derives, None when it has none.

    Raises ``SchemaUnavailable`` when deriving fails: the graph still runs (LangGraph derives
    its schemas with pydantic, which refuses a ``typing.TypedDict`` state on Python < 3.12)."""
    get = getattr(graph, method, None)
    if not callable(get):
        return None
    try:
        return _schema(get())
    except Exception as exc:  # any library's failure to describe a schema
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SchemaUnavailable(first.rstrip(".")) from exc


class SchemaUnavailable(Exception):
    """A graph's input or context schema cannot be derived (the graph itself may run)."""


class GraphTarget:
    """What the engine and attach targets share (see module docstring)."""

    kind: TargetKind = "engine"

    def __init__(self, graph: Any, name: str | None = None) -> None:
        self.graph = graph
        self.name = name or str(getattr(graph, "name", None) or "graph")

    # -- shape -----------------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        if has_saver(self.graph):
            return Capabilities()
        why = "this graph has no checkpointer"
        return Capabilities.all_but(edit_state=why, fork=why, threads=why)

    def shape(self, xray: bool | int = False) -> DrawableGraph:
        return self.graph.get_graph(xray=xray)  # type: ignore[no-any-return]

    def state_keys(self) -> list[str]:
        keys = [
            *(getattr(self.graph, "input_keys", None) or ()),
            *(getattr(self.graph, "channels", None) or ()),
        ]
        return [str(k) for k in dict.fromkeys(keys) if not str(k).startswith(INTERNAL_CHANNELS)]

    def input_schema(self) -> dict[str, Any] | None:
        try:
            return self._no_key_required(_derived_schema(self.graph, "get_input_jsonschema"))
        except SchemaUnavailable as exc:
            typed = self._typed_dict_schema("input_schema", "LangGraphInput")
            if typed is not None:  # a typing.TypedDict on Python < 3.12, described anyway
                return self._no_key_required(typed)
            # a form of the state's keys, each typed as JSON
            return {
                "type": "object",
                "title": self.name,
                "description": f"The input's types could not be derived ({exc}): each field takes JSON.",
                "properties": {key: {} for key in self.state_keys()},
            }

    def context_schema(self) -> dict[str, Any] | None:
        try:
            return _derived_schema(self.graph, "get_context_jsonschema")
        except SchemaUnavailable:  # no context form; a context still reaches the run as given
            return self._typed_dict_schema("context_schema", "Context")

    def _no_key_required(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        """A ``TypedDict`` input's schema lists every key as required, but LangGraph takes an
        input with any of them (the state's keys a run writes, its outputs too, among them):
        none is required, as there (a pydantic state's are checked, and stay required)."""
        from typing_extensions import is_typeddict

        builder = getattr(self.graph, "builder", None)
        cls = getattr(builder, "input_schema", None) or getattr(builder, "state_schema", None)
        if schema is None or not schema.get("required") or not is_typeddict(cls):
            return schema
        return {k: v for k, v in schema.items() if k != "required"}

    def _typed_dict_schema(self, which: str, title: str) -> dict[str, Any] | None:
        """The schema of the builder's ``which`` class as the engine derives it, which takes a
        ``typing.TypedDict`` pydantic refuses on Python < 3.12; None when that fails too."""
        from engine.graph.schema_json import schema_json

        schema = getattr(getattr(self.graph, "builder", None), which, None)
        if schema is None:
            return None
        try:
            return schema_json(schema, None, title)
        except Exception:  # a field type no schema describes: no typed form
            return None

    def subscribe(self, callback: Callable[[EventBase], object]) -> Subscription:
        return self.graph.subscribe(callback)  # type: ignore[no-any-return]

    # -- threads and time travel -----------------------------------------------------------

    def _require_saver(self, what: str) -> None:
        if not has_saver(self.graph):
            raise TargetError(f"{what} needs a checkpointer, and this graph has none")

    async def threads(self, query: ThreadQuery | None = None) -> list[ThreadInfo]:
        self._require_saver("Listing threads")
        from engine.targets.thread_list import list_threads

        return await list_threads(self.graph.checkpointer, query or ThreadQuery())

    async def history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot]:
        if not has_saver(self.graph):
            return []
        kw: dict[str, Any] = {"limit": limit}
        if before is not None:
            kw["before"] = thread_config(thread_id, before)
        return [
            self._convert(s)
            async for s in self.graph.aget_state_history(thread_config(thread_id), **kw)
        ]

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = ""
    ) -> StateSnapshot | None:
        if not has_saver(self.graph):
            return None
        snap = await self.graph.aget_state(thread_config(thread_id, checkpoint_id, checkpoint_ns))
        return None if snap is None else self._convert(snap)

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        self._require_saver("Editing state")
        config = await self.graph.aupdate_state(
            thread_config(thread_id, checkpoint_id), values, as_node=as_node
        )
        return str(config["configurable"]["checkpoint_id"])

    async def checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        from engine.targets.checkpoint_list import records_from_history, records_from_saver

        saver = getattr(self.graph, "checkpointer", None)
        if not has_saver(self.graph):
            return []
        if hasattr(saver, "_list_rows"):  # ours: the row listing, no values read
            return records_from_saver(saver, thread_id, getattr(self.graph, "nodes", None))
        return records_from_history(await self.history(thread_id))

    def _convert(self, snap: Any) -> StateSnapshot:
        """A snapshot of the graph as every view reads it."""
        return snap  # type: ignore[no-any-return]

    # -- running ---------------------------------------------------------------------------

    def run(self, request: RunRequest, debugger: Debugger) -> GraphRun:
        return GraphRun(self.graph, request, debugger)

    async def aclose(self) -> None:
        return None


class EngineTarget(GraphTarget):
    """Our embedded engine: everything a debugger can do."""

    kind: TargetKind = "engine"


class AttachTarget(GraphTarget):
    """A user's real LangGraph / LangChain v1 app, run unchanged in this process."""

    kind: TargetKind = "attach"

    @property
    def capabilities(self) -> Capabilities:
        caps = super().capabilities
        missing: dict[str, str] = {}
        instrumented = getattr(self.graph, "instrumented", None)
        if not getattr(instrumented, "reached", None):  # faults reach any call (callbacks)
            missing["replay_model_calls"] = (
                "this app has no create_agent model node Stepwise can reach into"
            )
        if not getattr(self.graph, "stream_tokens", False):
            missing["tokens"] = "tokens are off (stepwise open without --no-stream-tokens)"
        blind = getattr(instrumented, "blind", None)
        if blind:
            missing["wrapper_spans"] = (
                "this LangChain composes middleware in a way Stepwise does not recognise"
            )
        return caps.without(**missing)

    def _convert(self, snap: Any) -> StateSnapshot:
        from engine.attach.snapshots import to_engine_snapshot

        return to_engine_snapshot(snap)
