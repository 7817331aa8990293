"""The main window's geometry and dock layout: where it opens, how the docks are arranged
by default, what is saved and restored.

``WindowLayout`` is a mixin of ``studio.app.main_window.MainWindow``.  The window opens inside the
screen's available area (``studio.models.window_fit``): where it was last closed when that
still fits (maximized if it was), else maximized on a laptop-sized screen or at the preferred
size on a larger one.  The bottom row holds the Events, Timeline and State groups side by side
so a checkpoint picked on the Timeline and its state are seen at once, even at 1366x768.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QRect, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar

from studio.models.window_fit import Rect, first_placement, fits

if TYPE_CHECKING:
    from studio.app.settings_store import StudioSettings

__all__ = ["WindowLayout"]

_LAYOUT_VERSION = 4
"""Bump when the dock set or its default arrangement changes so an old saved layout is not
applied to a new window (2: State and Diff beside the Timeline instead of tabbed with it,
Breakpoints with Messages, Todos and Plan instead of under the Events; 3: the Store dock;
4: the Waterfall and Request docks)."""
_BOTTOM_ROW = ("log", "time", "state")
"""The dock groups of the bottom row, left to right (``studio.app.dock_registry``)."""


class WindowLayout(QMainWindow):
    _anchors: dict[str, QDockWidget]
    settings: StudioSettings

    def event(self, event: QEvent) -> bool:
        # Qt makes a tab bar for each group of tabbed docks when it needs one (and again when
        # the user regroups them): its tabs keep their whole titles and scroll when the group is
        # narrow, rather than each shrinking to an unreadable "Pl..." / "St..."
        if event.type() == QEvent.Type.ChildPolished:
            child = event.child()  # type: ignore[attr-defined]
            if isinstance(child, QTabBar):
                child.setElideMode(Qt.TextElideMode.ElideNone)
                child.setUsesScrollButtons(True)
        return super().event(event)

    def _place(self, dock: QDockWidget, group: str) -> None:
        """Tab ``dock`` into its group; the bottom row's groups (Events | Timeline | State) sit
        side by side, so a checkpoint picked on the Timeline and its State are seen at once."""
        anchor = self._anchors.get(group)
        if anchor is not None:
            self.tabifyDockWidget(anchor, dock)
            return
        self._anchors[group] = dock
        if group not in _BOTTOM_ROW:
            return
        at = _BOTTOM_ROW.index(group)
        left = next(
            (self._anchors[g] for g in reversed(_BOTTOM_ROW[:at]) if g in self._anchors), None
        )
        right = next((self._anchors[g] for g in _BOTTOM_ROW[at + 1 :] if g in self._anchors), None)
        if left is not None:
            self.splitDockWidget(left, dock, Qt.Orientation.Horizontal)
        elif right is not None:
            self.splitDockWidget(dock, right, Qt.Orientation.Horizontal)

    def apply_default_sizes(self) -> None:
        """Dock sizes for the window's current size: the graph in the middle gets the most
        room, the bottom row (Events | Timeline | State) a bit over a third of the height."""
        width, height = self.width(), self.height()
        right = self._anchors.get("right")
        if right is not None:
            self.resizeDocks([right], [max(340, int(width * 0.28))], Qt.Orientation.Horizontal)
        row = [self._anchors[g] for g in _BOTTOM_ROW if g in self._anchors]
        if row:
            share = 0.40 if height < 900 else 0.36  # a laptop: room for the payload pane
            self.resizeDocks([row[0]], [max(240, int(height * share))], Qt.Orientation.Vertical)
        shares = {"log": 0.40, "time": 0.28, "state": 0.32}
        if len(row) > 1:
            groups = [g for g in _BOTTOM_ROW if g in self._anchors]
            total = sum(shares[g] for g in groups)
            sizes = [int(width * shares[g] / total) for g in groups]
            self.resizeDocks(row, sizes, Qt.Orientation.Horizontal)

    def open_on_screen(self, available: QRect | None = None) -> None:
        """Show the window inside the screen: where it was last closed when that still fits
        (maximized if it was), else at the first placement for this screen's size."""
        if available is None:
            available = self.screen().availableGeometry()
        area = _rect(available)
        geometry, _, _ = self.settings.layout.partition("|")
        restored = bool(geometry) and self.restoreGeometry(QByteArray.fromBase64(geometry.encode()))
        if restored and (self.isMaximized() or fits(_rect(self.frameGeometry()), area)):
            if self.isMaximized() and not fits(_rect(self.normalGeometry()), area):
                self.setGeometry(_qrect(first_placement(area).rect))  # the normal size, later
            self.show()
            return
        placement = first_placement(area)
        self.setWindowState(Qt.WindowState.WindowNoState)
        self.setGeometry(_qrect(placement.rect))
        if placement.maximized:
            self.showMaximized()
        else:
            self.show()

    def save_layout(self) -> str:
        """Geometry (maximized or not) and dock layout as text (kept in the settings)."""
        geometry = bytes(self.saveGeometry().toBase64().data()).decode()
        state = bytes(self.saveState(_LAYOUT_VERSION).toBase64().data()).decode()
        return f"{geometry}|{state}"

    def restore_layout(self, text: str | None = None) -> bool:
        """Restore a saved geometry and layout (False when there is none or it does not fit
        this build)."""
        text = self.settings.layout if text is None else text
        geometry, sep, _state = text.partition("|")
        if not sep:
            return False
        ok = self.restoreGeometry(QByteArray.fromBase64(geometry.encode()))
        return self.restore_state(text) and ok

    def restore_state(self, text: str | None = None) -> bool:
        """The docks as they were saved (where, tabbed or split, sizes, floating, shown)."""
        text = self.settings.layout if text is None else text
        _geometry, sep, state = text.partition("|")
        if not sep:
            return False
        return self.restoreState(QByteArray.fromBase64(state.encode()), _LAYOUT_VERSION)


def _rect(r: QRect) -> Rect:
    return Rect(r.x(), r.y(), r.width(), r.height())


def _qrect(r: Rect) -> QRect:
    return QRect(r.x, r.y, r.w, r.h)
