"""Targets: what the studio and the CLI debug (see ``engine.targets.base``).

``target_for(graph)`` wraps a loaded graph: ``EngineTarget`` for ours, ``AttachTarget`` for a
real LangGraph app already attached (``engine.attach``).  ``engine.remote`` holds the server
target, ``engine.targets.session_target`` the recorded one.
"""

from __future__ import annotations

from typing import Any

from engine.targets.base import (
    Capabilities,
    Capability,
    RunHandle,
    RunOutcome,
    RunRequest,
    Target,
    TargetError,
    ThreadInfo,
    ThreadQuery,
)
from engine.targets.driver import STAY, RunDriver
from engine.targets.graph_target import AttachTarget, EngineTarget, GraphTarget

__all__ = [
    "STAY",
    "AttachTarget",
    "Capabilities",
    "Capability",
    "EngineTarget",
    "GraphTarget",
    "RunDriver",
    "RunHandle",
    "RunOutcome",
    "RunRequest",
    "Target",
    "TargetError",
    "ThreadInfo",
    "ThreadQuery",
    "as_target",
    "target_for",
]


def as_target(obj: Any) -> Target:
    """``obj`` if it is a target already, else the target that runs the graph ``obj``.  Judged
    by its class: ``isinstance`` with the ``Target`` protocol reads every member of the object,
    and a graph's ``input_schema`` property builds a schema, which may raise (a ``typing``
    TypedDict state on Python 3.11), depending on the order the members are read in."""
    if hasattr(type(obj), "capabilities"):  # the class: a property is not read
        return obj  # type: ignore[no-any-return]
    return target_for(obj)


def target_for(graph: Any, name: str | None = None) -> GraphTarget:
    """The target that runs ``graph``: attached (``runtime == "langgraph"``) or ours."""
    if getattr(graph, "runtime", None) == "langgraph":
        return AttachTarget(graph, name)
    return EngineTarget(graph, name)
