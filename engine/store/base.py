"""LangGraph's ``langgraph.store.base`` names, where a program ported by imports looks for them."""

from __future__ import annotations

from engine.store import BaseStore, Item, SearchItem

__all__ = ["BaseStore", "Item", "SearchItem"]
