"""The ``tools`` stream mode: a tool call's life as chunks (``tool-started``,
``tool-output-delta``, ``tool-finished``, ``tool-error``), pushed for runs that stream it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.graph.runtime import current_task

__all__ = ["ToolEvents", "tool_events"]


class ToolEvents:
    """Pushes one tool call's chunks to the ``tools`` stream of the run calling it."""

    def __init__(self, push: Callable[[dict[str, Any]], None], call_id: str, name: str) -> None:
        self._push = push
        self.call_id = call_id
        self.name = name
        self.ended = False

    def started(self, args: Any) -> None:
        self._push(
            {
                "event": "tool-started",
                "tool_call_id": self.call_id,
                "tool_name": self.name,
                "input": args,
            }
        )

    def delta(self, delta: Any) -> None:
        self._push({"event": "tool-output-delta", "tool_call_id": self.call_id, "delta": delta})

    def finished(self, output: Any) -> None:
        if self.ended:
            return
        self.ended = True
        self._push({"event": "tool-finished", "tool_call_id": self.call_id, "output": output})

    def error(self, exc: BaseException) -> None:
        if self.ended:
            return
        self.ended = True
        self._push({"event": "tool-error", "tool_call_id": self.call_id, "message": str(exc)})


def tool_events(call_id: str | None, name: str) -> ToolEvents | None:
    """The pusher for a call inside a graph task whose run streams ``tools``; else None."""
    task = current_task()
    if task is None or call_id is None or not task.run.wants("tools"):
        return None
    run, ns = task.run, task.ns

    def push(chunk: dict[str, Any]) -> None:
        run.push_any_thread("tools", chunk, ns)

    return ToolEvents(push, call_id, name)
