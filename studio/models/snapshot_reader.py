"""Reading a checkpoint for a dock without blocking the UI.

Under the app's qasync loop a dock reads with ``await target.state(...)`` in a task on that
loop (a sync read would wait on a helper thread, with the checkpointer used from another
thread, or on a server); with no loop running (scripts, model tests) it reads synchronously.  Only the
newest request's result is delivered, so quick selection changes never show a stale checkpoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from studio.models.hub import Hub

__all__ = ["Loaded", "SnapshotReader"]

Loaded = Callable[[Any, Any], None]
"""``(snapshot or None, parent snapshot or None)``; an exception instead of a snapshot when the
checkpoint cannot be read."""


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class SnapshotReader:
    def __init__(self, hub: Hub, on_loaded: Loaded, *, with_parent: bool = False) -> None:
        self.hub = hub
        self.on_loaded = on_loaded
        self.with_parent = with_parent
        self.task: asyncio.Task[None] | None = None
        self._generation = 0

    def read(self, checkpoint_id: str | None) -> asyncio.Task[None] | None:
        """Read ``checkpoint_id`` (None: the live tip); returns the task when it runs async."""
        self._generation += 1
        generation = self._generation
        if self.hub.target is None:
            self.on_loaded(None, None)
            return None
        loop = _running_loop()
        if loop is None:
            try:
                snapshot = self.hub.snapshot(checkpoint_id)
                parent = self._parent_sync(snapshot)
            except Exception as exc:
                self.on_loaded(exc, None)
                return None
            self.on_loaded(snapshot, parent)
            return None
        self.task = loop.create_task(self._read(generation, checkpoint_id))
        return self.task

    def _parent_id(self, snapshot: Any) -> str | None:
        if not self.with_parent or snapshot is None:
            return None
        parent = getattr(snapshot, "parent_config", None) or {}
        return parent.get("configurable", {}).get("checkpoint_id")

    def _parent_sync(self, snapshot: Any) -> Any:
        parent_id = self._parent_id(snapshot)
        return self.hub.snapshot(parent_id) if parent_id else None

    async def _read(self, generation: int, checkpoint_id: str | None) -> None:
        target = self.hub.target
        try:
            snapshot = await self.hub.read_state(checkpoint_id)
            parent_id = self._parent_id(snapshot)
            parent = await self.hub.read_state(parent_id) if parent_id else None
        except Exception as exc:
            if generation == self._generation:
                self.on_loaded(exc, None)
            return
        if generation == self._generation and target is self.hub.target:
            self.on_loaded(snapshot, parent)
