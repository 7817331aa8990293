"""Where the run controller's agents come from: agent files and their conventions.

An agent file is loaded afresh on every load and restart (``spec_factory``), so a scripted
model starts its script again.  It may define ``INPUT`` (or ``DEFAULT_INPUT``): the first
message, as the CLI reads it; and ``build_agent(model=...)``: how to build the same agent on
another model (``model_builder``), which re-running with a replay model needs, and running on
the model chosen in Settings.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "INPUT_ATTRS",
    "AgentFactory",
    "absolute_spec",
    "has_messages",
    "model_builder",
    "short_label",
    "spec_factory",
    "user_message",
    "with_saver",
]

INPUT_ATTRS = ("INPUT", "DEFAULT_INPUT")
"""Module attributes an agent file may define to give its default input (as the CLI reads)."""

AgentFactory = Callable[[], tuple[Any, Any]]
"""Returns ``(compiled graph, default input or None)``; called on load and on every restart."""


def has_messages(graph: Any) -> bool:
    keys = set(getattr(graph, "input_keys", None) or ()) | set(
        getattr(graph, "channels", None) or ()
    )
    return "messages" in keys


def user_message(text: str) -> dict[str, Any]:
    from engine.messages import HumanMessage

    return {"messages": [HumanMessage(content=text)]}


def spec_factory(
    spec: str, model_source: Callable[[], Any] | None = None, module: ModuleType | None = None
) -> AgentFactory:
    """A factory that loads ``spec`` afresh each time (``AgentLoadError`` on failure).

    ``model_source()`` (asked on every load) may return a chat model to run the agent on
    instead of the file's own (the Settings' OpenAI-compatible model); it is used when the file
    has ``build_agent(model=...)``, else the file's ``agent`` runs as written.
    """

    def factory() -> tuple[Any, Any]:
        from engine.loader import load_target

        nonlocal module
        if module is None:
            from studio.run.project_files import forget_shadowed, spec_file

            path = spec_file(spec)
            if path is not None:
                forget_shadowed(path)  # another project's module of the same name
        loaded = load_target(spec, module)  # a module already imported is used once
        module = None  # later loads (Restart) import afresh: scripted models start over
        default = next(
            (getattr(loaded.module, a) for a in INPUT_ATTRS if hasattr(loaded.module, a)), None
        )
        factory.module = loaded.module  # type: ignore[attr-defined]
        graph = loaded.graph
        model = model_source() if model_source is not None else None
        build = model_builder(loaded.module) if model is not None else None
        if build is not None:
            graph = build(model)
        return graph, default

    return factory


def absolute_spec(spec: str) -> str:
    """``file.py:attr`` with the file made absolute (a session may be reopened from anywhere);
    ``package.module:attr`` unchanged."""
    target, sep, attr = spec.rpartition(":")
    if not sep or "/" in attr or "\\" in attr:
        target, attr, sep = spec, "", ""
    if target.endswith((".py", ".json")) or Path(target).is_dir():  # a file, a project
        target = str(Path(target).resolve())
    return f"{target}{sep}{attr}"


def short_label(spec: str) -> str:
    """``path/to/agent.py:graph`` -> ``agent.py:graph`` (for titles and session file names)."""
    target, sep, attr = spec.rpartition(":")
    if not sep or "/" in attr or "\\" in attr:
        target, attr = spec, ""
    name = Path(target).name if target.endswith(".py") else target
    return f"{name}:{attr}" if attr else name


def model_builder(module: ModuleType) -> Callable[[Any], Any] | None:
    """``module.build_agent(model=...)`` as ``(model) -> graph``, when the file has one (re-runs
    with a replay model need the agent built on another model)."""
    build = getattr(module, "build_agent", None)
    if not callable(build):
        return None
    try:
        params = inspect.signature(build).parameters
    except (TypeError, ValueError):
        return None
    if "model" not in params:
        return None
    return lambda model: build(model=model)


def with_saver(graph: Any, saver: Any) -> Any:
    """The graph on ``saver``, unless it has a persistent checkpointer of its own."""
    from engine.checkpoint.memory import InMemorySaver

    current = getattr(graph, "checkpointer", None)
    if getattr(graph, "runtime", None) == "langgraph":  # attach mode keeps langgraph's savers
        if current in (None, True, False):
            from engine.attach.savers import open_saver

            return graph.with_checkpointer(open_saver("memory"))
        return graph
    if current in (None, True, False) or isinstance(current, InMemorySaver):
        graph = copy.copy(graph)
        graph.checkpointer = saver
    return graph
