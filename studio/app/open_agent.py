"""Opening an agent file or a LangGraph project in the window (``MainWindow.open_agent_file``).

A Python file is imported once and its compiled graphs listed: one is loaded at once, several
ask which (the module is reused, not run again).  A project (its ``langgraph.json``, or the
folder that holds it) names its graphs by id: one is loaded, several ask which id.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from engine.loader import AgentLoadError
from studio.dialogs.asyncdialog import show_dialog

if TYPE_CHECKING:
    from types import ModuleType

    from studio.app.main_window import MainWindow

__all__ = ["open_agent_file"]

_NOT_LOADED = "The agent could not be loaded"


def open_agent_file(window: MainWindow, path: str) -> asyncio.Future[bool]:
    """Load a graph from ``path`` (a ``.py`` file or a project), asking which when there are
    several; the future says whether one was loaded."""
    from engine.project import project_config, project_graph_ids

    result: asyncio.Future[bool] = asyncio.get_event_loop().create_future()
    config = project_config(path)
    try:
        if config is not None:
            ids = project_graph_ids(config)
            module: ModuleType | None = None
        else:
            from engine.loader import open_file
            from studio.run.project_files import forget_shadowed

            forget_shadowed(Path(path).resolve())  # another project's module of the same name
            module, ids = open_file(path)
    except AgentLoadError as exc:
        window.show_error(_NOT_LOADED, str(exc))
        result.set_result(False)
        return result
    if not ids:
        window.show_error(_NOT_LOADED, f"{path}: it defines no compiled graph")
        result.set_result(False)
        return result
    name = Path(path).name if config is None else f"{config.parent.name}/{config.name}"

    def load(graph: str) -> bool:
        return window.load_spec(f"{path}:{graph}", label=f"{name}:{graph}", module=module)

    if len(ids) == 1:
        result.set_result(load(ids[0]))
        return result
    from studio.dialogs.scenario_picker import GraphPicker

    what = (
        f"{name} names {len(ids)} graphs"
        if config
        else f"{path} defines {len(ids)} compiled graphs"
    )
    picker = window.graph_picker = GraphPicker(what, ids, window)

    def picked(code: asyncio.Future[int]) -> None:
        graph = picker.chosen() if code.result() else None
        result.set_result(bool(graph) and load(str(graph)))

    show_dialog(picker).add_done_callback(picked)
    return result
