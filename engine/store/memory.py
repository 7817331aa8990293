"""LangGraph's ``langgraph.store.memory`` name, where a program ported by imports looks for it."""

from __future__ import annotations

from engine.store import InMemoryStore

__all__ = ["InMemoryStore"]
