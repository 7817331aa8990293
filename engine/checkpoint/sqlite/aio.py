"""``AsyncSqliteSaver``: LangGraph's async SQLite saver's name for ours, opened with
``async with AsyncSqliteSaver.from_conn_string(path) as saver`` (a program ported by imports
finds it at ``langgraph.checkpoint.sqlite.aio``'s place)."""

from __future__ import annotations

from engine.checkpoint.sqlite import SqliteSaver

__all__ = ["AsyncSqliteSaver"]


class AsyncSqliteSaver(SqliteSaver):
    """The SQLite saver (its async methods are the ones an async run uses), entered with
    ``async with``; closed on leaving."""

    async def __aenter__(self) -> AsyncSqliteSaver:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
