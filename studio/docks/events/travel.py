"""Time travel in the Events dock: where the log shows the moment a checkpoint picked elsewhere
(the Timeline, a run window) was saved.

- a checkpoint whose ``checkpoint.saved`` is loaded: that event's row is selected;
- one saved in the middle of a cut run, left in the file: the gap's row, which stands for those
  events (its note in the details);
- one of an older run left in the file: no row stands for it; the details say where its events
  are and how to see them;
- one whose ``checkpoint.saved`` is loaded but not fed to the log yet (a long session opening):
  the log stops following, and the hub selects it again when it comes (``Hub.add_events``).

Each stops the log following; "● Live" (no checkpoint) follows again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex

if TYPE_CHECKING:
    from studio.docks.events.view import EventLogDock

__all__ = ["travel"]


def travel(dock: EventLogDock, checkpoint_id: str | None) -> None:
    """Show in ``dock`` where ``checkpoint_id`` was saved (None: follow the live run again)."""
    if checkpoint_id is None:
        dock.set_follow(True)
        return
    hub = dock.hub
    saved = hub.saved.get(checkpoint_id)
    older = hub.older_runs
    place = older.place(checkpoint_id) if older is not None and saved is None else None
    if saved is None and place is None:
        return  # a checkpoint no event of the session tells of
    dock.set_follow(False)
    if saved is not None:
        dock.flush()
        dock.select_seq(saved.seq, saved.run_id)
    elif place == "left out":
        dock.flush()
        dock.select_index(dock.model.gap_index())
    elif place == "unloaded run":  # ("loaded": not fed yet; the hub selects it again when it is)
        assert older is not None and older.outline is not None
        where = older.outline.checkpoints[checkpoint_id]
        dock.view.setCurrentIndex(QModelIndex())
        step = f"Step {where.step}" if where.step is not None else "This checkpoint"
        dock.details.show_note(
            f"{step} is in a run not loaded: its events stay in the session file (the oldest "
            f"{older.runs:,} run{'s' if older.runs != 1 else ''} of this session are not "
            "loaded). To see them, right-click the checkpoint on the Timeline: “Show this "
            "run's events (left in the file)…”."
        )
