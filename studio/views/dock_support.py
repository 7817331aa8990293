"""Small helpers shared by the Events and Messages docks."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QGuiApplication

__all__ = ["copy_text", "unsubscribe_all"]


def unsubscribe_all(unsubscribers: list[Callable[[], None]], *_: object) -> None:
    """Call every hub unsubscriber once (connected to ``destroyed``, so no ``self`` here)."""
    for unsubscribe in unsubscribers:
        unsubscribe()
    unsubscribers.clear()


def copy_text(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)
