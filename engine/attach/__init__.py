"""Attach mode: debug a user's real LangGraph / LangChain v1 app, unchanged, on the installed
libraries.  ``attach(graph)`` wraps a real compiled graph so it emits our events and offers the
API the CLI and the studio use.  Nothing here imports langgraph until a real graph is attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.attach.factory import GraphFactory

__all__ = ["attach", "is_langgraph", "open_checkpointer"]


def is_langgraph(obj: Any) -> bool:
    """Is ``obj`` a real ``langgraph`` compiled graph (``Pregel``)?"""
    if isinstance(obj, type):
        return False
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("langgraph.") and cls.__name__ == "Pregel":
            return True
    return False


def attach(
    graph: Any,
    *,
    name: str | None = None,
    stream_tokens: bool = False,
    sync: bool | None = None,
    factory: GraphFactory | None = None,
) -> Any:
    """An ``AttachedGraph`` running ``graph`` on the real libraries.

    ``stream_tokens``: make LangGraph stream chat models so their tokens show as ``model.token``
    events.  ``sync``: run with LangGraph's sync ``stream`` on a worker thread (as an app calling
    ``invoke`` runs) rather than ``astream``; by default sync only when the agent has middleware
    with only sync ``wrap_*`` methods, which LangChain cannot run asynchronously.  ``factory``:
    the graph factory ``graph`` was made by (``engine.attach.factory``): every run opens it
    again, as a LangGraph server does, and runs the graph it makes."""
    from engine.attach.graph import AttachedGraph

    if isinstance(graph, AttachedGraph):
        return graph
    if not is_langgraph(graph):
        raise TypeError(f"{type(graph).__name__} is not a compiled langgraph graph")
    attached = AttachedGraph(graph, name=name, stream_tokens=stream_tokens, sync=sync)
    attached.factory = factory
    return attached


def open_checkpointer(url: str) -> Any:
    """A LangGraph saver for ``sqlite:///path`` or ``postgres://...`` (``memory`` for in-memory)."""
    from engine.attach.savers import open_saver

    return open_saver(url)
