"""Reading a checkpoint for a dock without blocking the UI.

Under the app's qasync loop a dock reads in a task on that loop, through the hub's shared
``SnapshotCache`` (``studio.models.snapshot_cache``: one read per checkpoint and moment for
every dock, final checkpoints kept); the window never waits on a slow target (a server, a big
thread).  With no loop running (scripts, model tests) it reads synchronously.  Only the newest
request's result is delivered, so quick selection changes never show a stale checkpoint.

A read may bring a second checkpoint with it, to compare against: ``base=PARENT`` (the parent
of the one read) or a checkpoint id; when that one cannot be read, the first shows compared with
nothing (None).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from studio.models.hub import Hub

__all__ = ["PARENT", "Loaded", "SnapshotReader"]

Loaded = Callable[[Any, Any], None]
"""``(snapshot or None, base snapshot or None)``; an exception instead of a snapshot when the
checkpoint cannot be read."""

PARENT: Final = "<parent>"
"""``base``: the parent of the checkpoint read."""


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
        """Read every checkpoint's parent too (the default ``base``)."""
        self.task: asyncio.Task[None] | None = None
        self._generation = 0

    @property
    def busy(self) -> bool:
        """Whether a read is under way (its answer not delivered yet)."""
        return self.task is not None and not self.task.done()

    def drop(self) -> None:
        """Deliver no answer for the read under way (nothing newer is asked)."""
        self._generation += 1

    def read(self, checkpoint_id: str | None, base: str | None = None) -> asyncio.Task[None] | None:
        """Read ``checkpoint_id`` (None: the live tip) and ``base`` (``PARENT``, a checkpoint
        id, or None: the parent when the reader was made ``with_parent``, else nothing);
        returns the task when it runs async.  A newer ``read`` makes this one's answer void."""
        self._generation += 1
        generation = self._generation
        if base is None and self.with_parent:
            base = PARENT
        loop = _running_loop()
        if loop is None:
            hub = self.hub
            try:
                tip_not_selection = checkpoint_id is None and hub.selected_checkpoint is not None
                snapshot = self._tip() if tip_not_selection else hub.snapshot(checkpoint_id)
            except Exception as exc:
                self.on_loaded(exc, None)
                return None
            base_id = self._base_id(snapshot, base)
            try:
                other = hub.snapshot(base_id) if base_id else None
            except Exception:  # the checkpoint shows, compared with nothing
                other = None
            self.on_loaded(snapshot, other)
            return None
        if self.hub.target is None:
            self.on_loaded(None, None)
            return None
        self.task = loop.create_task(self._read(generation, checkpoint_id, base))
        self.hub.snapshots.track(self.task)
        return self.task

    def _tip(self) -> Any:
        """The live tip, read now (``hub.snapshot(None)`` reads the selection)."""
        from engine.core.aio import run_sync

        return run_sync(self.hub.snapshots.read(None)) if self.hub.target is not None else None

    @staticmethod
    def _base_id(snapshot: Any, base: str | None) -> str | None:
        if base != PARENT:
            return base
        if snapshot is None or isinstance(snapshot, BaseException):
            return None
        parent = getattr(snapshot, "parent_config", None) or {}
        return parent.get("configurable", {}).get("checkpoint_id")

    async def _read(self, generation: int, checkpoint_id: str | None, base: str | None) -> None:
        hub = self.hub
        target = hub.target
        try:
            snapshot = await hub.snapshots.read(checkpoint_id)
        except Exception as exc:
            if generation == self._generation and target is hub.target:
                self.on_loaded(exc, None)
            return
        base_id = self._base_id(snapshot, base)
        try:
            other = await hub.snapshots.read(base_id) if base_id else None
        except Exception:  # the checkpoint shows, compared with nothing
            other = None
        if generation == self._generation and target is hub.target:
            self.on_loaded(snapshot, other)
