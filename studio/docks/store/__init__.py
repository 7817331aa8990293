"""The Store dock (long-term memory): ``StoreDock``."""

from studio.docks.store.view import StoreDock

__all__ = ["StoreDock"]
