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
from typing import Any

__all__ = ["ours", "ours_all", "request_hash_of"]

_CONVERTED: OrderedDict[int, tuple[Any, tuple[int, int, Any], Any]] = OrderedDict()
"""LangChain message (by identity) -> ours, for the newest messages seen.  A message whose
``content``, ``tool_calls`` or ``id`` was set anew since is converted again."""
_CONVERTED_MAX = 50_000
_lock = threading.Lock()


def version(message: Any) -> tuple[int, int, Any]:
    """What identifies the state of a message object: its ``content`` and ``tool_calls``
    (set anew when edited), and its ``id`` (``add_messages`` gives one, in place, to a
    message that has none when it enters the state)."""
    return (
        id(getattr(message, "content", None)),
        id(getattr(message, "tool_calls", None)),
        getattr(message, "id", None),
    )


def ours(message: Any) -> Any:
    """``message`` (LangChain's) as ours, converted once per message object."""
    key, now = id(message), version(message)
    with _lock:
        hit = _CONVERTED.get(key)
        if hit is not None and hit[0] is message and hit[1] == now:
            _CONVERTED.move_to_end(key)
            return hit[2]
    from engine.interop import from_langchain

    converted = from_langchain(message)
    with _lock:
        _CONVERTED[key] = (message, now, converted)
        if len(_CONVERTED) > _CONVERTED_MAX:
            _CONVERTED.popitem(last=False)
    return converted


class _Seen:
    """The last request of one conversation: its messages, their versions, as ours."""

    __slots__ = ("messages", "ours", "versions")

    def __init__(self, messages: list[Any], versions: list[tuple[int, int, Any]], out: list[Any]):
        self.messages = messages
        self.versions = versions
        self.ours = out


_SEEN: OrderedDict[int, _Seen] = OrderedDict()
"""Per conversation (the id of its first message that is not a system message: a system
prompt may be made afresh for every call), its last request read as ours."""
_SEEN_MAX = 64


def _anchor(messages: list[Any]) -> Any:
    return next((m for m in messages if getattr(m, "type", None) != "system"), None)


def ours_all(messages: list[Any]) -> list[Any]:
    """``[ours(m) for m in messages]``, converting only what the conversation's previous
    request did not hold (the same list, built in O(new messages))."""
    messages = list(messages)
    anchor = _anchor(messages)
    key = id(anchor)
    versions = list(map(version, messages))
    with _lock:
        seen = _SEEN.get(key)
    n = 0
    if seen is not None and len(seen.messages) <= len(messages):
        n = len(seen.messages)
        same = all(map(operator.is_, seen.messages[1:], messages[1:n]))
        if not (same and seen.versions[1:] == versions[1:n]):
            n = 0
    if seen is not None and n:
        kept = messages[0] is seen.messages[0] and seen.versions[0] == versions[0]
        head = seen.ours[0] if kept else ours(messages[0])
        out = [head, *seen.ours[1:n], *map(ours, messages[n:])]
    else:
        out = list(map(ours, messages))
    if anchor is not None:
        with _lock:
            _SEEN[key] = _Seen(messages, versions, out)
            _SEEN.move_to_end(key)
            if len(_SEEN) > _SEEN_MAX:
                _SEEN.popitem(last=False)
    return out


def request_hash_of(messages: list[Any]) -> str:
    """The replay hash of the messages a model receives (LangChain's, read as ours)."""
    from engine.models.hashing import request_hash

    return request_hash(ours_all(messages))
