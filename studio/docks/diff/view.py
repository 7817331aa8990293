"""The Diff dock: what changed at the selected checkpoint (against its parent by default), or
between any two checkpoints the user picked.

``DiffView(hub)`` follows the selection (None = the live tip), reading both checkpoints through
``studio.models.snapshot_reader`` (never blocking the window; a newer selection wins).  "Pin as base" keeps the
shown checkpoint as the base: selecting others then diffs them against it.  ``set_pair(base,
target)`` shows a fixed pair (the Timeline's ``diffRequested`` signal connects here);
"Back to parent" returns to following the selection.  ``diff`` is the shown ``StateDiff``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.types import StateSnapshot
from studio.docks.diff.html import diff_html, esc, page
from studio.look.palette import colors
from studio.models.hub import Hub
from studio.models.snapshot_reader import PARENT, SnapshotReader
from studio.models.state_diff import StateDiff, diff_states
from studio.widgets.catch_up import CatchUp
from studio.widgets.plain_text import rich_label

__all__ = ["DiffView"]


def _cid(snap: StateSnapshot | None) -> str | None:
    if snap is None or not snap.config:
        return None
    return snap.config.get("configurable", {}).get("checkpoint_id")


def _parent_id(snap: StateSnapshot | None) -> str | None:
    parent = getattr(snap, "parent_config", None) or {}
    return parent.get("configurable", {}).get("checkpoint_id")


def _label(snap: StateSnapshot | None) -> str:
    if snap is None or snap.metadata is None:
        return "nothing"
    meta = snap.metadata
    return f"step {meta.get('step', '?')} ({meta.get('source', '')})"


class DiffView(QWidget):
    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.theme = hub.theme
        self.diff: StateDiff | None = None
        self.base_id: str | None = None
        self.target_id: str | None = None
        self.pinned: str | None = None
        """A base checkpoint the user pinned (None: diff against the parent)."""
        self.fixed = False
        """True while showing a pair from ``set_pair`` (the selection is not followed)."""
        self.reader = SnapshotReader(hub, self._loaded)
        self._asked: tuple[str | None, str | None] = (None, None)
        """(base, target) asked for last (base may be ``PARENT``)."""

        self.header = rich_label("")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setMinimumWidth(40)  # a long header must not widen the dock
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.pin_button = QToolButton()
        self.pin_button.setText("Pin as base")
        self.pin_button.setToolTip("Diff the checkpoints you select next against this one")
        self.pin_button.setCheckable(True)
        self.pin_button.setAutoRaise(True)
        self.pin_button.toggled.connect(self._on_pin)
        self.parent_button = QToolButton()
        self.parent_button.setText("↺ Back to parent")
        self.parent_button.setToolTip("Diff the selected checkpoint against its parent again")
        self.parent_button.setAutoRaise(True)
        self.parent_button.clicked.connect(self.follow_selection)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 4, 2)
        top.addWidget(self.header, 1)
        top.addWidget(self.pin_button)
        top.addWidget(self.parent_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addWidget(self.browser, 1)
        self.catch_up = CatchUp(self, self._on_events)
        """Hidden behind the State tab, the diff reads and renders nothing until shown."""
        handlers = self.catch_up.wrap(
            {
                "selection": lambda _c: self._follow(),
                "reset": self._on_reset,
                "graph": lambda _d: self._on_reset(),
                "thread": lambda _t: self._on_reset(),
                "checkpoints": self.refresh,
                "events": self._on_events,
            }
        )
        self._unsubs = [hub.subscribe(topic, cb) for topic, cb in handlers.items()]
        try:
            self._unsubs.append(hub.subscribe("theme", self.set_theme))
        except ValueError:
            pass
        self.refresh()

    # -- what to show ------------------------------------------------------------------------

    def set_pair(self, base_id: str | None, target_id: str | None) -> StateDiff | None:
        """Show ``base_id`` -> ``target_id`` until ``follow_selection`` (the diff when it was
        read at once, with no loop running; else it shows when read)."""
        self.fixed = True
        return self._show(base_id, target_id)

    def follow_selection(self) -> None:
        self.fixed = False
        self.pinned = None
        self.pin_button.setChecked(False)
        self.refresh()

    def refresh(self) -> None:
        if self.fixed:
            self._show(self.base_id, self.target_id)
        else:
            self._follow()

    def _follow(self) -> None:
        if self.fixed:
            return
        target = self.hub.selected_checkpoint
        self._show(self.pinned if self.pinned is not None else PARENT, target)

    def _on_reset(self) -> None:
        self.fixed = False
        self.pinned = None
        self.pin_button.setChecked(False)
        self.refresh()

    def _on_events(self, batch: list[Any]) -> None:
        if (
            not self.fixed
            and self.hub.selected_checkpoint is None
            and any(e.kind == "checkpoint.saved" for e in batch)
        ):
            self._follow()

    def _on_pin(self, on: bool) -> None:
        if on:
            self.pinned = self.target_id
        else:
            self.pinned = None
        self.refresh()

    def _show(self, base_id: str | None, target_id: str | None) -> StateDiff | None:
        """Read ``target_id`` and ``base_id`` (``PARENT``: the target's parent; None: diff
        against an empty state) through the reader, then show the diff."""
        self._asked = (base_id, target_id)
        task = self.reader.read(target_id, base=base_id)
        return self.diff if task is None else None

    def _loaded(self, target: Any, base: Any) -> None:
        c = colors(self.theme)
        base_id, target_id = self._asked
        if isinstance(target, BaseException):
            target = None
        if base_id == PARENT:
            base_id = _parent_id(target)
        self.base_id, self.target_id = base_id, _cid(target) or target_id
        if target is None or target.metadata is None:
            self.diff = None
            self.header.setText(f'<span style="color:{c.muted}">No checkpoint to diff</span>')
            self.browser.setHtml(page("", c))
            return
        self.diff = diff_states(
            base.values if base is not None else {},
            target.values,
            next_before=base.next if base is not None else None,
            next_after=target.next,
        )
        against = "its parent" if not self.fixed and self.pinned is None else _label(base)
        if base is None:
            against = "an empty state"
        pin = f' <span style="color:{c.accent}">(pinned)</span>' if self.pinned else ""
        self.header.setText(
            f"<b>{esc(_label(target))}</b> "
            f'<span style="color:{c.muted}">vs</span> <b>{esc(against)}</b>{pin}'
        )
        self.browser.setHtml(page(diff_html(self.diff, c), c))

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self.refresh()

    def closeEvent(self, event: QCloseEvent) -> None:
        for unsub in self._unsubs:
            unsub()
        self._unsubs = []
        super().closeEvent(event)
