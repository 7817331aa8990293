"""What a LangGraph node wrote, as ``node.finished`` lists it: one ``{"channel", "value"}`` per
write, shaped as the engine's own nodes report theirs (``engine.graph.runner``).

A node returns a dict of channel updates, or a ``Command`` (or a list of them) whose ``update``
writes channels and whose ``goto`` sends the run on: a node name is the write to its
``branch:to:`` channel, a ``Send`` a task pushed with its argument."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.serde import to_jsonable

__all__ = ["node_writes"]

_TASKS = "__pregel_tasks"


def _is_command(value: Any) -> bool:
    return type(value).__name__ == "Command" and hasattr(value, "goto") and hasattr(value, "update")


def _is_send(value: Any) -> bool:
    return type(value).__name__ == "Send" and hasattr(value, "node") and hasattr(value, "arg")


def _updates(update: Any) -> Iterable[tuple[str, Any]]:
    if isinstance(update, dict):
        return ((str(k), v) for k, v in update.items())
    if isinstance(update, list | tuple) and all(
        isinstance(w, tuple) and len(w) == 2 for w in update
    ):
        return ((str(k), v) for k, v in update)
    return ()


def _command_writes(command: Any) -> list[dict[str, Any]]:
    out = [
        {"channel": k, "value": to_jsonable(v, max_str=2000, max_items=20)}
        for k, v in _updates(command.update)
    ]
    goto = command.goto
    for target in goto if isinstance(goto, list | tuple) else [goto]:
        if _is_send(target):
            arg = to_jsonable(target.arg, max_str=2000)
            out.append({"channel": _TASKS, "value": {"send": str(target.node), "arg": arg}})
        elif isinstance(target, str) and target:
            out.append({"channel": f"branch:to:{target}", "value": target})
    return out


def node_writes(outputs: Any) -> list[dict[str, Any]]:
    """The writes of a node that returned ``outputs`` (none for anything else it may return)."""
    if isinstance(outputs, dict):
        return [
            {"channel": str(k), "value": to_jsonable(v, max_str=2000, max_items=20)}
            for k, v in outputs.items()
        ]
    if _is_command(outputs):
        return _command_writes(outputs)
    if isinstance(outputs, list | tuple) and outputs and all(_is_command(c) for c in outputs):
        return [w for c in outputs for w in _command_writes(c)]
    return []
