"""LangGraph's ``langgraph.cache.sqlite`` name, where a program ported by imports looks for it."""

from __future__ import annotations

from engine.cache import SqliteCache

__all__ = ["SqliteCache"]
