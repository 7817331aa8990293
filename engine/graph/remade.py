"""A graph made by a graph factory is made again for every run, as a LangGraph server does.

A ``langgraph.json`` may name a function that makes the graph (``engine.attach.factory``). The
graph made when the app was loaded serves drawing, forms and state reads; each run opens the
factory again with that run's ``configurable`` keys and context and runs what it makes, closing
it when the run ends.  The loader gives the loaded graph a ``Remake``: how to open the factory
for a run.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.graph.compiled import CompiledStateGraph

__all__ = ["Remake", "made_for_run"]

Remake = Callable[[Mapping[str, Any], Any, Any], AbstractAsyncContextManager[Any]]
"""Opens the factory for one run: ``(configurable, context, store)`` -> the graph it makes."""


@asynccontextmanager
async def made_for_run(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    remake: Remake,
    config: Mapping[str, Any] | None,
    context: Any,
) -> AsyncIterator[CompiledStateGraph[Any, Any, Any, Any]]:
    """The graph the factory makes for one run of ``graph`` (the loaded one), ready to run as
    ``graph`` would: the saver the debugger gave ``graph`` (a session's) unless the factory's
    graph brought its own, ``graph``'s store when it has none, and ``graph``'s config under the
    run's own.  The factory is closed as the block ends."""
    from engine.graph.compiled import CompiledStateGraph

    configurable = dict((config or {}).get("configurable") or {})
    async with remake(configurable, context, graph.store) as made:
        if not isinstance(made, CompiledStateGraph):
            raise TypeError(
                f"the graph factory made a {type(made).__name__} for this run, "
                f"and a {type(graph).__name__} when the app was loaded"
            )
        run = copy.copy(made)
        run.remake = None
        if graph.checkpointer is not graph.made_saver:  # given after load: the debugger's
            run.checkpointer = graph.checkpointer
        if run.store is None:
            run.store = graph.store
        run.config = {**made.config, **graph.config}
        yield run
