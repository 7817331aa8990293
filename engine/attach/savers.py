"""LangGraph's own checkpointers from a URL (``--checkpointer``), with clear errors."""

from __future__ import annotations

from typing import Any

__all__ = ["SaverError", "open_saver"]


class SaverError(Exception):
    """The checkpointer URL is wrong, or the package it needs is not installed."""


def _need(module: str, package: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise SaverError(
            f"this checkpointer needs the {package!r} package: pip install {package}"
        ) from None


def open_saver(url: str) -> Any:
    """``memory``, ``sqlite:///path`` (or ``sqlite:///:memory:``) or ``postgres(ql)://...``."""
    if url in ("memory", "memory://"):
        from langgraph.checkpoint.memory import InMemorySaver

        return InMemorySaver()
    if url.startswith("sqlite://"):
        mod = _need("langgraph.checkpoint.sqlite", "langgraph-checkpoint-sqlite")
        import sqlite3

        path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url[len("sqlite://") :]
        conn = sqlite3.connect(path or ":memory:", check_same_thread=False)
        saver = mod.SqliteSaver(conn)
        saver.setup()
        return saver
    if url.startswith(("postgres://", "postgresql://")):
        mod = _need("langgraph.checkpoint.postgres", "langgraph-checkpoint-postgres")
        psycopg = _need("psycopg", "psycopg[binary]")
        conn = psycopg.connect(url, autocommit=True, prepare_threshold=0)
        from psycopg.rows import dict_row

        conn.row_factory = dict_row
        saver = mod.PostgresSaver(conn)
        saver.setup()
        return saver
    raise SaverError(
        f"unknown checkpointer {url!r}: use memory, sqlite:///path or postgres://..."
    )
