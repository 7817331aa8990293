"""``RemoteTarget``: a graph running on a LangGraph server, as a debugging target.

    target = await connect("http://127.0.0.1:2024", "agent")      # engine.remote.connect
    target.shape(xray=True)                    # the server's drawing, subgraphs expanded
    handle = target.run(RunRequest(input, thread_id), debugger)   # our events, then an outcome

What a server cannot do is declared in ``capabilities`` with the reason, so the front ends grey
it out and say why.  Threads, history, state and ``update_state`` are server calls (async: the
studio awaits them off its UI thread).  ``join(thread_id, debugger)`` watches a run another
client started.  The credentials are read from the environment when the target connects and
are never kept anywhere but in the HTTP client's headers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from engine.attach.mirror import CheckpointMirror
from engine.graph.drawing import DrawableGraph
from engine.observe.bus import EventBus, Subscription
from engine.remote.client import AssistantInfo, RemoteClient, RemoteError
from engine.remote.run import RemoteRunner, server_thread_id
from engine.remote.shape import drawable_from_server, root_nodes
from engine.remote.store import RemoteStore
from engine.remote.translate import REMOTE_MODES
from engine.remote.values import snapshot_from_server, to_server
from engine.targets.base import (
    Capabilities,
    RunRequest,
    TargetKind,
    ThreadInfo,
    ThreadQuery,
)
from engine.targets.graph_run import GraphRun

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.events import EventBase
    from engine.remote.join import JoinedRun
    from engine.targets.records import CheckpointRecord
    from engine.types import StateSnapshot

__all__ = ["DECODE_ON_WORKER", "HISTORY_PAGE", "REMOTE_MISSING", "RemoteTarget"]

HISTORY_PAGE = 1000
"""Checkpoints asked for per history request."""
LISTING_FIELDS = ("checkpoint", "parent_checkpoint", "metadata", "next", "created_at")
"""What a timeline listing reads of each checkpoint (no state values)."""

DECODE_ON_WORKER = 200
"""A state whose lists hold this many items or more is decoded on a worker thread."""


def _items(values: Any) -> int:
    """How many items the lists of a state's values hold (what decoding a state costs)."""
    if not isinstance(values, dict):
        return 0
    return sum(len(v) for v in values.values() if isinstance(v, list))


REMOTE_MISSING: dict[str, str] = {
    "pause_in_node": "a LangGraph server stops only between nodes (interrupt_before/after)",
    "step_into_calls": "a LangGraph server stops only between nodes: stepping goes node by node",
    "wrapper_spans": "a LangGraph server does not report middleware wrapper layers or attempts",
    "fault_injection": "a LangGraph server cannot have faults injected into its calls",
    "replay_model_calls": "a LangGraph server cannot re-run with recorded model responses",
    "conditional_breakpoints": (
        "a LangGraph server cannot evaluate a condition before a node runs (only stop at nodes)"
    ),
    "live_breakpoint_changes": (
        "a LangGraph server fixes breakpoints when a run starts: changes apply from the next stop"
    ),
}
"""What a remote target cannot do, and why (shown as tooltips)."""


UNKNOWN_INPUT: dict[str, Any] = {
    "type": "object",
    "description": "The server did not give this assistant's input schema: type it as JSON.",
}
"""``input_schema()`` when the server could not give the assistant's schemas."""

UNKNOWN_CONTEXT: dict[str, Any] = {
    "type": "object",
    "description": "The server did not give this assistant's context schema: type the run "
    "context as JSON, or leave it empty for none.",
}
"""``context_schema()`` then: the studio asks for it as JSON (empty: no context)."""


class RemoteTarget:
    """A server's assistant as a target (see module docstring); build it with ``connect``."""

    kind: TargetKind = "remote"

    def __init__(
        self,
        client: RemoteClient,
        assistant: AssistantInfo,
        *,
        graph: dict[str, Any],
        xray_graph: dict[str, Any],
        schemas: dict[str, Any],
    ) -> None:
        self.client = client
        self.assistant = assistant
        self.name = assistant.graph_id or assistant.name
        self._plain = drawable_from_server(graph, self.name, expanded=xray_graph)
        self._xray = drawable_from_server(xray_graph, self.name, expanded=xray_graph)
        self.schemas = schemas
        self.bus = EventBus()
        self.announced: set[tuple[str | None, str, str]] = set()
        """(thread, ns, checkpoint id) already sent as ``checkpoint.saved``."""
        self.stream_modes: tuple[str, ...] = REMOTE_MODES
        self.notices: list[str] = []
        """What the user should know about this connection (one line each)."""
        self.notice_handlers: list[Callable[[str], object]] = []
        self.root_nodes = root_nodes(self._plain)
        self.mirrors: list[CheckpointMirror] = []
        self.store = RemoteStore(client)
        """The server's long-term memory store, read through its store API (the Store dock)."""

    @classmethod
    async def connect(cls, client: RemoteClient, assistant: str | None = None) -> RemoteTarget:
        """Find the assistant (id, graph id or name; the only one when None) and read its
        graph and schemas."""
        info = await client.assistant(assistant)
        graph, xray, schemas = await asyncio.gather(
            client.graph(info.assistant_id),
            client.graph(info.assistant_id, xray=True),
            client.schemas(info.assistant_id),
        )
        return cls(client, info, graph=graph, xray_graph=xray, schemas=schemas)

    def __repr__(self) -> str:
        return f"RemoteTarget({self.client.display_url!r}, {self.assistant.label!r})"

    def mirror_checkpoints(self, saver: Any) -> None:
        """Copy every checkpoint of the runs from now on into ``saver`` too (a session file's:
        the recorder asks, so remote sessions replay offline with their states)."""
        if all(m.saver is not saver for m in self.mirrors):
            self.mirrors.append(CheckpointMirror(saver))

    @contextlib.asynccontextmanager
    async def _client(self) -> AsyncIterator[RemoteClient]:
        """The client to use on the running loop (see ``RemoteClient.for_this_loop``)."""
        client = self.client.for_this_loop()
        try:
            yield client
        finally:
            if client is not self.client:
                await client.aclose()

    def notice(self, text: str) -> None:
        """Tell the user something about this connection (once per text)."""
        if text in self.notices:
            return
        self.notices.append(text)
        for handler in list(self.notice_handlers):
            handler(text)

    # -- shape ---------------------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        missing = dict(REMOTE_MISSING)
        if "events" not in self.stream_modes:
            missing["tokens"] = "this server refused the 'events' stream: no model tokens"
        return Capabilities.all_but(**missing)

    def shape(self, xray: bool | int = False) -> DrawableGraph:
        graph = self._xray if xray else self._plain
        return DrawableGraph.from_json(graph.to_dict())

    def subgraph_shape(self, path: tuple[str, ...]) -> DrawableGraph | None:
        """The drawing of the subgraph the root node ``path[0]`` runs (``path[1]`` inside that,
        and so on), cut out of the server's x-ray answer; None when that node runs none."""
        prefix = "".join(f"{name}:" for name in path)
        out = DrawableGraph(name=path[-1] if path else self.name)
        for node in self._xray.nodes.values():
            rest = node.id[len(prefix) :] if node.id.startswith(prefix) else ""
            if rest and ":" not in rest:
                out.add_node(rest, node.kind, node.name)
        if not [n for n in out.nodes.values() if n.kind not in ("start", "end")]:
            return None
        for edge in self._xray.edges:
            src, dst = edge.source[len(prefix) :], edge.target[len(prefix) :]
            if (
                edge.source.startswith(prefix)
                and edge.target.startswith(prefix)
                and src in out.nodes
                and dst in out.nodes
            ):
                out.add_edge(src, dst, conditional=edge.conditional, data=edge.data)
        return out

    def get_graph(self, xray: bool | int = False) -> DrawableGraph:
        """``shape`` under the name graphs use (the session recorder draws with it)."""
        return self.shape(xray)

    def _schema(self, key: str) -> dict[str, Any] | None:
        value = self.schemas.get(key)
        return value if isinstance(value, dict) and value else None

    def state_keys(self) -> list[str]:
        schema = self._schema("state_schema") or self._schema("input_schema") or {}
        return [str(k) for k in (schema.get("properties") or {})]

    def input_schema(self) -> dict[str, Any] | None:
        found = self._schema("input_schema") or self._schema("state_schema")
        if found is None and not self.schemas:
            # the server could not give the schemas (it answers 500 for a context_schema
            # pydantic cannot read, a typing.TypedDict on Python < 3.12): the input is still
            # needed, as JSON, since a run with none is refused ("Received no input")
            return dict(UNKNOWN_INPUT)
        return found

    def context_schema(self) -> dict[str, Any] | None:
        if not self.schemas:  # unknown (see ``input_schema``): the graph may have a context
            return dict(UNKNOWN_CONTEXT)
        return self._schema("context_schema")

    def subscribe(self, callback: Callable[[EventBase], object]) -> Subscription:
        return self.bus.subscribe(callback)

    # -- threads and time travel ---------------------------------------------------------------

    async def threads(self, query: ThreadQuery | None = None) -> list[ThreadInfo]:
        q = query or ThreadQuery()
        metadata = dict(q.metadata)

        async def search(client: RemoteClient) -> list[dict[str, Any]]:
            return await client.search_threads(
                metadata=metadata, status=q.status, limit=q.limit, offset=q.offset
            )

        found = await self.client.in_worker(search)  # requests and decoding off the UI thread
        return [
            ThreadInfo(
                thread_id=str(t.get("thread_id")),
                updated_at=str(t.get("updated_at") or "") or None,
                status=str(t.get("status") or "") or None,
                metadata=dict(t.get("metadata") or {}),
            )
            for t in found
        ]

    async def _pages(
        self,
        thread_id: str,
        limit: int | None,
        before: str | None,
        select: tuple[str, ...] | None = None,
    ) -> list[dict[str, Any]]:
        """The thread's checkpoints as the server gives them, newest first, read in pages of
        ``HISTORY_PAGE`` (``[]`` for a thread the server does not have)."""
        return await self.client.in_worker(  # requests and decoding off the UI thread
            lambda client: self._read_pages(client, thread_id, limit, before, select)
        )

    async def _read_pages(
        self,
        client: RemoteClient,
        thread_id: str,
        limit: int | None,
        before: str | None,
        select: tuple[str, ...] | None,
    ) -> list[dict[str, Any]]:
        thread = server_thread_id(thread_id)
        out: list[dict[str, Any]] = []
        cursor = before
        while limit is None or len(out) < limit:
            page = HISTORY_PAGE if limit is None else min(HISTORY_PAGE, limit - len(out))
            try:
                found = await client.history(thread, limit=page, before=cursor, select=select)
            except RemoteError as exc:
                if exc.kind in ("not_found", "invalid") and not out:
                    return []
                raise
            out.extend(found)
            if len(found) < page:
                break
            cursor = (found[-1].get("checkpoint") or {}).get("checkpoint_id")
            if not cursor:
                break
        return out

    async def history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot]:
        """The thread's checkpoints with their values, newest first."""
        found = await self._pages(thread_id, limit, before)
        return [snapshot_from_server(thread_id, s) for s in found]

    async def checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        """The thread's checkpoints for a timeline, oldest first: the history without the
        state values (a thread of thousands of checkpoints lists in one or a few requests)."""
        pages = [page async for page in self.checkpoint_pages(thread_id)]
        return pages[-1] if pages else []

    async def checkpoint_pages(self, thread_id: str) -> AsyncIterator[list[CheckpointRecord]]:
        """``checkpoints`` as it arrives: after each page of the history (newest first, in
        pages of ``HISTORY_PAGE``), every checkpoint read so far, oldest first.  Pages are
        requested and decoded on worker threads, the next page asked for while this one is
        decoded: a timeline shows the newest checkpoints while the older ones are still on
        their way, and the caller's loop never waits."""
        from engine.targets.checkpoint_list import records_from_history

        read: list[StateSnapshot] = []

        def fetch(before: str | None) -> asyncio.Future[list[dict[str, Any]]]:
            return asyncio.ensure_future(
                self.client.in_worker(lambda c: self._history_page(c, thread_id, before))
            )

        def decode(found: list[dict[str, Any]]) -> list[CheckpointRecord]:
            read.extend(snapshot_from_server(thread_id, s) for s in found)
            return records_from_history(read)

        pending = fetch(None)
        try:
            while True:
                found = await pending
                cursor = (found[-1].get("checkpoint") or {}).get("checkpoint_id") if found else None
                more = len(found) >= HISTORY_PAGE and bool(cursor)
                if more:  # the server looks for the next page while this one is decoded
                    pending = fetch(cursor)
                records = await asyncio.to_thread(decode, found)
                if records or found:
                    yield records
                if not more:
                    return
        finally:
            if not pending.done():  # the caller stopped reading: nothing waits for that page
                pending.cancel()

    async def _history_page(
        self, client: RemoteClient, thread_id: str, before: str | None
    ) -> list[dict[str, Any]]:
        """One page of a listing (``[]`` for a thread the server does not have)."""
        try:
            return await client.history(
                server_thread_id(thread_id),
                limit=HISTORY_PAGE,
                before=before,
                select=LISTING_FIELDS,
            )
        except RemoteError as exc:
            if exc.kind in ("not_found", "invalid") and before is None:
                return []
            raise

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = ""
    ) -> StateSnapshot | None:
        thread = server_thread_id(thread_id)
        try:
            async with self._client() as client:
                data = await client.state(thread, checkpoint_id)
        except RemoteError as exc:
            if exc.kind in ("not_found", "invalid"):
                return None
            raise
        if not data.get("checkpoint") and not data.get("values"):
            return None
        if _items(data.get("values")) < DECODE_ON_WORKER:
            return snapshot_from_server(thread_id, data)
        # a big state (a long conversation) is decoded off the caller's loop (the studio's UI)
        return await asyncio.to_thread(snapshot_from_server, thread_id, data)

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        async with self._client() as client:
            return await client.update_state(
                server_thread_id(thread_id),
                to_server(values),
                as_node=as_node,
                checkpoint_id=checkpoint_id,
            )

    async def new_thread(self) -> str:
        """A new thread on the server (its id)."""
        return await self.client.create_thread()

    # -- running -------------------------------------------------------------------------------

    def run(self, request: RunRequest, debugger: Debugger) -> GraphRun:
        return GraphRun(RemoteRunner(self), request, debugger)

    def join(self, thread_id: str, debugger: Debugger | None = None) -> JoinedRun:
        """Watch the run going on on ``thread_id`` (or the next one started there), started by
        another client; iterate it for its events, as for ``run``."""
        from engine.remote.join import JoinedRun

        return JoinedRun(self, thread_id, debugger)

    async def aclose(self) -> None:
        await self.client.aclose()
