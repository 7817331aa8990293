"""An attached graph as a LangChain runnable, and what of the app's graph it hands on as is.

``Attached`` is a runnable whose ``invoke`` / ``astream`` are the attached graph's: every event
of the run goes to Stepwise's subscribers and the debugger, and the caller gets what LangGraph
gives.  LangChain's machinery built on a runnable then runs through Stepwise too:

- ``astream_events(version="v2")``: LangChain builds that stream from a callback handler it
  adds to the run's config, around the runnable's own ``astream``; each node, model and tool
  reports to the handler, the root's chunks are what ``astream`` yields.  The handler asks the
  app's chat models to stream (``streaming_handlers``), as it does on LangGraph.
- composition (``attached | parser``, ``with_retry``, ``with_fallbacks``, ``as_tool``,
  ``bind``...): the composed runnable calls ``Attached``, so its runs are seen.

``RUNNABLE_METHODS`` names that composition API; ``SHARED`` the attributes of the app's graph
that only describe it (its builder, schemas, channels, stream mode, store...) and are handed on
as they are, so code written for the app's graph reads them from the attached one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import Runnable, RunnableConfig

if TYPE_CHECKING:
    from engine.attach.graph import AttachedGraph

__all__ = ["RUNNABLE_METHODS", "SHARED", "Attached"]

RUNNABLE_METHODS = frozenset(
    {
        "pipe",
        "bind",
        "assign",
        "pick",
        "map",
        "as_tool",
        "with_retry",
        "with_fallbacks",
        "with_listeners",
        "with_alisteners",
        "with_types",
        "transform",
        "atransform",
        "batch_as_completed",
        "abatch_as_completed",
        "astream_log",
    }
)
"""LangChain's runnable API built on a runnable's own calls (answered by ``Attached``)."""

SHARED = frozenset(
    {
        "builder",
        "store",
        "cache",
        "cache_policy",
        "retry_policy",
        "clear_cache",
        "aclear_cache",
        "config",
        "config_schema",
        "config_specs",
        "get_config_jsonschema",
        "context_schema",
        "input_schema",
        "output_schema",
        "get_input_schema",
        "get_output_schema",
        "InputType",
        "OutputType",
        "get_name",
        "get_prompts",
        "get_subgraphs",
        "aget_subgraphs",
        "stream_mode",
        "stream_eager",
        "step_timeout",
        "debug",
        "interrupt_before_nodes",
        "interrupt_after_nodes",
        "input_channels",
        "output_channels",
        "stream_channels",
        "stream_channels_list",
        "stream_channels_asis",
        "trigger_to_nodes",
        "node_error_handler_map",
        "schema_to_mapper",
        "stream_transformers",
    }
)
"""What describes the app's graph (or its cache) and is the same attached: handed on as is."""


class Attached(Runnable[Any, Any]):
    """The attached graph as a LangChain runnable (see the module docstring)."""

    def __init__(self, graph: AttachedGraph, options: dict[str, Any] | None = None) -> None:
        self.graph = graph
        self.options = dict(options or {})
        """Stepwise's own run options (``debugger``, ``context``)."""

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return self.graph.real.get_name(suffix, name=name)  # type: ignore[no-any-return]

    @property
    def InputType(self) -> Any:
        return self.graph.real.InputType

    @property
    def OutputType(self) -> Any:
        return self.graph.real.OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> Any:
        return self.graph.real.get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> Any:
        return self.graph.real.get_output_schema(config)

    @property
    def config_specs(self) -> Any:
        return self.graph.real.config_specs

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Any:
        return self.graph.invoke(input, dict(config or {}), **{**self.options, **kw})

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Any:
        return await self.graph.ainvoke(input, dict(config or {}), **{**self.options, **kw})

    def astream(
        self, input: Any, config: RunnableConfig | None = None, **kw: Any
    ) -> AsyncIterator[Any]:
        return self.graph.astream(input, dict(config or {}), **{**self.options, **kw})

    def stream(self, input: Any, config: RunnableConfig | None = None, **kw: Any) -> Iterator[Any]:
        return self.graph.stream(input, dict(config or {}), **{**self.options, **kw})

    def events(self, input: Any, config: dict[str, Any] | None, **kw: Any) -> AsyncIterator[Any]:
        """LangChain's ``astream_events(version="v2")`` over ``astream``."""
        return self.astream_events(input, cast("RunnableConfig", config), version="v2", **kw)
