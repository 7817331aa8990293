"""The status bar: run state, superstep, current node, elapsed time, model calls and tokens.

Every field sits in one row (``StatusRow``) that lays itself out: a field whose text takes
another width moves its neighbours in that row, and neither the status bar nor the main window
above it hears of it.  (A ``QStatusBar`` told of a new size hint repaints itself whole and
makes ``QLayout.activate`` re-lay out the main window: every dock, twice per agent turn.)
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QStatusTipEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStatusBar, QWidget

from engine.events import EventBase
from studio.models.branch_events import branch_events
from studio.models.hub import Hub
from studio.models.run_stats import RunStats
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.plain_text import plain_label
from studio.widgets.steady_slot import steady

__all__ = ["RunStatusBar", "StatusRow"]

_FIELDS = ("step", "node", "elapsed", "models", "tokens")
_SPACING = 6
"""Between two fields: what ``QStatusBar`` puts between its items."""


class StatusRow(QWidget):
    """The status bar's fields in one row, laid out as ``QStatusBar`` lays out its items: the
    fields added with ``add`` left to right, those added with ``add_permanent`` at the right.

    It stands in the status bar in a ``SteadySlot`` that takes the bar's whole width
    (horizontal policy ``Ignored``), so a field's new width re-lays out this row only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(_SPACING)
        self._row.addStretch(0)  # between the fields and the permanent ones, as QStatusBar's
        self._left = 0

    def add(self, widget: QWidget, stretch: int = 0) -> None:
        self._row.insertWidget(self._left, widget, stretch)
        self._left += 1

    def add_permanent(self, widget: QWidget, stretch: int = 0) -> None:
        self._row.addWidget(widget, stretch)


class RunStatusBar(QStatusBar):
    """Reads ``RunStats`` fed by the hub; ticks the elapsed time while a run is going on."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.stats = RunStats()
        self.setSizeGripEnabled(False)
        self.state_label = plain_label(parent=self)
        self.state_label.setObjectName("statusState")
        self.message_label = ElidedLabel(parent=self)  # a long note never widens the window
        self.message_label.setObjectName("muted")
        self.fields: dict[str, QLabel] = {}
        self.row = StatusRow(self)
        self.addWidget(steady(self.row), 1)
        # each in a SteadySlot too: a new figure of the same width does not re-lay out the row
        self.row.add(steady(self.state_label))
        self._note_slot = steady(self.message_label)
        self.row.add(self._note_slot, 1)
        self.tip_label = ElidedLabel(parent=self)  # an action's status tip, in the note's place
        self.tip_label.setObjectName("muted")
        self._tip_slot = steady(self.tip_label)
        self._tip_slot.hide()
        self.row.add(self._tip_slot, 1)
        for name in _FIELDS:
            label = ElidedLabel(parent=self) if name == "node" else plain_label(parent=self)
            label.setObjectName("statusField")
            self.fields[name] = label
        node = self.fields["node"]  # node names can be long (hook nodes): elided past 260 px
        node.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        node.setMinimumWidth(90)
        node.setMaximumWidth(260)
        for label in self.fields.values():
            self.row.add_permanent(steady(label))
        self._timer = QTimer(self)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.refresh)
        hub.subscribe("events", self._on_events)
        hub.subscribe("reset", self._on_reset)
        hub.subscribe("shown_status", self._on_status)
        hub.subscribe("selection", self._on_selection)
        hub.subscribe("older_runs", lambda _older: self.refresh())
        self.refresh()

    def add_field(self, widget: QWidget) -> None:
        """``widget`` at the right end of the fields (``addPermanentWidget`` in the row)."""
        self.row.add_permanent(widget)

    def show_message(self, text: str) -> None:
        """A note beside the run state (a load error, "session saved", ...)."""
        self.message_label.setText(text)

    def _note_counting(self, counting: bool) -> None:
        """While a session's older runs are counted in the background, the figures cover the
        loaded runs only: the note says so (when it says nothing else), until they are in."""
        shown = self.message_label.full_text()
        if counting and not shown:
            self.message_label.setText(COUNTING_NOTE)
        elif not counting and shown == COUNTING_NOTE:
            self.message_label.setText("")

    def show_tip(self, tip: str) -> None:
        """An action's status tip (the pointer on a menu item or a button), shown in the note's
        place until the pointer leaves it (an empty tip); the note keeps its text, and the run
        state and the figures stay, where ``QStatusBar.showMessage`` would hide the whole row
        (``StatusTips``)."""
        self.tip_label.setText(tip)
        self._note_slot.setVisible(not tip)
        self._tip_slot.setVisible(bool(tip))

    def _on_events(self, batch: list[EventBase]) -> None:
        if self.hub.selected_checkpoint is not None:
            return  # showing a past moment: "Live" brings the run's figures back
        self.stats.apply(batch)
        self.refresh()

    def _on_selection(self, checkpoint_id: str | None) -> None:
        """Time travel: the step, node, model calls and tokens as of the selected checkpoint
        (on its branch); back to the live figures with None."""
        self.stats.reset()
        self.stats.apply(branch_events(self.hub.events, checkpoint_id))
        if checkpoint_id is not None:
            saved = self.hub.saved.get(checkpoint_id)
            short = f"…{checkpoint_id[-8:]}"
            older = self.hub.older_runs
            if saved is None and older is not None and older.place(checkpoint_id) == "loaded":
                # loaded, not fed yet (a long session opening): the hub tells again when it is
                self.show_message(f"Time travel: loading the events up to {short}…")
            elif saved is None and older is not None:
                # a checkpoint of the session's runs left unloaded: the figures are counted
                # from their outline up to it, where that can be done
                upto = self.hub.older_before(checkpoint_id)
                if upto is not None and upto.at_checkpoint == checkpoint_id:
                    where = "a checkpoint" if upto.step is None else f"step {upto.step}"
                    self.show_message(
                        f"Time travel: {where} of a run not loaded ({short}): figures counted"
                        " from the file, its events in the Timeline's right-click menu;"
                        " ● Live returns to now"
                    )
                else:
                    self.show_message(
                        f"Time travel: a checkpoint of a run not loaded ({short}): its events"
                        " in the Timeline's right-click menu; ● Live returns to now"
                    )
            else:
                step = saved.step if saved is not None else None
                where = f"step {step}" if step is not None else "a checkpoint"
                self.show_message(f"Time travel: showing {where} ({short}); ● Live returns to now")
        else:
            self.show_message("")
        self.refresh()

    def _on_reset(self) -> None:
        self.stats.reset()
        self.refresh()

    def _on_status(self, status: str) -> None:
        if status in ("running", "paused"):
            self._timer.start()
        else:
            self._timer.stop()
        self.refresh()

    def refresh(self) -> None:
        status = self.hub.shown_status
        live = status in ("running", "paused") and self.hub.selected_checkpoint is None
        # a session's runs left unloaded: live, the figures count every run of the thread;
        # at a checkpoint, the runs of its branch
        older, selected = self.hub.older_runs, self.hub.selected_checkpoint
        earlier = older if selected is None else self.hub.older_before(selected)
        parts = self.stats.text_parts(
            status, time.monotonic_ns() if live else None, earlier.stats if earlier else None
        )
        if earlier is not None and earlier.at_checkpoint is not None and earlier.step is not None:
            parts["step"] = f"Step {earlier.step}"  # no loaded event reaches that moment
        self._note_counting(older is not None and older.reading and selected is None)
        self.state_label.setText(parts["state"])
        if self.state_label.property("state") != status:
            self.state_label.setProperty("state", status)
            self.state_label.style().unpolish(self.state_label)
            self.state_label.style().polish(self.state_label)
        for name, label in self.fields.items():
            label.setText(parts[name])


COUNTING_NOTE = "Counting the runs left in the file: the figures cover the loaded runs so far"


class StatusTips(QObject):
    """Shows the status tips that reach the main window in the status bar's note
    (``RunStatusBar.show_tip``): ``QMainWindow`` would hand them to ``QStatusBar.showMessage``,
    which hides the bar's row, the run state and every figure with it, while the pointer is on
    an action."""

    def __init__(self, bar: RunStatusBar) -> None:
        super().__init__(bar)
        self.bar = bar

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.StatusTip and isinstance(event, QStatusTipEvent):
            self.bar.show_tip(event.tip())
            return True
        return False
