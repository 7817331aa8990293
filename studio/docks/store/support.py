"""What the Store dock needs besides its view: reading off the UI thread, and the texts of
its rows' marks and times."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.models.store_view import DELETED, READ, WRITTEN

__all__ = ["BackgroundReader", "marks_text", "when_text"]


class BackgroundReader(QObject):
    """Runs reads off the UI thread and hands results back through a queued signal."""

    done = Signal(int, object, object)

    def run(self, gen: int, fn: Callable[[], Any], blocking: bool) -> None:
        def work() -> None:
            try:
                result, error = fn(), None
            except Exception as exc:  # shown as one line in the dock
                result, error = None, exc
            self.done.emit(gen, result, error)

        if blocking:
            threading.Thread(target=work, name="stepwise-store-read", daemon=True).start()
        else:
            work()


def marks_text(marks: set[str]) -> str:
    return "".join(
        letter for mark, letter in ((READ, "R"), (WRITTEN, "W"), (DELETED, "D")) if mark in marks
    )


def when_text(iso: str | None) -> str:
    """``12:37:51`` for today (local time), else the date and time."""
    if not iso:
        return ""
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso[:19]
    if when.tzinfo is not None:
        when = when.astimezone()
    today = dt.datetime.now(when.tzinfo).date()
    return when.strftime("%H:%M:%S" if when.date() == today else "%Y-%m-%d %H:%M")
