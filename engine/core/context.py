"""The run and the task the running code belongs to, as context variables.

The runtime sets them (``engine.graph.runtime`` types them with its own classes); code in lower
layers (a chat model deciding whether to stream its tokens) reads them through the small
protocols below, so it never imports the runtime.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from typing import Any, Protocol

__all__ = [
    "MODEL_RUNS",
    "RUN",
    "TASK",
    "TOOL_RUNS",
    "StreamingRun",
    "TaskView",
    "call_metadata",
    "current_task_view",
    "note_model_run",
    "tool_run_started",
]


class StreamingRun(Protocol):
    def wants(self, mode: str) -> bool:
        """Does a consumer of the run stream ``mode`` (``messages``, ``custom``...)?"""
        ...


class TaskView(Protocol):
    """What lower layers may know of the node task running now."""

    @property
    def run(self) -> StreamingRun: ...

    @property
    def config(self) -> dict[str, Any]: ...

    @property
    def ns(self) -> str: ...


RUN: contextvars.ContextVar[Any] = contextvars.ContextVar("stepwise_run", default=None)
"""The run (``engine.graph.runtime.RunContext``) the running code belongs to."""
TASK: contextvars.ContextVar[Any] = contextvars.ContextVar("stepwise_task", default=None)
"""The node task (``engine.graph.runtime.TaskContext``) the running code belongs to."""


MODEL_RUNS: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "stepwise_model_runs", default=None
)
"""While LangChain-style ``astream_events`` runs a graph: a callable ``(message_id, name, tags,
messages=None)`` told, before a chat-model reply's chunks reach the ``messages`` stream, the
name and tags LangChain gives that model call's run (its events are named so) and, when
known, the messages the model was given (its events' input)."""

TOOL_RUNS: contextvars.ContextVar[Any] = contextvars.ContextVar("stepwise_tool_runs", default=None)
"""While LangChain-style ``astream_events`` runs a graph: a callable ``(name, args, call_id)``
told as a tool starts (its ``on_tool_start``), returning the callable told how it ended:
``(output)``, or ``(None, error)`` when it raised."""


def note_model_run(
    message_id: Any, name: str, tags: list[str], messages: list[Any] | None = None
) -> None:
    """Tell an ``astream_events`` consumer (if any) the run name and tags of the chat-model
    reply with ``message_id`` (and the messages the model was given, when known)."""
    note = MODEL_RUNS.get()
    if note is not None and message_id:
        note(str(message_id), name, tags, messages)


def tool_run_started(
    name: str, args: Any, call_id: str | None
) -> Callable[[Any, BaseException | None], None] | None:
    """Tell an ``astream_events`` consumer (if any) that tool ``name`` starts with ``args``;
    returns what to tell how it ended (None when nobody listens)."""
    started = TOOL_RUNS.get()
    return None if started is None else started(name, args, call_id)


def current_task_view() -> TaskView | None:
    """The node task running now, if any."""
    task: TaskView | None = TASK.get()
    return task


def call_metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata of a call made inside a task (a chat model's, so its ``messages`` chunks
    carry it): the task's, with the task's namespace as ``checkpoint_ns`` where the task's
    metadata names none, as LangGraph gives it to the runnables a node calls."""
    meta = dict(config.get("metadata") or {})
    ns = (config.get("configurable") or {}).get("checkpoint_ns")
    if ns and "checkpoint_ns" not in meta:
        meta["checkpoint_ns"] = ns
    return meta
