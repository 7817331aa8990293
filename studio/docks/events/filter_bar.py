"""The event log's filter bar: kinds, node, middleware, failures only, free text, follow.

``FilterBar.changed`` carries the ``EventFilter`` the controls describe (text edits are
debounced).  The node and middleware lists grow as the log learns them (``set_choices``).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from studio.models.event_filter import EventFilter
from studio.models.event_row import FAMILIES

__all__ = ["FilterBar"]

_COMPACT = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
ALL_NODES = "All nodes"
ALL_MIDDLEWARE = "All middleware"
_KIND_LABELS = {
    "run": "Runs",
    "superstep": "Supersteps",
    "node": "Nodes",
    "hook": "Hooks",
    "wrapper": "Wrappers",
    "attempt": "Attempts",
    "model": "Model calls and tokens",
    "tool": "Tool calls",
    "route": "Routes",
    "state": "State updates",
    "checkpoint": "Checkpoints",
    "interrupt": "Interrupts",
    "middleware": "Middleware actions",
    "plan": "Plan steps",
    "custom": "Custom",
    "debug": "Debugger",
}


class _StickyMenu(QMenu):
    """A menu that stays open while checkable items are toggled (pick several kinds at once)."""

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        action = self.activeAction()
        if action is not None and action.isCheckable() and action.isEnabled():
            action.trigger()
            return
        super().mouseReleaseEvent(event)


class FilterBar(QWidget):
    changed = Signal(object)
    """The new ``EventFilter``."""
    followToggled = Signal(bool)

    DEBOUNCE_MS = 150

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)

        self.kinds_button = QToolButton(self)
        self.kinds_button.setText("Kinds")
        self.kinds_button.setToolTip("Show only some kinds of events")
        self.kinds_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = _StickyMenu(self.kinds_button)
        self.all_kinds_action = menu.addAction("Show all kinds")
        self.all_kinds_action.triggered.connect(self._check_all_kinds)
        menu.addSeparator()
        self.kind_actions: dict[str, QAction] = {}
        for fam in FAMILIES:
            act = menu.addAction(_KIND_LABELS.get(fam, fam))
            act.setCheckable(True)
            act.setChecked(True)
            act.setData(fam)
            act.toggled.connect(self._emit)
            self.kind_actions[fam] = act
        self.kinds_button.setMenu(menu)

        self.node_combo = QComboBox(self)
        self.node_combo.setToolTip("Only events of this graph node")
        self.node_combo.addItem(ALL_NODES)
        self.node_combo.setSizeAdjustPolicy(_COMPACT)
        self.node_combo.setMinimumContentsLength(6)
        self.node_combo.currentIndexChanged.connect(self._emit)

        self.middleware_combo = QComboBox(self)
        self.middleware_combo.setToolTip("Only events inside this middleware's hooks and wrappers")
        self.middleware_combo.addItem(ALL_MIDDLEWARE)
        self.middleware_combo.setSizeAdjustPolicy(_COMPACT)
        self.middleware_combo.setMinimumContentsLength(6)
        self.middleware_combo.currentIndexChanged.connect(self._emit)

        self.failures_button = QToolButton(self)
        self.failures_button.setText("Failures")
        self.failures_button.setCheckable(True)
        self.failures_button.setToolTip("Only failed attempts, calls and nodes (in context)")
        self.failures_button.toggled.connect(self._emit)

        self.text_edit = QLineEdit(self)
        self.text_edit.setPlaceholderText("Filter text…")
        self.text_edit.setClearButtonEnabled(True)
        self.text_edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.text_edit.setMinimumWidth(70)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(self.DEBOUNCE_MS)
        self._debounce.timeout.connect(self._emit)
        self.text_edit.textChanged.connect(self._debounce.start)
        self.text_edit.returnPressed.connect(self._emit_now)

        self.follow_button = QToolButton(self)
        self.follow_button.setText("Follow")
        self.follow_button.setCheckable(True)
        self.follow_button.setChecked(True)
        self.follow_button.setToolTip(
            "Follow new events: expand what runs now and scroll to it (when at the bottom)"
        )
        self.follow_button.toggled.connect(self.followToggled)

        for w in (
            self.kinds_button,
            self.node_combo,
            self.middleware_combo,
            self.failures_button,
            self.text_edit,
            self.follow_button,
        ):
            lay.addWidget(w)
        self._last: EventFilter = EventFilter()

    # -- state ---------------------------------------------------------------------------------

    def current(self) -> EventFilter:
        kinds = [fam for fam, act in self.kind_actions.items() if act.isChecked()]
        node = self.node_combo.currentText() if self.node_combo.currentIndex() > 0 else None
        mw = (
            self.middleware_combo.currentText()
            if self.middleware_combo.currentIndex() > 0
            else None
        )
        return EventFilter(
            kinds=None if len(kinds) == len(self.kind_actions) else frozenset(kinds),
            node=node,
            middleware=mw,
            text=self.text_edit.text(),
            failures_only=self.failures_button.isChecked(),
        )

    def set_node(self, name: str | None) -> None:
        if name is None:
            self.node_combo.setCurrentIndex(0)
            return
        if self.node_combo.findText(name) < 0:
            self.node_combo.addItem(name)
        self.node_combo.setCurrentText(name)

    def set_kinds(self, kinds: Iterable[str] | None) -> None:
        wanted = set(FAMILIES if kinds is None else kinds)
        for fam, act in self.kind_actions.items():
            with QSignalBlocker(act):
                act.setChecked(fam in wanted)
        self._emit()

    def set_choices(self, nodes: Iterable[str], middlewares: Iterable[str]) -> None:
        """Offer these nodes and middleware (keeps the current choice and any extra item)."""
        for combo, names in ((self.node_combo, nodes), (self.middleware_combo, middlewares)):
            with QSignalBlocker(combo):
                for name in names:
                    if combo.findText(name) < 0:
                        combo.addItem(name)

    def reset_choices(self) -> None:
        for combo in (self.node_combo, self.middleware_combo):
            with QSignalBlocker(combo):
                current = combo.currentText() if combo.currentIndex() > 0 else None
                while combo.count() > 1:
                    combo.removeItem(1)
                if current is not None:
                    combo.addItem(current)
                    combo.setCurrentIndex(1)

    def clear(self) -> None:
        """Back to no filter at all."""
        blockers = [
            QSignalBlocker(w)
            for w in (self.node_combo, self.middleware_combo, self.failures_button, self.text_edit)
        ]
        self.node_combo.setCurrentIndex(0)
        self.middleware_combo.setCurrentIndex(0)
        self.failures_button.setChecked(False)
        self.text_edit.clear()
        del blockers
        self.set_kinds(None)

    # -- signals -------------------------------------------------------------------------------

    def _check_all_kinds(self) -> None:
        self.set_kinds(None)

    def _emit_now(self) -> None:
        self._debounce.stop()
        self._emit()

    def _emit(self, *_: object) -> None:
        flt = self.current()
        if flt != self._last:
            self._last = flt
            self.changed.emit(flt)
        active = flt.kinds is not None
        self.kinds_button.setText(f"Kinds ({len(flt.kinds or ())})" if active else "Kinds")
        self.kinds_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
