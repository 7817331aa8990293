"""The status bar's cost field: what the shown run and the whole thread cost so far (a
session's older runs left unloaded included: ``hub.older_runs``).

A thin label over a ``UsageLedger`` fed the current thread's events; while time-travelling,
the run figure is that of the selected checkpoint's branch up to it (the thread figure stays
what the thread really spent, every branch included).  Prices come from ``hub.prices``.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from engine.events import EventBase
from studio.models.branch_events import branch_events
from studio.models.hub import Hub
from studio.models.pricing import totals_text
from studio.models.usage_ledger import UsageLedger
from studio.widgets.dock_support import bind_to_hub
from studio.widgets.plain_tip import plain_tip

__all__ = ["CostStatus"]


class CostStatus(QLabel):
    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusField")
        self.hub = hub
        self.ledger = UsageLedger()
        """Every model call of the current thread."""
        self.moment: UsageLedger | None = None
        """While time-travelling: the calls of the selected branch up to the checkpoint."""
        bind_to_hub(
            self,
            hub,
            {
                "events": self._on_events,
                "reset": self._rebuild,
                "thread": lambda _t: self._rebuild(),
                "selection": lambda _c: self._rebuild(),
                "prices": lambda _p: self.refresh(),
                "older_runs": lambda _o: self.refresh(),
            },
        )
        self._rebuild()

    def _mine(self, ev: EventBase) -> bool:
        return ev.thread_id in (None, self.hub.thread_id)

    def _on_events(self, batch: list[EventBase]) -> None:
        self.ledger.add_all(e for e in batch if self._mine(e))
        self.refresh()

    def _rebuild(self) -> None:
        events = [e for e in self.hub.events if self._mine(e)]
        self.ledger.reset()
        self.ledger.add_all(events)
        selected = self.hub.selected_checkpoint
        self.moment = None
        if selected is not None:
            self.moment = UsageLedger()
            self.moment.add_all(branch_events(events, selected))
        self.refresh()

    def refresh(self) -> None:
        run_ledger = self.moment or self.ledger
        thread = self.ledger.total()
        older = self.hub.older_runs
        if older is not None:  # a session's unloaded runs spent too
            thread = thread.merged(older.total())
        run = run_ledger.run(run_ledger.last_run)
        selected = self.hub.selected_checkpoint
        if run is None and selected is not None:
            upto = self.hub.older_before(selected)
            if upto is not None and upto.at_checkpoint == selected:  # a moment of theirs
                run = upto.run_usage
        text, tip = totals_text(self.hub.prices, run, thread)
        self.setText(text)
        self.setToolTip(plain_tip(tip))
        self.setVisible(bool(text))
