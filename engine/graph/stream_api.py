"""A compiled graph's ``stream`` / ``astream``: the run's chunks in the modes asked for
(``values``, ``updates``, ``messages``, ``custom``, ``tasks``, ``checkpoints``, ``debug``),
v1 or v2 parts, paced by the consumer, printed when ``print_mode`` / ``debug`` ask."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from engine.core.aio import cancel_quietly, iter_sync
from engine.graph.print_mode import print_part, printed_modes
from engine.graph.subgraph import calling_task, run_nested_sync
from engine.types import StreamMode

if TYPE_CHECKING:
    from engine.graph.compiled import CompiledStateGraph
    from engine.observe.gate import Gate

__all__ = ["StreamAPI"]


class StreamAPI:
    """The streaming methods of ``CompiledStateGraph`` (which provides ``_arun``)."""

    def _graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        return cast("CompiledStateGraph[Any, Any, Any, Any]", self)

    async def astream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: StreamMode | Sequence[StreamMode] | None = None,
        subgraphs: bool = False,
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: str | None = None,
        debugger: Gate | None = None,
        version: Literal["v1", "v2"] = "v1",
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Stream the run: ``values``, ``updates``, ``messages``, ``custom``, ``tasks``,
        ``checkpoints``, ``debug``, or a list of modes (then chunks are ``(mode, chunk)``).
        ``version="v2"``: each chunk a typed part, ``{"type": mode, "ns": namespace, "data":
        chunk}`` (``engine.graph.stream_parts``), whatever the modes and ``subgraphs``."""
        graph = self._graph()
        modes: list[str]
        single = False
        asked: Any = graph.stream_mode if stream_mode is None else stream_mode
        if isinstance(asked, str):
            modes, single = [asked], True
        else:
            modes = list(asked)
        # modes printed to the console (``print_mode``; ``debug``: updates and values), as
        # LangGraph prints them, streamed only when asked for as well
        printed = printed_modes(self, kwargs.get("print_mode", ()), kwargs.get("debug"))
        view = graph._with_output_keys(kwargs.get("output_keys"))
        wanted = set(modes)
        modes += [m for m in printed if m not in wanted]
        queue: asyncio.Queue[Any] = asyncio.Queue()
        done = object()
        asked = asyncio.Event()  # the consumer took every chunk and waits for the next one

        def sink(mode: str, chunk: Any, ns: str) -> None:
            if ns and not subgraphs:
                return
            queue.put_nowait((ns, mode, chunk))
            asked.clear()

        async def pace() -> None:
            await asked.wait()

        async def runner() -> None:
            try:
                await view._arun(
                    input,
                    config,
                    stream=sink,
                    stream_modes=modes,
                    context=context,
                    interrupt_before=interrupt_before,
                    interrupt_after=interrupt_after,
                    durability=durability,
                    debugger=debugger,
                    sync_call=kwargs.get("_sync_call", False),
                    control=kwargs.get("control"),
                    streams_nested=subgraphs,
                    pace=pace,
                )
            finally:
                queue.put_nowait(done)

        v2_part = None
        if version == "v2":  # loaded on first use: a v1 run never needs it
            from engine.graph.stream_parts import parts_of

            v2_part = parts_of(self)
        task = asyncio.ensure_future(runner())
        try:
            while True:
                if queue.empty():
                    asked.set()
                item = await queue.get()
                if item is done:
                    break
                ns, mode, chunk = item
                ns_t = tuple(ns.split("|")) if ns else ()
                if printed and mode in printed:
                    print_part(mode, ns_t if subgraphs else (), chunk)
                    if mode not in wanted:
                        continue
                if v2_part is not None:
                    yield v2_part(ns_t, mode, chunk)
                elif subgraphs:
                    yield (ns_t, chunk) if single else (ns_t, mode, chunk)
                else:
                    yield chunk if single else (mode, chunk)
            await task  # re-raise the run's exception, if any
        finally:
            await cancel_quietly(task)

    def stream(
        self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        caller = calling_task()
        if caller is not None:  # a node streams a graph: run it as a subgraph, then hand over
            return iter(
                run_nested_sync(lambda: _collect(self.astream(input, config, **kwargs)), caller)
            )
        return iter_sync(self.astream(input, config, _sync_call=True, **kwargs))


async def _collect(items: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in items]
