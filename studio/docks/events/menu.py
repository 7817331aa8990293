"""The Events dock's context menu on a row, and which rows are model calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QMenu

from engine.events import EventBase
from studio.docks.events.details import event_payload
from studio.look.highlight import dumps
from studio.models.event_row import Row
from studio.widgets.dock_support import copy_text

if TYPE_CHECKING:
    from studio.docks.events.view import EventLogDock

__all__ = ["model_call", "show_event_menu"]


def show_event_menu(dock: EventLogDock, pos: QPoint) -> None:
    """The context menu of the row at ``pos`` (viewport coordinates)."""
    row = dock.model.row_at(dock.view.indexAt(pos))
    if row is None:
        return
    menu = QMenu(dock)
    call = model_call(row) if dock.offers_playground else None
    if call is not None:
        menu.addAction("What if… (open in playground)", lambda: dock.playgroundRequested.emit(call))
        menu.addSeparator()
    menu.addAction("Copy summary", lambda: copy_text(row.summary()))
    menu.addAction(
        "Copy event JSON",
        lambda: copy_text(dumps([event_payload(e) for e in row.events])),
    )
    if row.node:
        menu.addAction(f"Show only node {row.node}", lambda: dock.filter_node(row.node))
    menu.addAction(
        "Expand all below", lambda: dock.view.expandRecursively(dock.model.index_of(row))
    )
    menu.exec(dock.view.viewport().mapToGlobal(pos))


def model_call(row: Row | None) -> EventBase | None:
    """The ``model.request`` of a model-call row (None for any other row)."""
    event = row.event if row is not None else None
    return event if event is not None and event.kind == "model.request" else None
