"""The checkpoints the docks read, shared: one read per checkpoint, not one per dock.

Every dock that shows a moment (State, Diff, Graph, Messages, Todos, Plan) reads the selected
checkpoint, or the live tip after each batch of a run's events.  ``SnapshotCache.read`` is
what they await (through ``studio.models.snapshot_reader``):

- reads of the same checkpoint at the same moment share one request: the docks a batch of
  events wakes up make one read of the tip between them, not six (on a server, six HTTP
  round trips);
- a checkpoint's state is kept once it is *final*, so selecting it again costs nothing.  A
  checkpoint is final once a later checkpoint names it as its parent (the run moved on: the
  step that ran from it wrote what it wrote), or when the target runs nothing (a recorded
  session).  The tip is not final: while a run goes on, the tasks running from it add their
  writes, interrupts and errors to it, so it is read again at every new batch of events.

``Hub.revision`` tells moments apart: it changes with every batch of events, reset, thread
and target.  Plain Python, no Qt.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import TYPE_CHECKING

from engine.targets import Capability

if TYPE_CHECKING:
    from engine.types import StateSnapshot
    from studio.models.hub import Hub

__all__ = ["SnapshotCache"]

_Key = tuple[str, str, str]
"""(thread, checkpoint_ns, checkpoint_id)."""


def snapshot_id(snapshot: StateSnapshot | None) -> str | None:
    """The checkpoint id a snapshot was read at (None: no checkpoint)."""
    config = getattr(snapshot, "config", None) or {}
    return (config.get("configurable") or {}).get("checkpoint_id")


class SnapshotCache:
    """See the module docstring.  ``size`` final snapshots are kept (least recently used go)."""

    def __init__(self, hub: Hub, size: int = 32) -> None:
        self.hub = hub
        self.size = size
        self._final: OrderedDict[_Key, StateSnapshot] = OrderedDict()
        self._reading: dict[tuple[object, ...], asyncio.Future[StateSnapshot | None]] = {}
        self._revision = -1
        """The hub's revision the non-final answers in ``_reading`` belong to."""
        self.fetches = 0
        """How many reads reached the target (for tests and diagnostics)."""
        self.readers: set[asyncio.Task[None]] = set()
        """Docks' reads whose answer is not shown yet (``SnapshotReader`` tasks)."""

    @property
    def idle(self) -> bool:
        """Whether every dock shows what it last asked for (no read under way)."""
        return not any(not t.done() for t in self.readers)

    def track(self, task: asyncio.Task[None]) -> None:
        """Count ``task`` (a dock's read and its showing) until it is done."""
        self.readers.add(task)
        task.add_done_callback(self.readers.discard)

    def clear(self) -> None:
        self._final.clear()
        self._reading.clear()

    def is_final(self, checkpoint_id: str | None) -> bool:
        """Whether ``checkpoint_id``'s state can change no more (see the module docstring)."""
        target = self.hub.target
        if checkpoint_id is None or target is None:
            return False
        return checkpoint_id in self.hub.has_child or Capability.RUN not in target.capabilities

    def cached(self, checkpoint_id: str | None) -> StateSnapshot | None:
        """The kept state of a final checkpoint (None: not kept)."""
        if not checkpoint_id:
            return None
        key = self._key(checkpoint_id)
        snap = self._final.get(key)
        if snap is not None:
            self._final.move_to_end(key)
        return snap

    def _key(self, checkpoint_id: str) -> _Key:
        hub = self.hub
        return (hub.thread_id, hub.checkpoint_ns.get(checkpoint_id, ""), checkpoint_id)

    async def read(self, checkpoint_id: str | None) -> StateSnapshot | None:
        """The state at ``checkpoint_id`` (None: the live tip of the hub's thread)."""
        hub = self.hub
        kept = self.cached(checkpoint_id)
        if kept is not None:
            return kept
        final = self.is_final(checkpoint_id)  # decided before reading: see the module docstring
        if hub.revision != self._revision:  # a new moment: what was read before is old
            self._revision = hub.revision
            self._reading = {k: f for k, f in self._reading.items() if k[-1] is None}
        key = (id(hub.target), hub.thread_id, checkpoint_id, None if final else hub.revision)
        shared = self._reading.get(key)
        if shared is not None:  # another dock read it (or is reading it) at this moment
            return await asyncio.shield(shared)
        # the first reader reads (no extra task: as soon as a direct read), the others wait;
        # the answer stays for the docks asking later at the same moment
        shared = self._reading[key] = asyncio.get_running_loop().create_future()
        try:
            snap = await self._fetch(checkpoint_id, final)
        except BaseException as exc:
            self._reading.pop(key, None)  # asked again, read again
            if isinstance(exc, asyncio.CancelledError):
                shared.cancel()
            else:
                shared.set_exception(exc)
                shared.exception()  # retrieved: the readers waiting have it, or none waits
            raise
        shared.set_result(snap)
        if final:
            self._reading.pop(key, None)  # kept in ``_final`` instead
        return snap

    async def _fetch(self, checkpoint_id: str | None, final: bool) -> StateSnapshot | None:
        hub = self.hub
        target, thread = hub.target, hub.thread_id
        if target is None:
            return None
        ns = hub.checkpoint_ns.get(checkpoint_id, "") if checkpoint_id else ""
        self.fetches += 1
        snap = await target.state(thread, checkpoint_id, checkpoint_ns=ns)
        # kept only when final before it was read (a tip read as it moved on may lack the
        # writes the step from it made)
        if snap is not None and checkpoint_id and final and target is hub.target:
            self._final[(thread, ns, checkpoint_id)] = snap
            while len(self._final) > self.size:
                self._final.popitem(last=False)
        return snap
