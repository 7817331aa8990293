"""LangGraph's ``langgraph.store.sqlite`` name, where a program ported by imports looks for it."""

from __future__ import annotations

from engine.store import SqliteStore

__all__ = ["SqliteStore"]
