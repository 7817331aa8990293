"""The application: entry point, main window, menus, actions, dock registry, settings and
start-up checks.  ``main`` starts the studio (``stepwise`` finds it here)."""

from studio.app.entry import main

__all__ = ["main"]
