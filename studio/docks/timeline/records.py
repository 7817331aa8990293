"""Where the Timeline dock reads a thread's checkpoints: the target's listing, completed with
the checkpoints the run announced (or the run's events alone when the target keeps none)."""

from __future__ import annotations

from engine.core.aio import run_sync
from engine.targets import Capability
from engine.targets.checkpoint_list import records_from_events
from studio.models.hub import Hub
from studio.models.timeline import CheckpointRecord

__all__ = ["aload_records", "load_records", "with_announced"]


async def aload_records(hub: Hub) -> list[CheckpointRecord]:
    """The current thread's checkpoints, from the target (from the run's events when the
    target keeps none)."""
    target = hub.target
    if target is None:
        return []
    if Capability.FORK not in target.capabilities and Capability.RUN in target.capabilities:
        return records_from_events(hub.events, hub.thread_id)  # no checkpointer: events only
    return with_announced(hub, await target.checkpoints(hub.thread_id))


def with_announced(hub: Hub, stored: list[CheckpointRecord]) -> list[CheckpointRecord]:
    """``stored`` and the checkpoints the run announced that it lacks: a checkpoint announced
    may not be written yet (the saver writes in the background); the listing completes it
    later."""
    listed = {r.checkpoint_id for r in stored}
    announced = records_from_events(hub.events, hub.thread_id)
    return [*stored, *(r for r in announced if r.checkpoint_id not in listed)]


def load_records(hub: Hub) -> list[CheckpointRecord]:
    """``aload_records``, read now (off the loop; on the loop the dock reads in a task)."""
    return run_sync(aload_records(hub))
