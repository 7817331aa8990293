"""An attached app's in-process memory, kept when its file is imported again.

Restart (and Run after a run ended, which starts over on a new thread) and reload-on-save
import the agent file afresh, so that a scripted model starts its script again.  An app on
LangGraph's ``InMemorySaver`` and ``InMemoryStore`` then started on empty ones: the threads the
thread box still listed (and the status bar said were kept) had no checkpoint left, and what the
app had stored for its later runs was gone, where the app's own process keeps both for as long
as it lives.  The graph imported again takes the previous import's in-memory saver and store
(on a copy of it: the app's objects are never modified); a saver or store on a file or a server
is opened again by the file as before, and holds the same data anyway.
"""

from __future__ import annotations

from typing import Any

__all__ = ["keep_app_memory"]

_IN_MEMORY = frozenset({"InMemorySaver", "InMemoryStore"})


def _in_memory(obj: Any) -> bool:
    return obj is not None and any(c.__name__ in _IN_MEMORY for c in type(obj).__mro__)


def keep_app_memory(previous: Any, graph: Any) -> Any:
    """``graph`` (the app just imported again, attached or not yet) on the in-memory
    checkpointer and store of ``previous`` (the attached graph it replaces), when both keep
    theirs in memory (or ``graph`` has no checkpointer: Stepwise gives it one in memory)."""
    from engine.attach import is_langgraph

    old = getattr(previous, "real", None)
    real = getattr(graph, "real", graph)
    if old is None or not is_langgraph(real):
        return graph
    update: dict[str, Any] = {}
    for attr in ("checkpointer", "store"):
        before, after = getattr(old, attr, None), getattr(real, attr, None)
        if not _in_memory(before):
            continue
        if (after is None and attr == "checkpointer") or type(after) is type(before):
            update[attr] = before
    if real is graph:
        return graph.copy(update=update) if update else graph
    if "checkpointer" in update:
        graph = graph.with_checkpointer(update["checkpointer"])
    if "store" in update:
        graph = graph.with_store(update["store"])
    return graph
