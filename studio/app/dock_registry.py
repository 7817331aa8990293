"""The docks of the main window, where they go, and how each is built.

Each entry names its dock class (imported when the window is built; a dock that cannot be
imported or built is a bug, and the error propagates: nothing is skipped in silence).  A dock
is constructed as ``Widget(hub, parent)`` and subscribes itself to the hub.  Docks sharing a
``group`` are tabbed together: the bottom row's "log" (left), "time" (middle) and "state"
(right), side by side, and "right".  The Graph (the central widget) and the Breakpoints dock
are built by the window itself.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

__all__ = ["DOCKS", "DockSpec"]

Area = Qt.DockWidgetArea
_BOTTOM = Area.BottomDockWidgetArea
_RIGHT = Area.RightDockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    key: str
    title: str
    cls: str
    """``package:ClassName`` of the dock widget."""
    area: Area
    group: str

    def load(self) -> type[QWidget]:
        """The dock widget class (its module imported now)."""
        module, _, name = self.cls.partition(":")
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, QWidget)):
            raise TypeError(f"the {self.title} dock's {self.cls} is not a QWidget")
        return cls


DOCKS: tuple[DockSpec, ...] = (
    DockSpec("events", "Events", "studio.docks.events:EventLogDock", _BOTTOM, "log"),
    DockSpec("timeline", "Timeline", "studio.docks.timeline:TimelineDock", _BOTTOM, "time"),
    DockSpec("state", "State", "studio.docks.state:StateDock", _BOTTOM, "state"),
    DockSpec("diff", "Diff", "studio.docks.diff:DiffView", _BOTTOM, "state"),
    DockSpec("waterfall", "Waterfall", "studio.docks.waterfall:WaterfallDock", _BOTTOM, "time"),
    DockSpec("messages", "Messages", "studio.docks.messages:MessagesDock", _RIGHT, "right"),
    DockSpec("request", "Request", "studio.docks.request:RequestDock", _RIGHT, "right"),
    DockSpec("todos", "Todos", "studio.docks.todos:TodoBoardDock", _RIGHT, "right"),
    DockSpec("plan", "Plan", "studio.docks.plan:PlanDock", _RIGHT, "right"),
    DockSpec("store", "Store", "studio.docks.store:StoreDock", _RIGHT, "right"),
)
