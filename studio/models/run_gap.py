"""The middle of a cut run, left in the file: what the Events tree says in its place.

A run longer than the load limit is loaded as its start and its last events
(``studio.history.long_run``).  ``RunGap`` is what the Events tree needs to mark the events in
between: the run (its ``run.started`` event), how many events stay in the file, and which root
supersteps they are, where the loaded events tell (plain Python, no Qt).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RunGap"]


@dataclass(frozen=True)
class RunGap:
    run_id: str
    run_seq: int
    """The ``seq`` of the run's ``run.started`` (the row the gap is shown under)."""
    events: int
    """Events of the run left in the file."""
    steps: tuple[int, int] | None = None
    """The root supersteps left out whole (first, last; None: not known, or none)."""
    part_of: int | None = None
    """The root superstep whose start is left out (its end is loaded; None: none)."""

    @property
    def where(self) -> str:
        """Which supersteps are left out ("" when the loaded events do not tell)."""
        parts: list[str] = []
        if self.steps is not None:
            lo, hi = self.steps
            parts.append(f"superstep {lo}" if lo == hi else f"supersteps {lo}–{hi}")
        if self.part_of is not None:
            parts.append(f"the start of superstep {self.part_of}")
        return " and ".join(parts)

    @property
    def label(self) -> str:
        """The gap's row: "5,962 events not loaded (supersteps 0–851 of this run stay in the
        file)" (its icon is an ellipsis)."""
        n = self.events
        noun = "event" if n == 1 else "events"
        where = self.where
        if not where:
            they = "it stays" if n == 1 else "they stay"
            return f"{n:,} {noun} of this run not loaded ({they} in the file)"
        steps = self.steps
        several = steps is not None and (steps[0] != steps[1] or self.part_of is not None)
        verb = "stay" if several else "stays"
        return f"{n:,} {noun} not loaded ({where} of this run {verb} in the file)"

    @property
    def note(self) -> str:
        """What the details pane says of the gap's row."""
        where = f" ({self.where})" if self.where else ""
        return (
            f"{self.events:,} events in the middle of this run{where} are not loaded: the run "
            "holds more events than the load limit, so its start and its last events were "
            "loaded. The rest stay in the session file."
        )
