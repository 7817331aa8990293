"""The events of one run of a long session that were left in the file, in a window of their own.

A session past the load limit opens on its newest runs (``studio.history.replay``); time
travel reaches the older runs' checkpoints (their state, and figures counted from the file),
not their events.  The Timeline's "Show this run's events" opens this window on the run of the
checkpoint picked: an Events tree of its own (its own hub, so the main window's views keep the
loaded runs), read from the file at once, the checkpoint's row selected.  Picking a
checkpoint's row there shows that moment in the main window (time travel).  A run longer than
the limit shows the part around that checkpoint (``studio.history.long_run.run_around``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from engine.events import CheckpointSaved, EventBase
from engine.recording import Session
from studio.docks.events.view import EventLogDock
from studio.history.long_run import run_around
from studio.models.hub import Hub
from studio.models.pricing import PriceTable
from studio.widgets.plain_text import plain_label
from studio.widgets.screen_fit import screen_room

__all__ = ["RUN_EVENTS_LIMIT", "RunEventsWindow"]

RUN_EVENTS_LIMIT = 50_000
"""Events of the run read at most (the main window's load limit)."""


class RunEventsWindow(QDialog):
    """``run_id``'s events (a run of the session at ``path``), ``checkpoint_id``'s row
    selected.  Raises ``SessionError`` when the file cannot be read."""

    def __init__(
        self,
        path: str | Path,
        run_id: str,
        checkpoint_id: str | None = None,
        *,
        prices: PriceTable | None = None,
        travel: Callable[[str], None] | None = None,
        limit: int = RUN_EVENTS_LIMIT,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.run_id = run_id
        self.travel = travel
        """Shows a checkpoint in the main window (its hub's ``select_checkpoint``)."""
        self.hub = Hub()
        if prices is not None:
            self.hub.set_prices(prices)
        with Session.open(path) as session:
            at = _saved_at(session, run_id, checkpoint_id)
            events, self.left_out = run_around(session, run_id, at or 1, limit)
        self.events = len(events)
        self.setWindowTitle(f"Run …{run_id[-8:]}: its events, read from {Path(path).name}")
        self.header = plain_label(self._header(at is not None), self)
        self.header.setWordWrap(True)
        self.dock = EventLogDock(self.hub, self)
        self.dock.offer_playground(False)  # the playground asks the main window's run
        self.hub.add_events(events)
        self.dock.set_follow(False)
        if at is not None:
            self.dock.select_seq(at, run_id)
        self.hub.subscribe("event", self._picked)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.dock, 1)
        layout.addWidget(buttons)
        room = screen_room(self)
        self.resize(min(room.width(), 900), min(room.height(), 640))

    def _header(self, placed: bool) -> str:
        n = self.events
        text = f"{n:,} event{'s' if n != 1 else ''} of run …{self.run_id[-8:]}"
        if self.left_out:
            text += f" ({self.left_out:,} more stay in the file: the part around the checkpoint)"
        text += ", read from the session file; the main window shows the newest runs."
        if placed:
            text += " The checkpoint picked in the Timeline is selected."
        if self.travel is not None:
            text += " Pick a checkpoint's row to show that moment in the main window."
        return text

    def _picked(self, event: EventBase | None) -> None:
        """A checkpoint's row picked here: the main window travels to that moment."""
        if self.travel is None or not isinstance(event, CheckpointSaved) or event.ns:
            return
        if event.checkpoint_id:
            self.travel(event.checkpoint_id)

    def done(self, result: int) -> None:
        self.dock.detach()
        super().done(result)


def _saved_at(session: Session, run_id: str, checkpoint_id: str | None) -> int | None:
    """The ``seq`` of ``checkpoint_id``'s ``checkpoint.saved`` in the run (None: not there)."""
    return None if checkpoint_id is None else session.checkpoint_seq(run_id, checkpoint_id)
