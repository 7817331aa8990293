"""LangGraph's ``langgraph.store.base`` names, where a program ported by imports looks for them."""

from __future__ import annotations

from engine.store import BaseStore, InvalidNamespaceError, Item, SearchItem

__all__ = ["BaseStore", "InvalidNamespaceError", "Item", "SearchItem"]
