"""What the menus need from the main window, and nothing more (``studio.app.menus``).

The menus build their actions on a ``QMainWindow`` (its menu bar, the parent of their dialogs)
and act through ``MenuCommands``: the few parts of the window they read and the commands they
give.  ``MainWindow`` implements it; the menus never import the window.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from types import ModuleType

    from PySide6.QtWidgets import QDockWidget

    from studio.app.actions import DebugActions
    from studio.app.scenarios import Scenario
    from studio.app.settings_store import StudioSettings
    from studio.dialogs.otel_export import LiveOtel
    from studio.docks.graph.view import GraphView
    from studio.models.breakpoints import BreakpointsModel
    from studio.models.hub import Hub
    from studio.run.controller import RunController

__all__ = ["MenuCommands"]


class MenuCommands(Protocol):
    settings: StudioSettings
    """Read for the recent files and the theme; replaced by the Settings dialog."""
    live_otel: LiveOtel | None
    """The live export the OpenTelemetry dialog starts or stops (``OtelHost``)."""

    @property
    def hub(self) -> Hub: ...
    @property
    def controller(self) -> RunController: ...
    @property
    def save_settings(self) -> bool: ...
    @property
    def scenarios(self) -> list[Scenario]: ...
    @property
    def docks(self) -> dict[str, QDockWidget]: ...
    @property
    def actions_(self) -> DebugActions: ...
    @property
    def breakpoints(self) -> BreakpointsModel: ...
    @property
    def graph_view(self) -> GraphView: ...

    def load_scenario(self, name: str) -> bool: ...
    def load_spec(
        self, spec: str, label: str | None = None, module: ModuleType | None = None
    ) -> bool: ...
    def open_agent_file(self, path: str) -> asyncio.Future[bool]: ...
    def open_session(self, path: str) -> bool: ...
    def show_error(self, title: str, message: str, details: str | None = None) -> object: ...
    def show_message(self, text: str) -> None: ...
    def close(self) -> bool: ...
