"""The names LangGraph's ``langgraph.config`` offers (what a node or tool reads of the run it
runs in), where a program ported by imports (``langgraph`` -> ``engine``) looks for them."""

from __future__ import annotations

from engine.graph import get_config, get_store, get_stream_writer

__all__ = ["get_config", "get_store", "get_stream_writer"]
