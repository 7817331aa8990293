"""Checkpoints whose save outcome was unknown, asked about again at the thread's next run.

A save cut off with the connection, while the database could not be asked either, is reported
``checkpoint_save_unknown`` (``engine.attach.save_outcome``): the server may have committed it.
The attached graph keeps those checkpoints per thread.  When the thread runs again (the
database answers again, or the run would fail at its first read), the database is asked once
more, and a ``checkpoint_save_resolved`` action says what it holds: the checkpoint saved after
all, or not saved.  One it still cannot answer for stays unknown, and is asked about again at
the run after.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from engine.attach.save_outcome import aread_back, read_back

__all__ = ["RESOLVED", "UnknownSaves"]

RESOLVED = "checkpoint_save_resolved"
"""The action that says what became of a checkpoint whose save outcome was unknown."""

Emit = Callable[[str, dict[str, Any]], Awaitable[object]]
"""Emits a ``middleware.action`` of the checkpointer: (action, detail)."""


def _detail(checkpoint_id: str, held: bool) -> dict[str, Any]:
    return {
        "checkpoint_id": checkpoint_id,
        "saved": held,
        "message": "the app's database holds this checkpoint: its save, cut off with the "
        "connection, had been committed"
        if held
        else "the app's database does not hold this checkpoint: its save, cut off with the "
        "connection, was not committed",
    }


class UnknownSaves:
    """Per thread, the checkpoints whose save outcome is not known yet (see the module
    docstring).  Shared by the runs of one attached graph (a factory's runs included)."""

    def __init__(self) -> None:
        self._ids: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def note(self, thread_id: str | None, checkpoint_ids: Iterable[str]) -> None:
        """A run of ``thread_id`` ended with these saves' outcomes unknown."""
        if thread_id is None:
            return
        with self._lock:
            pending = self._ids.setdefault(thread_id, [])
            pending.extend(c for c in checkpoint_ids if c not in pending)
            if not pending:
                del self._ids[thread_id]

    def pending(self, thread_id: str | None) -> list[str]:
        """The checkpoints of ``thread_id`` whose save outcome is not known yet."""
        with self._lock:
            return list(self._ids.get(thread_id, ())) if thread_id is not None else []

    async def resolve(
        self, thread_id: str | None, saver: Any, config: dict[str, Any], sync: bool, emit: Emit
    ) -> None:
        """Ask the app's database about each unknown checkpoint of ``thread_id`` (on its sync
        API off the loop when the run is sync, else on its async API; each read bounded) and
        report each it answers for."""
        if thread_id is None:
            return
        cls = type(saver)
        for checkpoint_id in self.pending(thread_id):
            if sync:  # ``read_back`` waits on a thread of its own: not on the loop
                held = await asyncio.to_thread(read_back, cls, saver, config, checkpoint_id)
            else:
                held = await aread_back(cls, saver, config, checkpoint_id)
            if held is None:  # the database still cannot say
                continue
            with self._lock:
                pending = self._ids.get(thread_id, [])
                if checkpoint_id in pending:
                    pending.remove(checkpoint_id)
                if not pending:
                    self._ids.pop(thread_id, None)
            await emit(RESOLVED, _detail(checkpoint_id, held))
