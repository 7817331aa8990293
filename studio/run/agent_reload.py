"""Reload the agent file in place: the run controller's half of "reload on save".

``AgentReload`` is a mixin of ``studio.run.controller.RunController``.  ``reload()`` imports the
agent file again (its project modules afresh: ``studio.run.project_files``) and swaps the new
graph in while keeping what the user built up: the session file and its checkpointer (so every
thread and its history stay), the thread list and the current thread, the events shown, the
breakpoints (the debugger's, re-applied to nodes that still exist).  A file that no longer
imports raises ``AgentLoadError`` before anything is touched: the last good graph stays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studio.run.agent_source import spec_factory, with_saver
from studio.run.app_memory import keep_app_memory
from studio.run.drawables import drawable_for
from studio.run.project_files import forget, project_modules, spec_file

if TYPE_CHECKING:
    from engine.attach.options import AttachOptions
    from engine.targets import GraphTarget
    from studio.models.hub import Hub

__all__ = ["AgentReload"]


class AgentReload:
    hub: Hub
    graph: Any
    recorder: Any
    spec: str | None
    label: str
    default_input: Any
    attach: AttachOptions
    model_source: Callable[[], Any] | None
    _factory: Any
    _sub: Any

    if TYPE_CHECKING:

        @property
        def busy(self) -> bool: ...

        def _attach_saver(self) -> Any: ...

        def _on_event(self, ev: Any) -> None: ...

        def _install_target(self, graph: Any) -> GraphTarget: ...

    def reload(self) -> None:
        """Import the agent file again and show its graph (see the module docstring).

        ``RuntimeError`` when there is no agent file or a run is going on (reload after it
        ends); ``AgentLoadError`` (one line) when the file does not load."""
        if not self.spec or self.graph is None:
            raise RuntimeError("No agent file is loaded")
        if self.busy:
            raise RuntimeError("A run is going on: reload when it has ended")
        path = spec_file(self.spec)
        if path is not None:
            forget(project_modules(path))
        factory = spec_factory(
            self.spec, lambda: self.model_source() if self.model_source else None
        )
        graph, default = factory()  # AgentLoadError: nothing has changed yet
        graph = self.attach.apply(keep_app_memory(self.graph, graph), self._attach_saver())
        if self.recorder is not None:
            graph = with_saver(graph, self.recorder.checkpointer)
            self.recorder.attach(graph)  # the old graph never runs again: its listener idles
        else:
            graph = with_saver(graph, getattr(self.graph, "checkpointer", None))
        target = self._install_target(graph)
        self._factory = factory
        self.default_input = default
        self.hub.set_target(target, drawable_for(graph), self.label)
