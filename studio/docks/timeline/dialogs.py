"""The Timeline dock's dialogs: Edit State for a checkpoint, Compare Branches for two.

Both are kept alive by the dock (``TimelineDock.keep``) while they are open; an edit that writes
a new checkpoint, or asks to resume from it, is passed on through the dock's signals
(``editApplied``, ``resumeRequested``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.docks.timeline.view import TimelineDock

__all__ = ["open_compare", "open_edit"]


def open_edit(dock: TimelineDock, checkpoint_id: str | None) -> Any:
    """The Edit State dialog for ``checkpoint_id`` (None: the thread's tip).

    On the app's loop the state is read first, in a task (returned; the dialog opens when it is
    read: the window never waits on a slow target); with no loop running, now (the dialog is
    returned)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _open(dock, checkpoint_id, None)
    return loop.create_task(_aopen(dock, checkpoint_id))


async def _aopen(dock: TimelineDock, checkpoint_id: str | None) -> Any:
    try:
        snapshot = await dock.hub.snapshots.read(checkpoint_id)
    except Exception as exc:  # a server gone away: say so, lose nothing
        dock.summary_label.setText(f"cannot read the state: {exc}")
        return None
    if snapshot is None:
        dock.summary_label.setText("there is no state to edit yet")
        return None
    return _open(dock, checkpoint_id, snapshot)


def _open(dock: TimelineDock, checkpoint_id: str | None, snapshot: Any) -> Any:
    from studio.dialogs.edit_state import EditStateDialog

    dialog = EditStateDialog(
        dock.hub, checkpoint_id, timeline=dock.timeline, snapshot=snapshot, parent=dock
    )
    dialog.applied.connect(dock.editApplied)
    dialog.resumeRequested.connect(dock.resumeRequested)
    dock.keep(dialog)
    dialog.open()
    return dialog


def open_compare(dock: TimelineDock, left_id: str, right_id: str) -> Any:
    """The Compare Branches window for two checkpoints (usually branch tips)."""
    from studio.docks.timeline.compare import CompareBranchesDialog

    dialog = CompareBranchesDialog(dock.hub, dock.timeline, left_id, right_id, parent=dock)
    dock.keep(dialog)
    dialog.show()
    return dialog
