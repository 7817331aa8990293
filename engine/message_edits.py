"""Which messages a cache keeps work for, and a count bumped when one of them is edited.

A model request's hash is built incrementally: a conversation's previous request left the hash
state after its messages, reused while the new request starts with the same message objects.
A message object can still be edited after it was hashed (``message.content = "..."``, a
reviewer's ``message.tool_calls = [...]``): ``BaseMessage.__setattr__`` calls ``edited`` for
the fields a model sees, and when the message is *watched* (some cache kept work for it),
``epoch()`` changes, so the cache knows its kept work may be stale without re-reading every
message of a long history.  Setting a field of a message nobody watches (a reply being
named, a tool result getting its call id, a copy being finished) costs a set lookup.

Changing a list or dict inside a field in place (``message.content.append(...)``) is not an
edit this sees: messages are otherwise treated as immutable, as everywhere in the engine.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

__all__ = ["CONTENT_FIELDS", "MODEL_FIELDS", "edited", "epoch", "watch"]

CONTENT_FIELDS = (
    "content",
    "name",
    "tool_calls",
    "invalid_tool_calls",
    "tool_call_chunks",
    "tool_call_id",
    "status",
)
"""The fields a message's canonical form is made of besides its ``type``, in a fixed order
(``tool_call_chunks``: an ``AIMessageChunk``'s calls)."""

MODEL_FIELDS = frozenset({"type", *CONTENT_FIELDS})
"""The fields of a message a model sees (``engine.models.hashing``'s canonical form)."""

_watched: dict[int, weakref.ref[Any]] = {}
_counter = itertools.count(1)
_epoch = [0]


def watch(message: Any) -> None:
    """Note that a cache keeps work for ``message`` (until it is garbage)."""
    key = id(message)
    if key in _watched:
        return
    try:
        _watched[key] = weakref.ref(message, lambda _ref, key=key: _watched.pop(key, None))
    except TypeError:  # not weakly referable: its edits always count
        _watched[key] = _forever(message)


def _forever(message: Any) -> weakref.ref[Any]:
    # a stand-in reference, never cleared: the id stays watched (an extra epoch at worst)
    return lambda: message  # type: ignore[return-value]


def edited(message: Any, name: str) -> None:
    """``message``'s field ``name`` is being set anew."""
    if name in MODEL_FIELDS and id(message) in _watched:
        _epoch[0] = next(_counter)  # next() is atomic: the value changes in every thread


def epoch() -> int:
    """A number that changes whenever a watched message's model field is set anew."""
    return _epoch[0]
