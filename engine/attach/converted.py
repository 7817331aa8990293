"""The messages a real model receives, read as ours once: for the replay hash of every model
request (``model.request``'s ``request_hash``) and for replay itself.

A conversation is sent again, grown by a message or two, on every model call.  Each LangChain
message object is converted once (``ours``), and the converted list of a conversation is kept
(``Conversations``), so the next request of it converts only its new messages: reading a
request costs O(new messages) of Python work, plus a comparison at C speed of the messages
already seen (by identity, and by the identity of their ``content`` and ``tool_calls``, which
``HumanInTheLoopMiddleware`` sets anew when a reviewer edits a call, and by their ``id``).
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Callable
from itertools import repeat
from typing import Any, cast

from engine.attach.per_class import per_class
from engine.interop import from_langchain, is_langchain_message
from engine.models.hashing import request_hash

__all__ = ["is_lc_message", "ours", "ours_all", "request_hash_of"]

_MESSAGE_TYPES: dict[type, bool] = {}
"""Class -> are its instances LangChain messages (told by the class alone: its MRO)."""


def is_lc_message(value: Any) -> bool:
    """``engine.interop.is_langchain_message``, worked out once per class (it walks the MRO
    and compares module names: a state's every message is asked on every superstep)."""
    return per_class(_MESSAGE_TYPES, value, is_langchain_message)


_CONVERTED: OrderedDict[int, tuple[Any, tuple[Any, Any, Any], Any]] = OrderedDict()
"""LangChain message (by identity) -> ours, for the newest messages seen.  A message whose
``content``, ``tool_calls`` or ``id`` was set anew since is converted again."""
_CONVERTED_MAX = 50_000
_lock = threading.Lock()


def version(message: Any) -> tuple[Any, Any, Any]:
    """What identifies the state of a message object: its ``content`` and ``tool_calls``
    (set anew when edited; the objects themselves, kept and compared by identity, so a freed
    object's id taken by a later value is never mistaken for it), and its ``id``
    (``add_messages`` gives one, in place, to a message that has none when it enters the
    state)."""
    fields = getattr(message, "__dict__", None)
    if fields is None:
        fields = {k: getattr(message, k, None) for k in ("content", "tool_calls", "id")}
    # read from the fields themselves: pydantic answers a missing attribute slowly
    return fields.get("content"), fields.get("tool_calls"), fields.get("id")


def _same_version(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> bool:
    return a[0] is b[0] and a[1] is b[1] and a[2] == b[2]


def ours(message: Any) -> Any:
    """``message`` (LangChain's) as ours, converted once per message object."""
    key, now = id(message), version(message)
    with _lock:
        hit = _CONVERTED.get(key)
        if hit is not None and hit[0] is message and _same_version(hit[1], now):
            _CONVERTED.move_to_end(key)
            return hit[2]
    converted = from_langchain(message)
    with _lock:
        _CONVERTED[key] = (message, now, converted)
        if len(_CONVERTED) > _CONVERTED_MAX:
            _CONVERTED.popitem(last=False)
    return converted


class _Seen:
    """The last request of one conversation: its messages, what identifies their state (as
    ``version`` does, read for all of them at C speed), and the messages as ours."""

    __slots__ = ("contents", "ids", "messages", "ours", "tool_calls")

    def __init__(self, messages: list[Any]) -> None:
        self.messages = messages
        self.contents = _read(messages, "content")
        self.tool_calls = _read(messages, "tool_calls")
        self.ids = _read(messages, "id")
        self.ours: list[Any] = []

    def holds(self, other: _Seen, start: int, stop: int) -> bool:
        """Are ``other``'s messages ``start:stop`` this request's, unchanged?"""
        return (
            all(map(operator.is_, self.messages[start:stop], other.messages[start:stop]))
            and all(map(operator.is_, self.contents[start:stop], other.contents[start:stop]))
            and all(map(operator.is_, self.tool_calls[start:stop], other.tool_calls[start:stop]))
            and self.ids[start:stop] == other.ids[start:stop]
        )


_fields = cast(Callable[[Any], dict[str, Any]], vars)


def _read(messages: list[Any], name: str) -> list[Any]:
    """Field ``name`` of every message (None where it has none), at C speed."""
    try:
        return list(map(dict.get, map(_fields, messages), repeat(name)))
    except TypeError:  # a message without a __dict__
        return list(map(getattr, messages, repeat(name), repeat(None)))


_SEEN: OrderedDict[int, _Seen] = OrderedDict()
"""Per conversation (the id of its first message that is not a system message: a system
prompt may be made afresh for every call), its last request read as ours."""
_SEEN_MAX = 64


def _anchor(messages: list[Any]) -> Any:
    return next((m for m in messages if getattr(m, "type", None) != "system"), None)


def ours_all(messages: list[Any]) -> list[Any]:
    """``[ours(m) for m in messages]``, converting only what the conversation's previous
    request did not hold (the same list, built in O(new messages))."""
    now = _Seen(list(messages))
    anchor = _anchor(now.messages)
    key = id(anchor)
    with _lock:
        seen = _SEEN.get(key)
    n = 0 if seen is None else len(seen.messages)
    if seen is not None and 0 < n <= len(now.messages) and now.holds(seen, 1, n):
        head = seen.ours[0] if now.holds(seen, 0, 1) else ours(now.messages[0])
        now.ours = [head, *seen.ours[1:n], *map(ours, now.messages[n:])]
    else:
        now.ours = list(map(ours, now.messages))
    if anchor is not None:
        with _lock:
            _SEEN[key] = now
            _SEEN.move_to_end(key)
            if len(_SEEN) > _SEEN_MAX:
                _SEEN.popitem(last=False)
    return now.ours


def request_hash_of(messages: list[Any]) -> str:
    """The replay hash of the messages a model receives (LangChain's, read as ours)."""
    return request_hash(ours_all(messages))
