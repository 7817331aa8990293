"""``state.updated`` for a remote run: what a checkpoint changed, from the values the server
reports at each checkpoint.

A server does not say which channels have reducers (``add_messages``, ``operator.add``), so a
node's write alone cannot tell an append from a replacement.  Comparing the values of two
consecutive checkpoints can: a list that starts with the old list grew by its tail (``append``,
only the new items sent, as the engine does for its append logs), anything else is ``set``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.serde import to_jsonable

__all__ = ["value_changes"]


def value_changes(
    before: Mapping[str, Any] | None, after: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """``[{"channel", "op": append|set|clear, ...}]`` from ``before`` (None: nothing known,
    every channel is ``set``) to ``after``."""
    old = before or {}
    out: list[dict[str, Any]] = []
    for key, new in after.items():
        if key in old and old[key] == new:
            continue
        prev = old.get(key)
        if (
            isinstance(prev, list)
            and isinstance(new, list)
            and len(new) > len(prev)
            and new[: len(prev)] == prev
        ):
            appended = to_jsonable(new[len(prev) :], max_str=2000)
            out.append({"channel": key, "op": "append", "appended": appended, "length": len(new)})
        else:
            out.append({"channel": key, "op": "set", "value": to_jsonable(new, max_str=2000)})
    out.extend({"channel": key, "op": "clear"} for key in old if key not in after)
    return out
