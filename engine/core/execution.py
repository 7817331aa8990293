"""Run-scoped facts a node can read through ``Runtime``: which attempt of which task it is
(``ExecutionInfo``), the server it runs on (``ServerInfo``), and a cooperative stop switch
(``RunControl``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = ["ExecutionInfo", "RunControl", "ServerInfo", "coerce_context"]


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Identity and attempt bookkeeping of the running task."""

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None

    def patch(self, **overrides: Any) -> ExecutionInfo:
        return dataclasses.replace(self, **overrides)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """Where a deployed graph runs (from ``configurable`` ``assistant_id``/``graph_id``)."""

    assistant_id: str
    graph_id: str
    user: Any = None


class RunControl:
    """Ask a running graph to stop cleanly at the next superstep boundary (``GraphDrained``).

    Safe to call from any thread; the last checkpoint stays resumable.
    """

    __slots__ = ("_drain_reason",)

    def __init__(self) -> None:
        self._drain_reason: str | None = None

    def request_drain(self, reason: str = "shutdown") -> None:
        self._drain_reason = reason

    @property
    def drain_requested(self) -> bool:
        return self._drain_reason is not None

    @property
    def drain_reason(self) -> str | None:
        return self._drain_reason


def server_info_from(configurable: dict[str, Any]) -> ServerInfo | None:
    assistant_id = configurable.get("assistant_id")
    graph_id = configurable.get("graph_id")
    if assistant_id is None and graph_id is None:
        return None
    return ServerInfo(
        assistant_id=str(assistant_id or ""),
        graph_id=str(graph_id or ""),
        user=configurable.get("langgraph_auth_user"),
    )


def coerce_context(schema: Any, context: Any) -> Any:
    """A ``context`` dict becomes an instance of a dataclass or pydantic ``context_schema``."""
    if schema is None or not isinstance(context, dict) or not isinstance(schema, type):
        return context
    if dataclasses.is_dataclass(schema):
        return schema(**context)
    validate = getattr(schema, "model_validate", None)
    if validate is not None:
        return validate(context)
    return context
