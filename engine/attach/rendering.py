"""A message's display form (``to_jsonable``), rendered once per message object.

The same LangChain message shows in many events of an attached run: the model's reply in its
``model.response``, in the model node's ``node.finished`` writes and in the next three model
requests' ``last_messages``; a tool's message in its ``tool.finished`` result, its node's
writes and the next requests; each of them (read as ours) in the ``state.updated`` that
appends it; a node's input summary shows the first message it reaches.  ``render`` gives
what ``engine.serde.to_jsonable`` gives, but dumps each message once: the dump is kept with
the message's field values, and a later rendering of the same object with the same field
values (compared by identity, so a field set anew is rendered again) reuses it.

A message's rendering with ``max_str`` is its dump itself when its whole JSON text is no longer
(no string in it is longer: ``to_jsonable`` would copy it unchanged); else it is shortened once
per ``max_str``.
Renderings are shared by the events that show the message: like every event payload, they
are read, never changed.
"""

from __future__ import annotations

import json
import operator
import threading
from collections import OrderedDict
from typing import Any

from engine.serde import to_jsonable

__all__ = ["render", "render_repr"]

_MAX = 512
"""Messages whose renderings are kept (the newest seen: a conversation's next requests show
its last three messages again, its node inputs their last five; 4,096 cost a 2,000-turn run
8 MB of peak memory for nothing)."""
_LONG = -1
"""``_Entry.longest`` of a dump that is not JSON data (always rendered by ``to_jsonable``)."""


class _Entry:
    __slots__ = ("dump", "fields", "longest", "message", "reprs", "short")

    def __init__(self, message: Any, fields: tuple[Any, ...], dump: Any) -> None:
        self.message = message
        self.fields = fields
        self.dump = dump
        self.longest = _longest(dump)
        self.short: dict[int, Any] = {}
        self.reprs: dict[int | None, str] = {}

    def at(self, max_str: int | None) -> Any:
        if max_str is None or 0 <= self.longest <= max_str:
            return self.dump
        hit = self.short.get(max_str)
        if hit is None:
            hit = self.short[max_str] = to_jsonable(self.dump, max_str=max_str)
        return hit


_cache: OrderedDict[int, _Entry] = OrderedDict()
_lock = threading.Lock()
_message_types: tuple[type, ...] | None = None


def _types() -> tuple[type, ...]:
    global _message_types
    if _message_types is None:
        from langchain_core.messages import BaseMessage as LangChainMessage

        from engine.messages import BaseMessage

        _message_types = (LangChainMessage, BaseMessage)
    return _message_types


def _longest(dump: Any) -> int:
    """At least the length of the longest string in a message's dump (its JSON text's length:
    escapes only lengthen it), or ``_LONG`` when the dump is not JSON data.  A dump is
    ``model_dump(mode="json")``: JSON data, its keys strings, which ``to_jsonable`` copies
    unchanged up to its strings."""
    try:
        return len(json.dumps(dump, ensure_ascii=False, check_circular=False))
    except (TypeError, ValueError):
        return _LONG


def _entry(message: Any) -> _Entry:
    fields = getattr(message, "__dict__", None)
    values = tuple(fields.values()) if isinstance(fields, dict) else ()
    key = id(message)
    with _lock:
        hit = _cache.get(key)
        if (
            hit is not None
            and hit.message is message
            and len(hit.fields) == len(values)
            and all(map(operator.is_, hit.fields, values))
        ):
            _cache.move_to_end(key)
            return hit
    entry = _Entry(message, values, to_jsonable(message))
    with _lock:
        _cache[key] = entry
        _cache.move_to_end(key)
        if len(_cache) > _MAX:
            _cache.popitem(last=False)
    return entry


def render(value: Any, *, max_str: int | None = None, max_items: int | None = None) -> Any:
    """``to_jsonable(value, max_str=max_str, max_items=max_items)``, each message in it (a
    LangChain message or ours) rendered once per message object (see the module docstring)."""
    t = type(value)
    if t is dict:
        return {
            k if type(k) is str else str(k): render(v, max_str=max_str, max_items=max_items)
            for k, v in value.items()
        }
    if t is list or t is tuple:
        items: Any = value
        head: list[Any] = []
        if max_items is not None and len(value) > max_items:
            head = [f"… {len(value) - max_items} earlier items"]
            items = value[len(value) - max_items :]
        return [*head, *(render(v, max_str=max_str, max_items=max_items) for v in items)]
    if isinstance(value, _types()):
        return _entry(value).at(max_str)
    return to_jsonable(value, max_str=max_str, max_items=max_items)


def render_repr(value: Any, *, max_str: int, max_items: int) -> str:
    """``repr(render(value, ...))``, kept with a message's renderings (node input summaries
    show the same messages again and again)."""
    if not isinstance(value, _types()):
        return repr(to_jsonable(value, max_str=max_str, max_items=max_items))
    entry = _entry(value)
    text = entry.reprs.get(max_str)
    if text is None:
        text = entry.reprs[max_str] = repr(entry.at(max_str))
    return text
