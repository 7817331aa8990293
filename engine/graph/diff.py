"""The ``state.updated`` payload: what a barrier changed, per channel, as JSON."""

from __future__ import annotations

from typing import Any

from engine.graph.channels import MISSING, BaseChannel
from engine.message_log import AppendLog
from engine.serde import to_jsonable

__all__ = ["state_changes"]


def state_changes(
    state_keys: Any,
    channels: dict[str, BaseChannel],
    before: dict[str, Any],
    changed: dict[str, list[Any]],
) -> list[dict[str, Any]]:
    """``[{"channel", "op": append|replace|set|clear, ...}]`` for the state keys in ``changed``.

    Append logs (messages, ``operator.add`` lists) report only what was appended, so an event
    costs O(new items), never O(history).
    """
    out: list[dict[str, Any]] = []
    for k in changed:
        if k not in state_keys:
            continue
        old = before.get(k, MISSING)
        ch = channels[k]
        new = ch.value
        if isinstance(new, AppendLog) and isinstance(old, AppendLog) and new.extends(old):
            appended = to_jsonable(new.delta_since(old))
            out.append({"channel": k, "op": "append", "appended": appended, "length": len(new)})
        elif new is MISSING or not ch.is_available():
            out.append({"channel": k, "op": "clear"})
        elif isinstance(new, AppendLog):
            out.append(
                {"channel": k, "op": "replace", "value": to_jsonable(list(new)), "length": len(new)}
            )
        else:
            out.append({"channel": k, "op": "set", "value": to_jsonable(new, max_str=4000)})
    return out
