"""The optional docks other parts of the studio provide, found lazily.

Each entry names a module and the dock widget class in it (constructed as ``Widget(hub,
parent)``; it subscribes itself to the hub).  A module that is not there (yet) is skipped: no
placeholder is shown.  Docks sharing a ``group`` are tabbed together: the bottom row's "log"
(left), "time" (middle) and "state" (right), side by side, and "right".
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

__all__ = ["OPTIONAL_DOCKS", "DockSpec", "resolve"]

Area = Qt.DockWidgetArea
_BOTTOM = Area.BottomDockWidgetArea
_RIGHT = Area.RightDockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    key: str
    title: str
    module: str
    classes: tuple[str, ...]
    """Candidate class names, first found wins."""
    area: Area
    group: str


OPTIONAL_DOCKS: tuple[DockSpec, ...] = (
    DockSpec("events", "Events", "studio.views.event_log", ("EventLogDock",), _BOTTOM, "log"),
    DockSpec("timeline", "Timeline", "studio.views.timeline", ("TimelineDock",), _BOTTOM, "time"),
    DockSpec("state", "State", "studio.views.state_inspector", ("StateDock",), _BOTTOM, "state"),
    DockSpec("diff", "Diff", "studio.views.diff_view", ("DiffView",), _BOTTOM, "state"),
    DockSpec(
        "messages", "Messages", "studio.views.messages_view", ("MessagesDock",), _RIGHT, "right"
    ),
    DockSpec("todos", "Todos", "studio.views.todo_board", ("TodoBoardDock",), _RIGHT, "right"),
    DockSpec("plan", "Plan", "studio.views.plan_view", ("PlanDock",), _RIGHT, "right"),
    DockSpec("store", "Store", "studio.docks.store", ("StoreDock",), _RIGHT, "right"),
)


def resolve(spec: DockSpec) -> type[QWidget] | None:
    """The dock widget class of ``spec``, or None when its module has not landed."""
    if importlib.util.find_spec(spec.module) is None:
        return None
    try:
        module = importlib.import_module(spec.module)
    except Exception as exc:  # a broken dock must not keep the studio from starting
        print(f"stepwise studio: the {spec.title} dock cannot be loaded: {exc!r}", file=sys.stderr)
        return None
    for name in spec.classes:
        cls = getattr(module, name, None)
        if isinstance(cls, type) and issubclass(cls, QWidget):
            return cls
    return None
