"""``RunnableConfig``: the type of the ``config`` argument of ``invoke`` / ``stream`` and of
nodes and tools that ask for it (the keys the engine reads; any other key is kept)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["RunnableConfig"]


class RunnableConfig(TypedDict, total=False):
    configurable: dict[str, Any]
    """``thread_id``, ``checkpoint_id``, ``checkpoint_ns`` and the user's own keys."""
    recursion_limit: int
    tags: list[str]
    metadata: dict[str, Any]
    callbacks: Any
    run_name: str
    run_id: Any
    max_concurrency: int | None
