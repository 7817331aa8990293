"""A compiled graph's event streams: ``astream_events`` / ``stream_events`` in every version
(LangChain's v1 / v2 event dicts, the v3 run stream) and Stepwise's own events."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from engine.core.aio import iter_sync
from engine.observe.bus import EventBus, drain_events

if TYPE_CHECKING:
    from engine.graph.compiled import CompiledStateGraph
    from engine.observe.gate import Gate

__all__ = ["STEPWISE_EVENTS", "EventsAPI"]


class EventsAPI:
    """The event-stream methods of ``CompiledStateGraph`` (which provides ``_arun``)."""

    def _graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        return cast("CompiledStateGraph[Any, Any, Any, Any]", self)

    def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        version: str = "v2",
        **kwargs: Any,
    ) -> Any:
        """The run's events, as LangGraph gives them: LangChain's event dicts for ``version``
        ``"v2"`` (the default) or ``"v1"`` (``lc_events``); for ``"v3"``, an awaitable of an
        ``AsyncGraphRunStream`` (``engine.graph.run_stream``; ``transformers=[...]`` adds
        stream transformers to the graph's own).  ``version="stepwise"``: every Stepwise event
        of the run, in ``seq`` order (``engine.events``), what the debugger and studio read."""
        if version == "v3":
            from engine.graph.run_stream.run import open_async_run_stream

            transformers = kwargs.pop("transformers", ())
            return open_async_run_stream(self._graph(), input, config, transformers, **kwargs)
        return self._astream_events(input, config, version=_lc_version(version), **kwargs)

    async def _astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: str | None = None,
        maxsize: int = 10_000,
        version: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        if version is not None:
            from engine.graph.lc_events import astream_langchain_events, event_filter

            keep = event_filter(
                **{k: kwargs.pop(k) for k in list(kwargs) if k.startswith(("include_", "exclude_"))}
            )
            events = astream_langchain_events(
                self._graph(),
                input,
                config,
                version,
                context=context,
                interrupt_before=interrupt_before,
                interrupt_after=interrupt_after,
                durability=durability,
                debugger=debugger,
                sync_call=kwargs.get("_sync_call", False),
            )
            async with contextlib.aclosing(events):  # a consumer that stops stops the run
                async for item in events:
                    if keep(item):
                        yield item
            return
        bus = EventBus()
        sink = bus.add_sink(maxsize)

        async def runner() -> None:
            try:
                await self._graph()._arun(
                    input,
                    config,
                    debugger=debugger,
                    extra_buses=[bus],
                    context=context,
                    interrupt_before=interrupt_before,
                    interrupt_after=interrupt_after,
                    durability=durability,
                    sync_call=kwargs.get("_sync_call", False),
                )
            finally:
                await sink.queue.put(None)

        async for ev in drain_events(sink, asyncio.ensure_future(runner())):
            yield ev

    def stream_events(self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """``astream_events`` for sync callers; ``version="v3"`` gives a ``GraphRunStream``."""
        version = str(kwargs.pop("version", "v2"))
        if version == "v3":
            from engine.graph.run_stream.run import open_run_stream

            transformers = kwargs.pop("transformers", ())
            return open_run_stream(self._graph(), input, config, transformers, **kwargs)
        return iter_sync(
            self._astream_events(
                input, config, version=_lc_version(version), _sync_call=True, **kwargs
            )
        )


STEPWISE_EVENTS = "stepwise"
"""The ``astream_events`` version that yields Stepwise's own events (``engine.events``)."""


def _lc_version(version: str) -> str | None:
    """LangChain's event-dict version, None for Stepwise's own events."""
    if version == STEPWISE_EVENTS:
        return None
    if version not in ("v1", "v2"):
        raise ValueError(
            f"astream_events: unknown version {version!r} "
            f"(expected 'v1', 'v2', 'v3' or {STEPWISE_EVENTS!r})"
        )
    return version
