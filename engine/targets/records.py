"""``CheckpointRecord``: what a timeline knows of one checkpoint without reading its values
(from a ``checkpoint.saved`` event, a saver's row listing, a server's history or a session)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.events import EventBase

__all__ = ["CheckpointRecord"]


@dataclass(frozen=True, slots=True)
class CheckpointRecord:
    """What the timeline knows about one checkpoint (from an event, a saver or a session)."""

    checkpoint_id: str
    parent_id: str | None = None
    step: int | None = None
    source: str = "loop"
    writers: tuple[str, ...] = ()
    next: tuple[str, ...] | None = None
    """Nodes due next; None when unknown (e.g. listed from a saver without the graph)."""
    run_id: str | None = None

    @classmethod
    def from_event(cls, ev: EventBase) -> CheckpointRecord:
        d = ev.__dict__
        return cls(
            checkpoint_id=str(ev.checkpoint_id),
            parent_id=d.get("parent_id"),
            step=ev.step,
            source=str(d.get("source") or "loop"),
            writers=tuple(d.get("writer_nodes") or ()),
            next=tuple(d.get("next") or ()),
            run_id=ev.run_id,
        )

    def merged(self, other: CheckpointRecord) -> CheckpointRecord:
        """This record completed with what ``other`` knows and this one does not."""
        return replace(
            self,
            parent_id=self.parent_id if self.parent_id is not None else other.parent_id,
            step=self.step if self.step is not None else other.step,
            writers=self.writers or other.writers,
            next=self.next if self.next is not None else other.next,
            run_id=self.run_id or other.run_id,
        )
