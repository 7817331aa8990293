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


def _with_async(saver: Any) -> Any:
    """Give a sync-only LangGraph saver the async methods attach mode calls (each runs the sync
    method in a worker thread; LangGraph's sqlite and postgres savers serialize with a lock)."""
    import asyncio

    cls = type(saver)

    async def aget_tuple(self: Any, config: Any) -> Any:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(self: Any, config: Any, **kw: Any) -> Any:
        for item in await asyncio.to_thread(lambda: list(self.list(config, **kw))):
            yield item

    async def aput(self: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, versions)

    async def aput_writes(
        self: Any, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self: Any, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    methods = {
        "aget_tuple": aget_tuple,
        "alist": alist,
        "aput": aput,
        "aput_writes": aput_writes,
        "adelete_thread": adelete_thread,
    }
    saver.__class__ = type(f"Threaded{cls.__name__}", (cls,), methods)
    return saver


def open_saver(url: str) -> Any:
    """``memory``, ``sqlite:///path`` (or ``sqlite:///:memory:``) or ``postgres(ql)://...``."""
    if url in ("memory", "memory://"):
        from langgraph.checkpoint.memory import InMemorySaver

        from engine.attach.shared_serde import SharedMessageSerde

        return InMemorySaver(serde=SharedMessageSerde())  # each message stored once
    if url.startswith("sqlite://"):
        mod = _need("langgraph.checkpoint.sqlite", "langgraph-checkpoint-sqlite")
        import sqlite3

        path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url[len("sqlite://") :]
        conn = sqlite3.connect(path or ":memory:", check_same_thread=False)
        saver = mod.SqliteSaver(conn)
        saver.setup()
        return _with_async(saver)
    if url.startswith(("postgres://", "postgresql://")):
        mod = _need("langgraph.checkpoint.postgres", "langgraph-checkpoint-postgres")
        psycopg = _need("psycopg", "psycopg[binary]")
        rows = _need("psycopg.rows", "psycopg[binary]")
        conn = psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=rows.dict_row)
        saver = mod.PostgresSaver(conn)
        saver.setup()
        return _with_async(saver)
    from engine.redaction import scrub, strip_url_credentials

    shown = scrub(strip_url_credentials(url))  # never a password (a keyword DSN has one)
    raise SaverError(
        f"unknown checkpointer '{shown}': use memory, sqlite:///path or postgres://..."
    )
