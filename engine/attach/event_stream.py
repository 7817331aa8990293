"""LangChain's ``astream_events`` (``v2``) of an attached graph, run through Stepwise.

LangChain builds that stream from a callback handler it adds to the run's config, around the
runnable's own ``astream``: each node, model and tool of the run reports to the handler, and
the root's chunks are what ``astream`` yields.  ``Attached`` is a runnable whose ``astream`` is
the attached graph's (every event to Stepwise's subscribers and the debugger, the parts the
caller asked for handed over as LangGraph's), so the caller gets the events LangGraph's own
``astream_events`` gives, and Stepwise sees the run.  The handler asks the app's chat models
to stream (``streaming_handlers``), as it does on LangGraph.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import Runnable, RunnableConfig

if TYPE_CHECKING:
    from engine.attach.graph import AttachedGraph

__all__ = ["Attached"]


class Attached(Runnable[Any, Any]):
    """The attached graph as a LangChain runnable, for LangChain's event-stream machinery."""

    def __init__(self, graph: AttachedGraph, options: dict[str, Any]) -> None:
        self.graph = graph
        self.options = options
        """Stepwise's own run options (``debugger``, ``context``)."""

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return self.graph.real.get_name(suffix, name=name)  # type: ignore[no-any-return]

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Any:
        return self.graph.invoke(input, dict(config or {}), **{**self.options, **kw})

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Any:
        return await self.graph.ainvoke(input, dict(config or {}), **{**self.options, **kw})

    def astream(
        self, input: Any, config: RunnableConfig | None = None, **kw: Any
    ) -> AsyncIterator[Any]:
        return self.graph.astream(input, dict(config or {}), **{**self.options, **kw})

    def events(self, input: Any, config: dict[str, Any] | None, **kw: Any) -> AsyncIterator[Any]:
        """LangChain's ``astream_events(version="v2")`` over ``astream``."""
        return self.astream_events(input, cast("RunnableConfig", config), version="v2", **kw)

    def stream(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Iterator[Any]:
        return self.graph.stream(input, dict(config or {}), **{**self.options, **kw})
