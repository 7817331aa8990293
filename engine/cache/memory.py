"""LangGraph's ``langgraph.cache.memory`` name, where a program ported by imports looks for it."""

from __future__ import annotations

from engine.cache import InMemoryCache

__all__ = ["InMemoryCache"]
