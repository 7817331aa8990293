"""The **Waterfall** dock: a run's spans as bars on a time axis.

Run > superstep > node > hook / wrapper > attempt > model or tool call, each a bar from its
start to its end; parallel calls side by side on their own rows; a retried attempt beside the
one that failed, the backoff between them drawn; the debugger's pauses as bands, or collapsed
to a marked line so the bars show active time only ("Hide pauses").  One run at a time (the
newest, or the one picked in the list).  Live: events are added as they arrive and the view
repaints at most every 40 ms.  Time travel: the run that saved the picked checkpoint is shown
with the moment marked and what came after dimmed.  A click on a bar selects its event in
every view (hub ``"event"``); an event picked elsewhere is selected here.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase
from studio.docks.waterfall.canvas import WaterfallCanvas
from studio.look.tones import tones_for
from studio.models.event_summary import duration_text
from studio.models.hub import Hub
from studio.models.waterfall import Bar, RunLanes, Waterfall
from studio.widgets.dock_support import bind_to_hub
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.plain_text import plain_tip

__all__ = ["WaterfallDock"]


class WaterfallDock(QWidget):
    """Key widgets: ``run_box``, ``canvas``, ``collapse_box``, ``zoom_in_button``,
    ``zoom_out_button``, ``fit_button``, ``summary``."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WaterfallDock")
        self.hub = hub
        self.model = Waterfall()
        self.canvas = WaterfallCanvas(self)
        self.run_box = QComboBox(self)
        self.run_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.run_box.setToolTip("The run shown (newest last)")
        self.collapse_box = QCheckBox("Hide pauses", self)  # short: the dock shares a laptop row
        self.collapse_box.setChecked(True)
        self.collapse_box.setToolTip(
            "On: bars show active time, each pause at a breakpoint is a marked line.\n"
            "Off: wall-clock time, pauses as hatched bands."
        )
        self.zoom_out_button = _tool("−", "Zoom out (−, or Ctrl+wheel)", self)
        self.zoom_in_button = _tool("+", "Zoom in (+, or Ctrl+wheel)", self)
        self.fit_button = _tool("Fit", "Fit the run to the width (0)", self)
        self.summary = ElidedLabel(parent=self)  # cut with "…" on a narrow dock, whole in its tip
        self.summary.setObjectName("muted")
        # two short rows rather than one long one: the dock shares a 1024-px row with the
        # Events and State docks
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 3, 6, 0)
        bar.addWidget(self.zoom_out_button)
        bar.addWidget(self.zoom_in_button)
        bar.addWidget(self.fit_button)
        bar.addWidget(self.collapse_box)
        bar.addStretch(1)
        runs = QHBoxLayout()
        runs.setContentsMargins(6, 2, 6, 3)
        runs.addWidget(self.run_box)
        runs.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addLayout(runs)
        layout.addWidget(self.canvas, 1)

        self._follow_latest = True
        """Show each new run as it starts (until the user picks an older one)."""
        self.run_box.activated.connect(self._on_run_picked)
        self.collapse_box.toggled.connect(self.canvas.set_collapse)
        self.zoom_in_button.clicked.connect(lambda: self.canvas.zoom(1.5))
        self.zoom_out_button.clicked.connect(lambda: self.canvas.zoom(1 / 1.5))
        self.fit_button.clicked.connect(self.canvas.fit)
        self.canvas.barClicked.connect(self._on_bar_clicked)
        bind_to_hub(
            self,
            hub,
            {
                "events": self._on_events,
                "reset": self._on_reset,
                "event": self._on_event_picked,
                "selection": self._on_checkpoint,
            },
            catch_up=True,
        )
        if hub.events:
            self._on_events(list(hub.events))
        if hub.selected_checkpoint is not None:
            self._on_checkpoint(hub.selected_checkpoint)

    # -- what is shown -------------------------------------------------------------------------

    @property
    def lanes(self) -> RunLanes | None:
        return self.canvas.lanes

    def show_run(self, run_id: str | None) -> None:
        lanes = self.model.runs.get(run_id) if run_id else None
        self.canvas.set_lanes(lanes)
        index = self.run_box.findData(run_id)
        if index >= 0 and index != self.run_box.currentIndex():
            self.run_box.setCurrentIndex(index)
        self._update_summary()

    def _fill_runs(self) -> None:
        box = self.run_box
        known = {box.itemData(i) for i in range(box.count())}
        for number, (run_id, lanes) in enumerate(self.model.runs.items(), 1):
            if run_id not in known:
                box.addItem(f"Run {number}: {lanes.label}", run_id)

    def _update_summary(self) -> None:
        lanes = self.lanes
        if lanes is None:
            self.summary.setText("")
            return
        paused = lanes.paused_ns()
        active = duration_text((lanes.duration - paused) / 1e6) or "0 ms"
        text = f"{len(lanes.bars)} spans · {active} active"
        if paused:
            text += f" · {duration_text(paused / 1e6)} paused"
        self.summary.setText(text)

    # -- hub -----------------------------------------------------------------------------------

    def _on_events(self, batch: list[EventBase]) -> None:
        changed = self.model.add(batch)
        if not changed:
            return
        self._fill_runs()
        latest = self.model.last_run
        following = self.hub.selected_checkpoint is None and self._follow_latest
        if following and latest is not None and latest is not self.lanes:
            self.show_run(latest.run_id)
        if self.lanes is not None and self.lanes.run_id in changed:
            self.canvas.schedule()
            self._update_summary()

    def _on_reset(self) -> None:
        self.model.reset()
        self.run_box.clear()
        self._follow_latest = True
        self.canvas.cursor_t = None
        self.canvas.set_lanes(None)
        self._update_summary()

    def _on_run_picked(self, index: int) -> None:
        run_id = self.run_box.itemData(index)
        self._follow_latest = index == self.run_box.count() - 1
        self.show_run(run_id)

    def _on_bar_clicked(self, bar: Bar) -> None:
        self.hub.select_event(bar.event)

    def _on_event_picked(self, event: EventBase | None) -> None:
        bar = self.model.bar_for(event)
        if bar is None:
            self.canvas.select(None)
            return
        lanes = self.model.run_of_span(bar.span_id)
        if lanes is not None and lanes is not self.lanes:
            self.show_run(lanes.run_id)
        self.canvas.select(bar)

    def _on_checkpoint(self, checkpoint_id: str | None) -> None:
        """Time travel: the run that saved the checkpoint, the moment marked."""
        if checkpoint_id is None:
            self.canvas.cursor_t = None
            latest = self.model.last_run
            self._follow_latest = True
            self.show_run(latest.run_id if latest is not None else None)
            return
        saved = next(
            (
                e
                for e in reversed(self.hub.events)
                if e.kind == "checkpoint.saved" and e.checkpoint_id == checkpoint_id
            ),
            None,
        )
        if saved is None or saved.run_id not in self.model.runs:
            self.canvas.cursor_t = None
            self.canvas.viewport().update()
            return
        lanes = self.model.runs[saved.run_id]
        self.canvas.cursor_t = max(0, saved.mono_ns - lanes.t0)
        self.show_run(saved.run_id)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.canvas.set_tones(tones_for(self.palette()))
        super().changeEvent(event)


def _tool(text: str, tip: str, parent: QWidget) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(plain_tip(tip))
    button.setAutoRaise(True)
    return button
