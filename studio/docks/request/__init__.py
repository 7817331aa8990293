"""The Request dock (what the model saw): ``RequestDock``."""

from studio.docks.request.view import RequestDock

__all__ = ["RequestDock"]
