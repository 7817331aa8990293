"""LangGraph's ``langgraph.cache.base`` name, where a program ported by imports looks for it."""

from __future__ import annotations

from engine.cache import BaseCache

__all__ = ["BaseCache"]
