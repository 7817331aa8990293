"""What one superstep of an attached graph changed in its state, as the engine reports it.

LangGraph's ``updates`` stream gives each node's *write* (``{"messages": [ai_message]}``), not
what the channel's reducer made of it; a viewer taking that write for the new value of the
channel would show one message where the thread holds forty.  So the changes are read from the
state itself: the values after the superstep against the values of the checkpoint before it.
A message list that grew is reported as appended (only the new messages, converted to ours, as
on the embedded engine: an event costs O(new messages), not O(history)); one that was
rewritten (summarization, ``RemoveMessage``, an edited message) as replaced; anything else as
set, LangChain messages inside it converted to ours.

A channel a node wrote is reported even when its value is the same object as before: a node
that mutates a list in place and returns it changed it all the same.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Any

from engine.attach.converted import is_lc_message, ours
from engine.attach.snapshots import to_engine_values
from engine.serde import to_jsonable

__all__ = ["ROOT", "as_channels", "state_changes"]

ROOT = "__root__"
"""The channel name of a state that is not a mapping (a functional-API entrypoint's value)."""


def as_channels(values: Any) -> Mapping[str, Any]:
    """``values`` as channel -> value (a non-mapping state is one channel, ``ROOT``)."""
    if isinstance(values, Mapping):
        return values
    if hasattr(values, "__dataclass_fields__"):
        return {k: getattr(values, k) for k in values.__dataclass_fields__}
    return {} if values is None else {ROOT: values}


def _is_messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(map(is_lc_message, value))


def _extends(before: Any, after: list[Any]) -> bool:
    """Does ``after`` hold ``before``'s very items first (an append, as ``add_messages``
    makes it: the old message objects, then the new ones)?"""
    if before is None:  # a channel written for the first time
        return True
    if not isinstance(before, list) or len(after) < len(before):
        return False
    return all(map(operator.is_, before, after))


def _jsonable(value: Any, max_str: int) -> Any:
    # a message is converted once for all (the model requests that send it read it too)
    return to_jsonable(to_engine_values(value, ours), max_str=max_str)


def state_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], written: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """``[{"channel", "op": append|replace|set|clear, ...}]`` from ``before`` to ``after``
    (see the module docstring); ``written``: the channels the superstep's nodes wrote."""
    out: list[dict[str, Any]] = []
    wrote = set(written)
    for key, new in after.items():
        old = before.get(key)
        if new is old:
            if key in wrote:  # changed in place (or written as it was)
                out.append({"channel": str(key), "op": "set", "value": _jsonable(new, 4000)})
            continue
        change = _list_change(str(key), old, new)
        if change is _SAME:
            continue
        out.append(change or {"channel": str(key), "op": "set", "value": _jsonable(new, 4000)})
    for key in before:
        if key not in after:
            out.append({"channel": str(key), "op": "clear"})
    return out


_SAME: Any = {}
"""A new list holding the very same items: no change to report."""


def _list_change(channel: str, old: Any, new: Any) -> dict[str, Any] | None:
    """The change of a message list (appended, or replaced), None for any other value.  Only
    the new messages are looked at when the list grew: O(new), not O(history)."""
    if not isinstance(new, list):
        return None
    if _extends(old, new):
        tail = new[len(old or ()) :]
        if not tail:
            return _SAME if old is not None else None  # [] written for the first time: set
        if _is_messages(tail):
            return {
                "channel": channel,
                "op": "append",
                "appended": _jsonable(tail, 4000),
                "length": len(new),
            }
        return None
    if _is_messages(new) or (new == [] and _is_messages(old)):
        return {
            "channel": channel,
            "op": "replace",
            "value": _jsonable(new, 4000),
            "length": len(new),
        }
    return None
