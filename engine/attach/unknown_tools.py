"""A tool call naming a tool the agent does not have, in an attached run.

LangChain's ``ToolNode`` answers such a call with an error message ("Error: X is not a valid
tool, try one of [...]") and calls nothing, so no callback reports it: the node's row would
hold nothing while the model reads that answer.  Attach's tool layer, which every call passes
(``innermost``, ``tool_execution``), reports it as a tool call that failed with that answer,
as the engine's own agent does: ``tool.started`` and ``tool.finished`` where the tool's own
events would nest.  The layer emits the events the way its thread can.
"""

from __future__ import annotations

import time
from typing import Any

from engine.attach.base import ACTIVE, layer_context, task_of
from engine.attach.layers import Out
from engine.core.ids import new_span_id
from engine.events import ToolFinished, ToolStarted
from engine.serde import to_jsonable

__all__ = ["Unknown", "unknown_call"]


class Unknown:
    """One call to a tool the node does not have, from its request to the node's answer."""

    def __init__(self, call: dict[str, Any]) -> None:
        self.call = call
        self.t0 = time.perf_counter()

    def report_sync(self, result: Any) -> None:
        """Report the call, answered ``result``, from a worker thread."""
        told = self.answered(result)
        if told is not None:
            cb, ns, out = told
            for cls, fields in out:
                cb.emit_sync(cls, ns, **fields)

    async def report(self, result: Any) -> None:
        """Report the call, answered ``result``, on the loop."""
        told = self.answered(result)
        if told is not None:
            cb, ns, out = told
            for cls, fields in out:
                await cb._emit(cls, ns, **fields)

    def answered(self, result: Any) -> tuple[Any, str, Out] | None:
        """The handler, the graph namespace and the events to emit now that the node answered
        ``result`` (None outside an attached run)."""
        cb = ACTIVE.get()
        if cb is None:
            return None
        meta, run_id = layer_context()
        step = meta.get("langgraph_step")
        common = {
            "span_id": new_span_id(),
            "parent_span_id": cb.parent_span(run_id),
            "step": step if isinstance(step, int) else None,
            "tool": str(self.call.get("name") or "tool"),
            "tool_call_id": self.call.get("id"),
        }
        failed = getattr(result, "status", "error") == "error"
        out: Out = [
            (ToolStarted, {**common, "args": to_jsonable(self.call.get("args"), max_str=2000)}),
            (
                ToolFinished,
                {
                    **common,
                    "status": "error" if failed else "success",
                    "result": to_jsonable(result, max_str=4000),
                    "duration_ms": (time.perf_counter() - self.t0) * 1000,
                },
            ),
        ]
        return cb, task_of(meta)[0], out


def unknown_call(request: Any) -> Unknown | None:
    """``request``'s call when it names no tool the node has (its ``tool`` is None)."""
    if getattr(request, "tool", True) is not None:
        return None
    call = getattr(request, "tool_call", None)
    return Unknown(call) if isinstance(call, dict) else None
