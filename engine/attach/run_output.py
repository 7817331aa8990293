"""What an attached run hands back and how it reads LangGraph's stream: the output as
LangGraph's ``invoke`` gives it (``output_of``, ``with_interrupts``), the app's callbacks with
Stepwise's handler (``with_handler``), a stream's parts in one shape (``at_root``) and pulled at
the caller's pace (``paced``), and LangGraph's ``version="v2"`` shapes of them (``v2_parts``,
``v2_output``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.attach.echo import Echo, Parts

__all__ = [
    "aat_root",
    "at_root",
    "output_of",
    "paced",
    "speaks_v2",
    "v2_output",
    "v2_output_class",
    "v2_parts",
    "with_handler",
    "with_interrupts",
]


def paced(parts: Iterator[Any], echo: Echo | None) -> Iterator[Any]:
    """``parts``, each pulled from LangGraph's stream once the caller has taken the parts
    handed to it (``Echo.wait_taken``): LangGraph runs on when the caller asks for more."""
    if echo is None:
        yield from parts
        return
    it = iter(parts)
    while True:
        echo.wait_taken()
        try:
            part = next(it)
        except StopIteration:
            return
        yield part


def at_root(parts: Iterator[Any]) -> Iterator[Any]:
    """The ``(mode, data)`` parts of a stream without ``subgraphs`` as ``(namespace, mode,
    data)`` parts of the root graph."""
    for mode, data in parts:
        yield (), mode, data


async def aat_root(parts: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``at_root`` for ``astream``."""
    async for mode, data in parts:
        yield (), mode, data


def output_of(graph: Any, values: Any) -> Any:
    """What the app's ``invoke`` returns of the state ``values``: its output channels only (a
    middleware's private state, LangGraph's ``OmitFromOutput`` fields left out).  A graph that
    streams one channel (an entrypoint's ``__end__``, a ``__root__`` state) has its values as
    that channel's value already (LangGraph's ``values`` stream and ``get_state`` give it
    bare): handed back as it is, a dict it returned included."""
    keys = getattr(graph, "output_channels", None)
    if not isinstance(values, dict) or keys is None:
        return values
    if isinstance(keys, str):
        if isinstance(getattr(graph, "stream_channels_asis", None), str):
            return values  # one channel streamed (an entrypoint's): the values are its value
        return values.get(keys)
    return {k: values[k] for k in keys if k in values}


def with_handler(callbacks: Any, handler: Any) -> Any:
    """The app's ``callbacks`` with ``handler`` added: a list of handlers, or the callback
    manager a run is given when it runs inside another runnable (a chain, a retry, a tool),
    copied with the handler inherited by the run's children, as LangChain adds its own."""
    if callbacks is None or isinstance(callbacks, list | tuple):
        return [*(callbacks or []), handler]
    manager = callbacks.copy()
    manager.add_handler(handler, inherit=True)
    return manager


def with_interrupts(output: Any, interrupts: list[Any]) -> Any:
    """The run's output as LangGraph's ``invoke`` gives it: its values, and the interrupts it
    stopped at (``interrupt()``, each once; not a static pause) under ``__interrupt__``; only
    the interrupts when the output is not a mapping (an entrypoint that has not returned)."""
    pending: dict[Any, Any] = {}
    for intr in interrupts:
        if intr is not None:
            pending.setdefault(getattr(intr, "id", None) or id(intr), intr)
    if not pending:
        return output
    if not isinstance(output, dict):  # a graph whose output is one channel (an entrypoint's)
        return {"__interrupt__": list(pending.values())}
    return {**output, "__interrupt__": list(pending.values())}


def speaks_v2(version: str | None) -> bool:
    """Does the caller ask for LangGraph's v2 output, and does the installed LangGraph give it
    (one without ``GraphOutput`` reads every ``version`` as v1)?"""
    if version != "v2":
        return False
    import langgraph.types

    return hasattr(langgraph.types, "GraphOutput")


def _mappers(graph: Any) -> tuple[Any, Any]:
    """The app's graph's own v2 mappers (for its output, for its checkpoints' state): what
    makes a pydantic or dataclass state's values into the schema's object."""
    return getattr(graph, "_output_mapper", None), getattr(graph, "_state_mapper", None)


def v2_parts(graph: Any) -> Parts:
    """Makes each ``(namespace, mode, data)`` of a run of ``graph`` into the part LangGraph's
    ``stream(..., version="v2")`` yields for it."""
    from engine.graph.stream_parts import stream_part

    output_mapper, state_mapper = _mappers(graph)

    def part(ns: tuple[str, ...], mode: str, data: Any) -> Any:
        return stream_part(ns, mode, data, output_mapper, state_mapper)

    return part


def v2_output_class() -> type[Any]:
    """LangGraph's ``GraphOutput`` (what its ``invoke(..., version="v2")`` returns)."""
    from langgraph.types import GraphOutput

    return GraphOutput  # type: ignore[no-any-return]


def v2_output(graph: Any, output: Any) -> Any:
    """What LangGraph's ``invoke(..., version="v2")`` returns for a run of ``graph`` whose v1
    output is ``output``: its ``GraphOutput``."""
    from engine.graph.stream_parts import graph_output

    return graph_output(output, _mappers(graph)[0], v2_output_class())
