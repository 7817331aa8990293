"""The names LangGraph's ``langgraph.runtime`` offers, where a program ported by imports
(``langgraph`` -> ``engine``) looks for them."""

from __future__ import annotations

from engine.graph import Runtime, get_runtime

__all__ = ["Runtime", "get_runtime"]
