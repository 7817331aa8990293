"""What a checkpoint save that raised left in the app's database.

A save that fails with a statement's own error (SQLite's "database is locked", a constraint)
wrote nothing.  One cut off with the connection (PostgreSQL stopped or unreachable while the
statement was out) may have been committed before its reply was lost: the server commits, the
client hears only that the connection closed.  Reporting such a checkpoint as not saved would
contradict the database the user then reads.  So the database is asked (``read_back``, bounded:
a pool waiting for a server that is gone must not hold the run up); when it cannot answer, the
save's outcome is reported as unknown (``SaveUnknown``), never as a fact it is not.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

__all__ = [
    "READ_BACK_SECONDS",
    "SaveUnknown",
    "aread_back",
    "outcome_unknowable",
    "read_back",
    "unsaved_action",
]

READ_BACK_SECONDS = 2.0
"""How long the database is given to say whether it holds a checkpoint whose save raised."""


class SaveUnknown(Exception):
    """A checkpoint save cut off with the connection, and the database could not be asked."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(_error_text(error))
        self.error = error


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error).strip()[:300]}"


def outcome_unknowable(error: BaseException) -> bool:
    """Could a save that raised ``error`` have been written all the same?  Only when the
    connection failed with the statement out: a driver's connection-level error carrying no
    error code of the server's (a statement the server refused wrote nothing), or the
    connection reset or timed out.  SQLite's errors are always the statement's own."""
    if isinstance(error, sqlite3.Error):
        return False
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    name = type(error).__name__
    return name in ("OperationalError", "InterfaceError") and not getattr(error, "sqlstate", None)


def _lookup(config: Any, checkpoint_id: str) -> dict[str, Any]:
    conf = dict((config or {}).get("configurable") or {})
    conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def _holds(found: Any, checkpoint_id: str) -> bool:
    if found is None:
        return False
    conf = (getattr(found, "config", None) or {}).get("configurable") or {}
    return str(conf.get("checkpoint_id")) == checkpoint_id


def read_back(
    cls: type, saver: Any, config: Any, checkpoint_id: str, timeout: float = READ_BACK_SECONDS
) -> bool | None:
    """Does the app's database hold ``checkpoint_id`` (``cls.get_tuple`` on ``saver``)?  None
    when it cannot say within ``timeout`` (asked on a thread of its own, left to finish)."""
    answer: dict[str, Any] = {}
    done = threading.Event()

    def ask() -> None:
        try:
            answer["found"] = cls.get_tuple(saver, _lookup(config, checkpoint_id))
        except Exception:  # unreachable as well: the outcome stays unknown
            pass
        finally:
            done.set()

    threading.Thread(target=ask, name="stepwise-save-read-back", daemon=True).start()
    if not done.wait(timeout) or "found" not in answer:
        return None
    return _holds(answer["found"], checkpoint_id)


async def aread_back(
    cls: type, saver: Any, config: Any, checkpoint_id: str, timeout: float = READ_BACK_SECONDS
) -> bool | None:
    """``read_back`` for an async saver (``cls.aget_tuple``)."""
    try:
        found = await asyncio.wait_for(
            cls.aget_tuple(saver, _lookup(config, checkpoint_id)), timeout
        )
    except Exception:  # unreachable, or no answer in time
        return None
    return _holds(found, checkpoint_id)


def unsaved_action(
    checkpoint_id: str, step: int | None, error: BaseException
) -> tuple[str, dict[str, Any]]:
    """The action (``checkpoint_not_saved`` / ``checkpoint_save_unknown``) and its detail for
    a checkpoint whose save failed, or whose outcome is unknown."""
    if isinstance(error, SaveUnknown):
        return "checkpoint_save_unknown", {
            "checkpoint_id": checkpoint_id,
            "step": step,
            "error": str(error),
            "message": "the connection to the app's database was lost while this checkpoint "
            "was being saved, and the database could not be asked: it may or may not hold it",
        }
    return "checkpoint_not_saved", {
        "checkpoint_id": checkpoint_id,
        "step": step,
        "error": _error_text(error),
        "message": "the app's checkpointer failed to save this checkpoint: "
        "it is not in the app's database",
    }
