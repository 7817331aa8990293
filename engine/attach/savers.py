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


def _check_sqlite_file(path: str) -> None:
    """Raise, before LangGraph's saver writes its tables there, when ``path`` is a SQLite file
    whose ``checkpoints`` table is not LangGraph's (Stepwise's own checkpoint or session file:
    ``engine.checkpoint.foreign.layout_of``)."""
    import os
    import sqlite3
    from contextlib import closing

    if not path or path == ":memory:" or not os.path.exists(path):
        return
    from engine.checkpoint.foreign import layout_of

    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            layout = layout_of(conn)
    except sqlite3.DatabaseError as exc:
        raise SaverError(f"{path} is not a SQLite database (or it is damaged): {exc}") from None
    if layout == "stepwise":
        raise SaverError(
            f"{path} is a Stepwise checkpoint file, which LangGraph's SqliteSaver cannot read: "
            "give --checkpointer another file"
        )
    if layout == "other":
        raise SaverError(
            f"{path} has a checkpoints table LangGraph's SqliteSaver cannot read: "
            "give --checkpointer another file"
        )


def _async_sqlite(path: str) -> Any:
    """LangGraph's ``AsyncSqliteSaver`` on ``path``, bound to the event loop the runs use (the
    running one, else the thread's own, which the studio's and the CLI's runs run on)."""
    import asyncio

    mod = _need("langgraph.checkpoint.sqlite.aio", "langgraph-checkpoint-sqlite")
    aiosqlite = _need("aiosqlite", "aiosqlite")
    _check_sqlite_file(path)

    async def make() -> Any:
        return mod.AsyncSqliteSaver(aiosqlite.connect(path))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.get_event_loop().run_until_complete(make())
    return mod.AsyncSqliteSaver(aiosqlite.connect(path))


def open_saver(url: str) -> Any:
    """``memory``, ``sqlite:///path`` (or ``sqlite:///:memory:``), ``sqlite+aiosqlite:///path``
    (LangGraph's ``AsyncSqliteSaver``) or ``postgres(ql)://...``."""
    if url in ("memory", "memory://"):
        from langgraph.checkpoint.memory import InMemorySaver

        from engine.attach.shared_serde import SharedMessageSerde

        return InMemorySaver(serde=SharedMessageSerde())  # each message stored once
    if url.startswith("sqlite+aiosqlite://"):
        return _async_sqlite(url[len("sqlite+aiosqlite:///") :] or ":memory:")
    if url.startswith("sqlite://"):
        mod = _need("langgraph.checkpoint.sqlite", "langgraph-checkpoint-sqlite")
        import sqlite3

        path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url[len("sqlite://") :]
        _check_sqlite_file(path)
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
        f"unknown checkpointer '{shown}': use memory, sqlite:///path, sqlite+aiosqlite:///path "
        "or postgres://..."
    )
