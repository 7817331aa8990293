"""Small helpers shared by the docks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

from studio.hub import TOPICS, Hub

__all__ = ["bind_to_hub", "copy_text", "unsubscribe_all"]


def unsubscribe_all(unsubscribers: list[Callable[[], None]], *_: object) -> None:
    """Call every hub unsubscriber once (connected to ``destroyed``, so no ``self`` here)."""
    for unsubscribe in unsubscribers:
        unsubscribe()
    unsubscribers.clear()


def bind_to_hub(
    widget: QObject, hub: Hub, handlers: Mapping[str, Callable[..., Any]]
) -> list[Callable[[], None]]:
    """Subscribe ``handlers`` (topic -> callback) for as long as ``widget`` lives.

    Topics the hub does not have are skipped, so a dock can listen for optional ones.
    """
    unsubscribers = [hub.subscribe(topic, cb) for topic, cb in handlers.items() if topic in TOPICS]
    widget.destroyed.connect(partial(unsubscribe_all, unsubscribers))
    return unsubscribers


def copy_text(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)
