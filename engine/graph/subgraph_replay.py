"""Which state a subgraph starts from when its parent re-runs from a past checkpoint.

When the root graph time-travels, each subgraph namespace, the first time it runs in that
run, loads its newest checkpoint saved *before* the replay point (so a ``checkpointer=True``
subgraph sees the state it had then, not what later runs added); later calls in the same run
load their newest checkpoint as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

__all__ = ["ReplayState"]


class ReplayState:
    """Shared by every subgraph of one replaying run."""

    def __init__(self, bound_id: str) -> None:
        self.bound_id = bound_id
        self._seen: set[str] = set()

    def first_visit(self, ns: str) -> bool:
        key = ns.rsplit(":", 1)[0] if ":" in ns else ns
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    async def load(
        self, saver: BaseCheckpointSaver, thread_id: str | None, ns: str
    ) -> CheckpointTuple | Literal[False] | None:
        """The checkpoint to start from, None for none, or False: load the newest as usual."""
        if not self.first_visit(ns):
            return False
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        before = {"configurable": {"checkpoint_id": self.bound_id}}
        async for saved in saver.alist(config, before=before, limit=1):
            return saved
        return None
