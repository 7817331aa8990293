"""``CatchUp``: a dock the user cannot see takes in no events until it is shown.

While the window is on screen and a dock is not (a tab behind another, closed), the batches of
events the hub hands it are held; when it is shown (its tab picked: ``visibilityChanged``, or
opened again: ``Show``) they reach it as one batch, before it paints.  Whatever it does with events (reading checkpoints, laying out bars, rendering a diff)
is then done once for everything it missed, not once per batch for nobody.

A window that was never shown (a test, a headless use) feeds its docks at once: nothing on a
screen waits for them, and whoever reads them expects them current.

Other hub topics keep their order with the events: a handler wrapped with ``before`` hears of
the held events first (a selection, a new graph); ``dropping`` forgets them (a reset: the view
is cleared anyway).  Topics that do not depend on events (the run's status, the theme) go
straight through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QDockWidget, QWidget

from engine.events import EventBase

__all__ = ["LIVE_TOPICS", "CatchUp", "catch_up_now"]

LIVE_TOPICS = frozenset({"status", "shown_status", "theme", "prices", "breakpoints", "focus"})
"""Hub topics whose handlers do not read what the events built: never held back."""


class CatchUp(QObject):
    """Holds ``widget``'s event batches while it is hidden in a shown window (module doc)."""

    def __init__(self, widget: QWidget, on_events: Callable[[list[EventBase]], Any]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._on_events = on_events
        self._held: list[EventBase] = []
        self._dock: QDockWidget | None = None
        widget.installEventFilter(self)

    @property
    def held(self) -> int:
        """Events waiting for the widget to be shown."""
        return len(self._held)

    def hidden(self) -> bool:
        """Whether the window is on screen and the widget is not (a tab behind another is
        "visible" to Qt, but nothing of it is exposed)."""
        w = self._widget
        if not w.window().isVisible():
            return False
        if not w.isVisible():
            return True
        self._watch_dock()
        return w.visibleRegion().isEmpty()

    def _watch_dock(self) -> None:
        """Catch up when the tab of the dock around the widget is picked."""
        if self._dock is not None:
            return
        parent = self._widget.parentWidget()
        while parent is not None and not isinstance(parent, QDockWidget):
            parent = parent.parentWidget()
        if parent is not None:
            self._dock = parent
            parent.visibilityChanged.connect(self._on_visibility)

    def _on_visibility(self, visible: bool) -> None:
        if visible:
            self.catch_up()

    def events(self, batch: list[EventBase]) -> None:
        """The hub's ``"events"`` handler."""
        if self.hidden():
            self._held.extend(batch)
            return
        self.catch_up()
        self._on_events(batch)

    def catch_up(self) -> None:
        """Hand the held events over now (one batch)."""
        if self._held:
            held, self._held = self._held, []
            self._on_events(held)

    def before(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """``handler``, after the held events reached the widget."""

        def caught_up(*args: Any) -> Any:
            self.catch_up()
            return handler(*args)

        return caught_up

    def dropping(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """``handler``, after the held events were forgotten (a reset clears the view)."""

        def dropped(*args: Any) -> Any:
            self._held = []
            return handler(*args)

        return dropped

    def wrap(self, handlers: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
        """Hub handlers (topic -> callback) of the widget, each in its place around the held
        events (see the module doc)."""
        wrapped: dict[str, Callable[..., Any]] = {}
        for topic, handler in handlers.items():
            if topic == "events":
                wrapped[topic] = self.events
            elif topic == "reset":
                wrapped[topic] = self.dropping(handler)
            elif topic in LIVE_TOPICS:
                wrapped[topic] = handler
            else:
                wrapped[topic] = self.before(handler)
        return wrapped

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Show:
            self.catch_up()
        return False


def catch_up_now(widget: QObject) -> None:
    """Hand ``widget`` the events its ``CatchUp`` holds (before reading it on purpose: a
    search, a selection by sequence number)."""
    gate = widget.findChild(CatchUp, options=Qt.FindChildOption.FindDirectChildrenOnly)
    if gate is not None:
        gate.catch_up()
