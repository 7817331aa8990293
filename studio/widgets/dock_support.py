"""Small helpers shared by the docks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from studio.models.hub import TOPICS, Hub
from studio.widgets.catch_up import CatchUp

__all__ = ["StateDock", "bind_state_dock", "bind_to_hub", "copy_text", "unsubscribe_all"]


def unsubscribe_all(unsubscribers: list[Callable[[], None]], *_: object) -> None:
    """Call every hub unsubscriber once (connected to ``destroyed``, so no ``self`` here)."""
    for unsubscribe in unsubscribers:
        unsubscribe()
    unsubscribers.clear()


def bind_to_hub(
    widget: QObject,
    hub: Hub,
    handlers: Mapping[str, Callable[..., Any]],
    *,
    catch_up: bool = False,
) -> list[Callable[[], None]]:
    """Subscribe ``handlers`` (topic -> callback) for as long as ``widget`` lives.

    Topics the hub does not have are skipped, so a dock can listen for optional ones.  With
    ``catch_up``, a dock takes no events while the window shows and it does not: it catches up
    when shown (``studio.widgets.catch_up``: a ``CatchUp`` child of the widget).  Not for a
    widget that hides itself until events give it something to show.
    """
    if catch_up and isinstance(widget, QWidget) and "events" in handlers:
        gate = CatchUp(widget, handlers["events"])
        handlers = gate.wrap(dict(handlers))
    unsubscribers = [hub.subscribe(topic, cb) for topic, cb in handlers.items() if topic in TOPICS]
    widget.destroyed.connect(partial(unsubscribe_all, unsubscribers))
    return unsubscribers


class StateDock(Protocol):
    """A dock that shows the thread's state at the selected checkpoint (Todos, Plan)."""

    def reload(self) -> object: ...  # what it returns (e.g. the reading task) is ignored
    def set_theme(self, name: str) -> None: ...
    def _on_reset(self) -> None: ...
    def _on_events(self, batch: list[Any]) -> None: ...
    def _refresh_controls(self) -> None: ...


def bind_state_dock(widget: QObject, dock: StateDock, hub: Hub) -> list[Callable[[], None]]:
    """The hub wiring of a state dock: reload on a new graph, thread, selection or checkpoint;
    follow live events; re-check its controls on status changes; follow the theme."""
    return bind_to_hub(
        widget,
        hub,
        {
            "graph": lambda _d: dock.reload(),
            "reset": dock._on_reset,
            "events": dock._on_events,
            "status": lambda _s: dock._refresh_controls(),
            "selection": lambda _c: dock.reload(),
            "thread": lambda _t: dock.reload(),
            "checkpoints": dock.reload,
            "theme": dock.set_theme,
        },
        catch_up=True,
    )


def copy_text(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)
