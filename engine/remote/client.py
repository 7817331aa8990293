"""``RemoteClient``: the calls Stepwise makes to a LangGraph server, over ``langgraph-sdk``.

It imports the SDK when it is built (never at start-up), sends the credentials of
``engine.remote.credentials`` and turns every failure into a ``RemoteError`` whose message is
one line a person can act on ("cannot reach ...", "the API key ... was refused (401)", "no
assistant 'x' on the server (it has: a, b)", "thread t is busy ...").  Nothing in a message
carries a credential: server texts pass through ``engine.redaction.scrub``.
"""

from __future__ import annotations

import asyncio
import functools
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from engine.redaction import strip_url_credentials
from engine.remote.credentials import Credentials, register_server_url
from engine.remote.errors import RemoteError, explain

T = TypeVar("T")

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient

__all__ = ["AssistantInfo", "RemoteClient", "RemoteError", "StreamPart", "explain"]

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass(frozen=True)
class AssistantInfo:
    """An assistant of the server (a graph with its configuration)."""

    assistant_id: str
    graph_id: str
    name: str
    description: str | None = None
    version: int | None = None

    @property
    def label(self) -> str:
        """How a picker shows it: the name, with the graph when they differ."""
        if self.name and self.name != self.graph_id:
            return f"{self.name} ({self.graph_id})"
        return self.graph_id

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AssistantInfo:
        return cls(
            str(data.get("assistant_id") or ""),
            str(data.get("graph_id") or ""),
            str(data.get("name") or data.get("graph_id") or ""),
            data.get("description") or None,
            data.get("version") if isinstance(data.get("version"), int) else None,
        )


@dataclass(frozen=True)
class StreamPart:
    """One server-sent event of a run: ``mode`` (``debug``, ``events``...), the subgraph
    namespace it came from (``""`` for the root graph), its data and its event id."""

    mode: str
    ns: str
    data: Any
    id: str | None = None

    @classmethod
    def parse(cls, event: str, data: Any, id: str | None = None) -> StreamPart:
        mode, _, ns = event.partition("|")
        return cls(mode, ns, data, id)


def _running_loop() -> Any:
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The TLS settings httpx would build for every client (its default trust store), built
    once: loading the certificates took about 90 ms per client, and a client is made per
    worker-thread read."""
    import httpx

    return httpx.create_ssl_context()


@dataclass
class RemoteClient:
    """The server calls of remote mode (see module docstring)."""

    url: str
    credentials: Credentials = field(default_factory=Credentials)
    timeout: float = 300.0
    """Seconds to wait for a read (a run's stream may be quiet while a node works)."""
    _sdk: LangGraphClient | None = field(default=None, init=False, repr=False)
    _loop: Any = field(default=None, init=False, repr=False)

    @property
    def display_url(self) -> str:
        """The URL without any ``user:password@`` (safe to show)."""
        return strip_url_credentials(self.url)

    @property
    def sdk(self) -> LangGraphClient:
        if self._sdk is None:
            self._sdk = self._make_sdk()
            self._loop = _running_loop()
        return self._sdk

    def for_this_loop(self) -> RemoteClient:
        """This client, or a fresh one when called on another event loop than the one its
        connections belong to (a sync caller's helper loop: sharing them would deadlock);
        the caller closes a fresh one (``aclose``)."""
        if self._sdk is None or self._loop is _running_loop():
            return self
        return RemoteClient(self.url, self.credentials, self.timeout)

    def _make_sdk(self) -> LangGraphClient:
        try:
            import httpx
            from langgraph_sdk.client import LangGraphClient
        except ImportError:
            raise RemoteError(
                "remote mode needs langgraph-sdk: pip install 'stepwise[remote]'", "sdk"
            ) from None
        register_server_url(self.url)
        headers = {"User-Agent": "stepwise"}
        headers.update(self.credentials.header_values())
        key = self.credentials.api_key()
        if key:
            headers["x-api-key"] = key
        http = httpx.AsyncClient(
            base_url=self.url.rstrip("/"),
            transport=httpx.AsyncHTTPTransport(retries=1, verify=_tls_context()),
            timeout=httpx.Timeout(connect=5, read=self.timeout, write=60, pool=5),
            headers=headers,
        )
        return LangGraphClient(http)

    def blocking(self, fn: Callable[[RemoteClient], Awaitable[T]]) -> T:
        """``fn`` run to its end on this thread, in an event loop of its own, with a client of
        its own (closed after): for callers off the studio's loop (a worker thread)."""

        async def go() -> T:
            client = RemoteClient(self.url, self.credentials, self.timeout)
            try:
                return await fn(client)
            finally:
                await client.aclose()

        return asyncio.run(go())

    async def in_worker(self, fn: Callable[[RemoteClient], Awaitable[T]]) -> T:
        """``fn`` on a worker thread (``blocking``): the requests and the decoding of what the
        server answers never hold the caller's loop (the studio's UI thread)."""
        return await asyncio.to_thread(self.blocking, fn)

    async def aclose(self) -> None:
        if self._sdk is not None:
            sdk, self._sdk = self._sdk, None
            if self._loop is _running_loop():
                await sdk.aclose()
            # else its loop is gone: its connections went with it

    # -- assistants ----------------------------------------------------------------------------

    async def assistants(self, limit: int = 100) -> list[AssistantInfo]:
        """The server's assistants (graphs), as listed."""
        try:
            found = await self.sdk.assistants.search(limit=limit)
        except Exception as exc:
            raise explain(exc, self, "listing assistants") from None
        return [AssistantInfo.from_json(a) for a in found]

    async def assistant(self, name_or_id: str | None) -> AssistantInfo:
        """The assistant with this id, graph id or name (the only one when None)."""
        every = await self.assistants()
        if name_or_id is None:
            if len(every) == 1:
                return every[0]
            names = ", ".join(sorted({a.graph_id for a in every})) or "none"
            raise RemoteError(
                f"the server has several assistants: choose one with --assistant ({names})",
                "invalid",
            )
        for match in (
            lambda a: a.assistant_id == name_or_id,
            lambda a: a.graph_id == name_or_id,
            lambda a: a.name == name_or_id,
        ):
            hits = [a for a in every if match(a)]
            if hits:  # graph ids: the default assistant (created by the system) comes first
                return hits[0]
        if _UUID.match(name_or_id):
            try:
                return AssistantInfo.from_json(await self.sdk.assistants.get(name_or_id))
            except Exception as exc:
                err = explain(exc, self, f"assistant {name_or_id}")
                if err.kind not in ("not_found", "invalid"):
                    raise err from None
        names = ", ".join(sorted({a.graph_id for a in every})) or "none"
        raise RemoteError(
            f"no assistant {name_or_id!r} on the server at {self.display_url} (it has: {names})",
            "not_found",
        )

    async def graph(self, assistant_id: str, *, xray: bool | int = False) -> dict[str, Any]:
        try:
            return dict(await self.sdk.assistants.get_graph(assistant_id, xray=xray))
        except Exception as exc:
            raise explain(exc, self, "reading the graph") from None

    async def schemas(self, assistant_id: str) -> dict[str, Any]:
        """The assistant's JSON schemas ({} when the server cannot give them)."""
        try:
            return dict(await self.sdk.assistants.get_schemas(assistant_id))
        except Exception as exc:
            err = explain(exc, self, "reading the schemas")
            if err.kind in ("unreachable", "auth", "forbidden"):
                raise err from None
            return {}

    # -- threads -------------------------------------------------------------------------------

    async def create_thread(self, thread_id: str | None = None) -> str:
        try:
            made = await self.sdk.threads.create(thread_id=thread_id, if_exists="do_nothing")
        except Exception as exc:
            raise explain(exc, self, "creating a thread") from None
        return str(made["thread_id"])

    async def thread(self, thread_id: str) -> dict[str, Any] | None:
        """The thread (None when the server has no such thread)."""
        try:
            return dict(await self.sdk.threads.get(thread_id))
        except Exception as exc:
            err = explain(exc, self, f"reading thread {thread_id}")
            if err.kind in ("not_found", "invalid"):
                return None
            raise err from None

    async def search_threads(
        self,
        *,
        metadata: Mapping[str, Any] | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        try:
            found = await self.sdk.threads.search(
                metadata=dict(metadata) if metadata else None,
                status=status,  # type: ignore[arg-type]
                limit=limit,
                offset=offset,
                sort_by="updated_at",
                sort_order="desc",
                select=["thread_id", "updated_at", "status", "metadata"],
            )
        except Exception as exc:
            raise explain(exc, self, "searching threads") from None
        return [dict(t) for t in found]

    async def history(
        self,
        thread_id: str,
        *,
        limit: int,
        before: str | None = None,
        select: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """One page of the thread's checkpoints, newest first (``select``: only these fields,
        e.g. without ``values`` for a listing)."""
        try:
            found = await self.sdk.threads.get_history(
                thread_id,
                limit=limit,
                before={"configurable": {"checkpoint_id": before}} if before else None,  # type: ignore[arg-type]
                select=list(select) if select else None,
            )
        except Exception as exc:
            raise explain(exc, self, f"reading the history of thread {thread_id}") from None
        return [dict(s) for s in found]

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False
    ) -> dict[str, Any]:
        try:
            return dict(
                await self.sdk.threads.get_state(
                    thread_id, checkpoint_id=checkpoint_id, subgraphs=subgraphs
                )
            )
        except Exception as exc:
            raise explain(exc, self, f"reading the state of thread {thread_id}") from None

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        try:
            made = await self.sdk.threads.update_state(
                thread_id,
                values,
                as_node=as_node,
                checkpoint={"checkpoint_id": checkpoint_id} if checkpoint_id else None,  # type: ignore[arg-type]
            )
        except Exception as exc:
            raise explain(exc, self, f"editing the state of thread {thread_id}") from None
        return str((made.get("checkpoint") or {}).get("checkpoint_id") or "")

    # -- runs ----------------------------------------------------------------------------------

    async def stream_run(
        self,
        thread_id: str,
        assistant_id: str,
        *,
        input: Any = None,
        command: Mapping[str, Any] | None = None,
        stream_mode: Sequence[str],
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        context: Any = None,
        config: Mapping[str, Any] | None = None,
        on_created: Callable[[str], None] | None = None,
    ) -> AsyncIterator[StreamPart]:
        """Start a run on the thread and stream it (``stream_subgraphs``, resumable);
        ``on_created(run_id)`` as soon as the server has made the run."""

        def created(meta: Any) -> None:
            if on_created is not None and meta.get("run_id"):
                on_created(str(meta["run_id"]))

        parts = self.sdk.runs.stream(
            thread_id,
            assistant_id,
            input=input,
            command=dict(command) if command is not None else None,  # type: ignore[arg-type]
            stream_mode=list(stream_mode),  # type: ignore[arg-type]
            stream_subgraphs=True,
            stream_resumable=True,
            checkpoint_id=checkpoint_id,
            interrupt_before=interrupt_before,  # type: ignore[arg-type]
            interrupt_after=interrupt_after,  # type: ignore[arg-type]
            context=context,
            config=dict(config) if config is not None else None,  # type: ignore[arg-type]
            multitask_strategy="reject",
            if_not_exists="create",
            on_disconnect="continue",
            on_run_created=created,
        )
        async for raw in self._parts(parts, f"running on thread {thread_id}"):  # type: ignore[arg-type]
            yield raw

    async def join_run(
        self, thread_id: str, run_id: str, *, from_start: bool = True
    ) -> AsyncIterator[StreamPart]:
        """Stream a run someone started (from its first event when it was resumable)."""
        parts = self.sdk.runs.join_stream(
            thread_id, run_id, last_event_id="-1" if from_start else None
        )
        async for raw in self._parts(parts, f"joining run {run_id}"):
            yield raw

    async def join_thread(self, thread_id: str) -> AsyncIterator[StreamPart]:
        """Stream every run started on the thread from now on (with a ``metadata`` part
        ``{"status": "run_done"}`` at the end of each)."""
        try:
            parts = await self.sdk.threads.join_stream(
                thread_id, params={"stream_modes": "run_modes,lifecycle"}
            )
        except Exception as exc:
            raise explain(exc, self, f"joining thread {thread_id}") from None
        async for raw in self._parts(parts, f"joining thread {thread_id}"):
            yield raw

    async def _parts(self, parts: AsyncIterator[Any], what: str) -> AsyncIterator[StreamPart]:
        it = parts.__aiter__()
        while True:
            try:
                raw = await it.__anext__()
            except StopAsyncIteration:
                return
            except Exception as exc:
                raise explain(exc, self, what) from None
            yield StreamPart.parse(str(raw.event), raw.data, raw.id)

    async def runs(self, thread_id: str, *, status: str | None = None) -> list[dict[str, Any]]:
        try:
            found = await self.sdk.runs.list(thread_id, status=status, limit=20)  # type: ignore[arg-type]
        except Exception as exc:
            raise explain(exc, self, f"listing the runs of thread {thread_id}") from None
        return [dict(r) for r in found]

    async def run_status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status (``success``, ``error``, ``interrupted``...), None when the server
        does not know the run (any more)."""
        try:
            run = await self.sdk.runs.get(thread_id, run_id)
        except Exception as exc:
            err = explain(exc, self, f"reading run {run_id}")
            if err.kind in ("not_found", "invalid"):
                return None
            raise err from None
        return str(run.get("status") or "") or None

    async def cancel(self, thread_id: str, run_id: str) -> None:
        try:
            await self.sdk.runs.cancel(thread_id, run_id)
        except Exception as exc:
            err = explain(exc, self, f"cancelling run {run_id}")
            if err.kind not in ("not_found", "invalid"):  # already over
                raise err from None
