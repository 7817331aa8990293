"""The Events dock: every event as a tree of spans, filterable, with the payload of the selected one."""

from studio.docks.events.view import EventLogDock

__all__ = ["EventLogDock"]
