"""LangGraph's ``version="v2"`` output of a run: each streamed chunk as a typed part
(``{"type": mode, "ns": namespace, "data": chunk}``, a ``values`` part with its interrupts
apart) and ``invoke``'s result as a ``GraphOutput``.  A state whose schema is a pydantic model
or a dataclass is handed over as one in v2 (its ``values`` parts, the ``invoke`` value, the
``values`` of the checkpoints in ``checkpoints`` / ``debug`` parts), as LangGraph does.

The attached graph shapes the real LangGraph run's chunks with these too (with LangGraph's
``GraphOutput`` class and the app's graph's mappers), so both modes answer alike."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

from pydantic import BaseModel

from engine.stream_types import GraphOutput

__all__ = [
    "Mapper",
    "graph_output",
    "mappers_of",
    "output_from_stream",
    "parts_of",
    "schema_mapper",
    "stream_part",
    "values_stream_modes",
]

Mapper = Callable[[dict[str, Any]], Any]
"""Makes a state's values dict into the schema's object (``Model(**values)``)."""

_INTERRUPT = "__interrupt__"
_START = "__start__"


def schema_mapper(schema: Any, *, root: bool = False) -> Mapper | None:
    """The v2 mapper of a state ``schema``: its class called with the values, for a pydantic
    model or a dataclass (None for a TypedDict, a plain dict, or a graph whose state is one
    root value)."""
    if root or not isinstance(schema, type):
        return None
    if issubclass(schema, BaseModel) or dataclasses.is_dataclass(schema):
        cls = schema

        def to_schema(values: dict[str, Any]) -> Any:
            return cls(**values)

        return to_schema
    return None


def mappers_of(graph: Any) -> tuple[Mapper | None, Mapper | None]:
    """The v2 mappers of one of our compiled graphs: for its output values and for its
    checkpoints' state values (None, None for a low-level ``Pregel`` graph or an entrypoint,
    which have no state schema)."""
    builder = getattr(graph, "builder", None)
    if builder is None:
        return None, None
    root = graph.spec.is_root
    state = builder.state_schema
    return (
        schema_mapper(builder.output_schema or state, root=root),
        schema_mapper(state, root=root),
    )


def parts_of(graph: Any) -> Callable[[tuple[str, ...], str, Any], dict[str, Any]]:
    """Makes each ``(namespace, mode, chunk)`` of a run of ``graph`` (one of ours) a v2 part."""
    output_mapper, state_mapper = mappers_of(graph)

    def part(ns: tuple[str, ...], mode: str, chunk: Any) -> dict[str, Any]:
        return stream_part(ns, mode, chunk, output_mapper, state_mapper)

    return part


def stream_part(
    ns: tuple[str, ...],
    mode: str,
    chunk: Any,
    output_mapper: Mapper | None = None,
    state_mapper: Mapper | None = None,
) -> dict[str, Any]:
    """One chunk of ``mode`` from the graph at ``ns`` as a v2 part.  The chunk is not changed
    (the run may hold it): a part that differs from it gets a copy.  (LangGraph pops the
    interrupts out of its ``values`` chunk; for an entrypoint that dict is also the ``updates``
    chunk streamed just before, so an updates part kept by the caller loses them there.  It
    keeps them here, embedded and attached.)"""
    if mode == "values":
        interrupts: Any = ()
        if isinstance(chunk, dict):
            if _INTERRUPT in chunk:
                interrupts = chunk[_INTERRUPT]
                chunk = {k: v for k, v in chunk.items() if k != _INTERRUPT}
            if output_mapper is not None:
                chunk = output_mapper(chunk)
        return {"type": mode, "ns": ns, "data": chunk, "interrupts": interrupts}
    if state_mapper is not None and mode in ("checkpoints", "debug"):
        chunk = _checkpoint_as_schema(chunk, state_mapper)
    return {"type": mode, "ns": ns, "data": chunk}


def _checkpoint_as_schema(chunk: Any, mapper: Mapper) -> Any:
    """A ``checkpoints`` chunk (or a ``debug`` one wrapping a checkpoint) with its ``values``
    as the state schema; not the input's checkpoint (its state may still lack fields)."""
    if not isinstance(chunk, dict):
        return chunk
    inner = chunk.get("payload")
    if chunk.get("type") == "checkpoint" and isinstance(inner, dict):
        if _mappable(inner):
            return {**chunk, "payload": {**inner, "values": mapper(inner["values"])}}
        return chunk
    if _mappable(chunk):
        return {**chunk, "values": mapper(chunk["values"])}
    return chunk


def _mappable(checkpoint: dict[str, Any]) -> bool:
    return isinstance(checkpoint.get("values"), dict) and _START not in checkpoint.get("next", ())


def graph_output(
    output: Any, mapper: Mapper | None = None, output_class: type[Any] = GraphOutput
) -> Any:
    """``invoke``'s v2 result from its v1 one (``output``: the values, with the interrupts
    under ``__interrupt__``)."""
    interrupts: Any = ()
    if isinstance(output, dict):
        if _INTERRUPT in output:
            interrupts = output[_INTERRUPT]
            output = {k: v for k, v in output.items() if k != _INTERRUPT}
        if mapper is not None:
            output = mapper(output)
    return output_class(value=output, interrupts=tuple(interrupts))


def values_stream_modes(version: str) -> Any:
    """The stream ``invoke`` reads its output from, when it reads one (``output_from_stream``):
    the values parts in v2 (they carry the interrupts), the updates (where v1 has them) and
    the values in v1."""
    return "values" if version == "v2" else ["updates", "values"]


async def output_from_stream(
    chunks: AsyncIterator[Any], version: str, output_class: type[Any] = GraphOutput
) -> Any:
    """``invoke``'s output read from a run's stream with ``subgraphs`` (``chunks``, of
    ``values_stream_modes``): the last values streamed, of whichever graph, and every
    interrupt streamed, as LangGraph's ``invoke`` reads them."""
    latest: Any = None
    interrupts: list[Any] = []
    if version == "v2":
        async for part in chunks:
            latest = part["data"]
            interrupts.extend(part["interrupts"])
        return output_class(value=latest, interrupts=tuple(interrupts))
    async for _ns, mode, data in chunks:
        if mode == "values":
            latest = data
        elif isinstance(data, dict) and data.get(_INTERRUPT) is not None:
            interrupts.extend(data[_INTERRUPT])
    if not interrupts:
        return latest
    if isinstance(latest, dict):
        return {**latest, _INTERRUPT: interrupts}
    return {_INTERRUPT: interrupts}
