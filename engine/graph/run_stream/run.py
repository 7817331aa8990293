"""``GraphRunStream`` / ``AsyncGraphRunStream``: what ``stream_events(version="v3")`` returns."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from engine.graph.loop_stream import TASK_METADATA_MODE
from engine.graph.run_stream.channel import PullSource, StreamChannel
from engine.graph.run_stream.messages import MessagesTransformer
from engine.graph.run_stream.mux import StreamMux, TransformerFactory, ordered_factories
from engine.graph.run_stream.nested import SubgraphTransformer
from engine.graph.run_stream.protocol import ProtocolEvent, make_event
from engine.graph.run_stream.values import ValuesTransformer

if TYPE_CHECKING:
    from engine.graph.compiled import CompiledStateGraph

__all__ = [
    "BUILTIN_TRANSFORMERS",
    "AsyncGraphRunStream",
    "GraphRunStream",
    "open_async_run_stream",
    "open_run_stream",
]

BUILTIN_TRANSFORMERS: tuple[TransformerFactory, ...] = (
    ValuesTransformer,
    MessagesTransformer,
    SubgraphTransformer,
)
BASE_MODES = ("values", "updates", "messages", "custom", "tasks", "tools")


def _factories(graph: CompiledStateGraph, extra: Sequence[TransformerFactory]) -> list[Any]:
    declared = list(getattr(graph, "stream_transformers", ()) or ())
    return ordered_factories(BUILTIN_TRANSFORMERS, [*declared, *extra])


def _modes(mux: StreamMux) -> list[Any]:
    """The stream modes a v3 run asks its graph for (plus the task-metadata request)."""
    return [*BASE_MODES, *sorted(mux.required_modes() - set(BASE_MODES)), TASK_METADATA_MODE]


class _RunStreamBase:
    _mux: StreamMux

    @property
    def extensions(self) -> dict[str, Any]:
        return dict(self._mux.extensions)

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_"):
            ext = self.__dict__.get("_mux")
            if ext is not None and name in ext.extensions:
                return ext.extensions[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _channel(self, name: str) -> StreamChannel[Any]:
        ch = self._mux.extensions.get(name)
        if not isinstance(ch, StreamChannel):
            raise KeyError(
                f"no stream projection named {name!r}; known: {sorted(self._mux.extensions)}"
            )
        return ch

    def _values_transformer(self) -> ValuesTransformer | None:
        return next((t for t in self._mux.transformers if isinstance(t, ValuesTransformer)), None)

    def _values(self) -> Any:
        vt = self._values_transformer()
        return None if vt is None else vt.latest

    def _interrupts(self) -> list[Any]:
        vt = self._values_transformer()
        return [] if vt is None else list(vt.interrupts)


class GraphRunStream(_RunStreamBase):
    """A running graph, read through its projections: iterate it for every protocol event;
    ``run.messages``, ``run.values``, ``run.subgraphs`` and any transformer's projection by
    name; ``run.output`` for the final state (waits for the end of the run)."""

    def __init__(
        self, mux: StreamMux, parts: Iterator[tuple[tuple[str, ...], str, Any]] | None
    ) -> None:
        self._mux = mux
        self._parts = parts
        self._seq = 0
        if parts is not None:
            mux.source.pump = self._pump

    def _pump(self) -> bool:
        if self._parts is None:
            return False
        try:
            ns, mode, chunk = next(self._parts)
        except StopIteration:
            self._parts = None
            self._mux.finalize()
            return False
        except BaseException as err:
            self._parts = None
            self._mux.fail(err)
            return False
        self._seq += 1
        try:
            self._mux.process(make_event(self._seq, mode, ns, chunk))
        except BaseException as err:
            self._stop()
            self._mux.fail(err)
            return False
        return True

    def _stop(self) -> None:
        parts, self._parts = self._parts, None
        close = getattr(parts, "close", None)
        if close is not None:
            close()

    def __iter__(self) -> Iterator[ProtocolEvent]:
        return iter(self._mux.events)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """Items of several projections as they arrive: ``(name, item)``."""
        merge = _Interleaving([(n, self._channel(n)) for n in names])
        while True:
            ready = merge.take()
            yield from ready
            closed = merge.closed
            if not closed and (ready or self._pump()):
                continue
            if merge.over(closed):
                return

    def _drain(self) -> None:
        for _ in self._mux.events:  # raises the run's error, if it failed
            pass

    @property
    def output(self) -> Any:
        """The final state (runs the graph to its end first)."""
        self._drain()
        return self._values()

    @property
    def interrupted(self) -> bool:
        """Whether the run stopped at an interrupt (runs the graph to its end first)."""
        self._drain()
        return bool(self._interrupts())

    @property
    def interrupts(self) -> list[Any]:
        """The interrupts the run stopped at (runs the graph to its end first)."""
        self._drain()
        return self._interrupts()

    def abort(self) -> None:
        """Stop the run now (its running nodes are cancelled); every projection ends."""
        self._stop()
        self._mux.finalize()

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.abort()


class AsyncGraphRunStream(_RunStreamBase):
    """``GraphRunStream`` for ``astream_events(version="v3")``: read with ``async for``."""

    def __init__(self, mux: StreamMux, parts: AsyncIterator[Any] | None) -> None:
        self._mux = mux
        self._parts = parts
        self._seq = 0
        if parts is not None:
            mux.source.apump = self._apump

    async def _apump(self) -> bool:
        if self._parts is None:
            return False
        try:
            ns, mode, chunk = await self._parts.__anext__()
        except StopAsyncIteration:
            self._parts = None
            await self._mux.afinalize()
            return False
        except BaseException as err:
            self._parts = None
            await self._mux.afail(err)
            return False
        self._seq += 1
        try:
            await self._mux.aprocess(make_event(self._seq, mode, ns, chunk))
        except BaseException as err:
            await self._stop()
            await self._mux.afail(err)
            return False
        return True

    async def _stop(self) -> None:
        parts, self._parts = self._parts, None
        aclose = getattr(parts, "aclose", None)
        if aclose is not None:
            await aclose()

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        return aiter(self._mux.events)

    async def interleave(self, *names: str) -> AsyncIterator[tuple[str, Any]]:
        merge = _Interleaving([(n, self._channel(n)) for n in names])
        while True:
            ready = merge.take()
            for item in ready:
                yield item
            closed = merge.closed
            if not closed and (ready or await self._apump()):
                continue
            if merge.over(closed):
                return

    async def _drain(self) -> None:
        async for _ in self._mux.events:  # raises the run's error, if it failed
            pass

    async def output(self) -> Any:
        """The final state (runs the graph to its end first)."""
        await self._drain()
        return self._values()

    async def interrupted(self) -> bool:
        await self._drain()
        return bool(self._interrupts())

    async def interrupts(self) -> list[Any]:
        await self._drain()
        return self._interrupts()

    async def abort(self) -> None:
        """Stop the run now (its running nodes are cancelled); every projection ends."""
        await self._stop()
        await self._mux.afinalize()

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.abort()


def open_run_stream(
    graph: CompiledStateGraph,
    input: Any,
    config: dict[str, Any] | None,
    transformers: Sequence[TransformerFactory] = (),
    **kwargs: Any,
) -> GraphRunStream:
    mux = StreamMux(_factories(graph, transformers), (), PullSource())
    parts = graph.stream(input, config, stream_mode=_modes(mux), subgraphs=True, **kwargs)
    return GraphRunStream(mux, iter(parts))


async def open_async_run_stream(
    graph: CompiledStateGraph,
    input: Any,
    config: dict[str, Any] | None,
    transformers: Sequence[TransformerFactory] = (),
    **kwargs: Any,
) -> AsyncGraphRunStream:
    mux = StreamMux(_factories(graph, transformers), (), PullSource())
    parts = graph.astream(input, config, stream_mode=_modes(mux), subgraphs=True, **kwargs)
    return AsyncGraphRunStream(mux, parts)


class _Interleaving:
    """Where ``interleave`` is in each projection it reads (shared by the sync and async run
    streams: they differ only in how they pull the run forward)."""

    def __init__(self, chans: list[tuple[str, Any]]) -> None:
        self.chans = chans
        self.seen = [0] * len(chans)

    @property
    def closed(self) -> bool:
        return all(ch.closed for _, ch in self.chans)

    def take(self) -> list[tuple[str, Any]]:
        """Every item that arrived since the last call, projection by projection."""
        out: list[tuple[str, Any]] = []
        for k, (name, ch) in enumerate(self.chans):
            while self.seen[k] < len(ch):
                self.seen[k] += 1
                out.append((name, ch._items[self.seen[k] - 1]))
        return out

    def over(self, closed: bool) -> bool:
        """Whether the interleaving is over (every projection ``closed``, or nothing more to
        read), raising a projection's error if one failed."""
        if closed or all(self.seen[k] >= len(ch) for k, (_, ch) in enumerate(self.chans)):
            for _, ch in self.chans:
                if ch.error is not None:
                    raise ch.error
            return True
        return False
