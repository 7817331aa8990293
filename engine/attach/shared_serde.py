"""A serializer for LangGraph's in-memory saver that stores each message once, not once per
checkpoint.

LangGraph's ``InMemorySaver`` serializes a channel's whole value at every version: an agent's
``messages`` list of N messages is encoded again at every step, so a long conversation keeps
the square of its length in memory (2,000 turns: about 2 GB) and spends most of a step
encoding messages it has already encoded.  ``SharedMessageSerde`` is LangGraph's own
``JsonPlusSerializer`` except for a list of messages: that is stored as the tuple of its
messages' encodings, each message's encoding made once and shared by every version that holds
the same message object.  Loading decodes each entry with the same serializer, so a saver using
it returns what the plain one returns.

A message changed in place after it was encoded is encoded again: each cached encoding keeps a
copy of the message's fields as they were and is reused only while they are still equal.  A
message decoded from a stored list is remembered with the encoding it came from, so a run that
resumes from a checkpoint shares its history's encodings too.  The cache holds messages weakly,
so a message nobody holds any more is forgotten.  A list that continues the last list stored
with the same first message (the same encodings first) is stored as a link to it plus its new
entries, so the versions of a growing conversation do not each hold a full list either (the
short lists of new messages a step writes in between are stored apart).
"""

from __future__ import annotations

import copy
import operator
import weakref
from collections import OrderedDict
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

__all__ = ["SharedMessageSerde"]

TAG = "stepwise/messages"
"""The type tag of a list of messages stored as its messages' shared encodings."""


class _Encoded:
    """One message's encoding, with a copy of its fields as they were when it was made."""

    __slots__ = ("fields", "ref", "typed")

    def __init__(self, ref: weakref.ref[BaseMessage], fields: Any, typed: tuple[str, bytes]):
        self.ref = ref
        self.fields = fields
        self.typed = typed


class _Chain:
    """A stored list of messages as an earlier stored list's first ``reused`` encodings plus
    its own ``tail``: a conversation that grows by a message or two per step stores only
    those (every ``MAX_DEPTH`` links the whole list is stored again, so a load walks few)."""

    __slots__ = ("base", "depth", "reused", "tail")

    def __init__(self, base: Stored, reused: int, tail: tuple[Any, ...], depth: int) -> None:
        self.base = base
        self.reused = reused
        self.tail = tail
        self.depth = depth


Stored = tuple[Any, ...] | _Chain
MAX_DEPTH = 32
MAX_BASES = 64
"""Conversations (first messages) whose last stored list a new list may continue."""


def _entries(stored: Stored) -> list[Any]:
    links: list[_Chain] = []
    while isinstance(stored, _Chain):
        links.append(stored)
        stored = stored.base
    out = list(stored)
    for link in reversed(links):
        del out[link.reused :]
        out.extend(link.tail)
    return out


def _shared_prefix(old: list[Any], new: list[Any]) -> int:
    flags = list(map(operator.is_, old, new))  # one C pass over the identities
    try:
        return flags.index(False)
    except ValueError:
        return len(flags)


_ATOMIC = (str, int, float, bool, type(None), bytes)


def _fields(message: BaseMessage) -> Any:
    return (message.__dict__, message.__pydantic_extra__)


def _copy(value: Any) -> Any:
    """A deep copy (plain containers copied by hand: a message's fields, several times faster)."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    return copy.deepcopy(value)


class SharedMessageSerde(JsonPlusSerializer):
    """``JsonPlusSerializer`` storing a list of messages as shared per-message encodings."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._encoded: dict[int, _Encoded] = {}
        # the list stored last for each first message (by its encoding's identity): a list
        # continuing a conversation starts as it does (another channel's short list does not)
        self._bases: OrderedDict[int, tuple[Stored, list[Any]]] = OrderedDict()

    def dumps_typed(self, obj: Any) -> tuple[str, Any]:
        if type(obj) is list and obj and all(isinstance(m, BaseMessage) for m in obj):
            return TAG, self._store([self._encode(m) for m in obj])
        return super().dumps_typed(obj)

    def _store(self, entries: list[Any]) -> Stored:
        key = id(entries[0])
        last = self._bases.pop(key, None)
        stored: Stored = tuple(entries)
        if last is not None and last[1][0] is entries[0]:
            base, before = last
            reused = _shared_prefix(before, entries)
            depth = base.depth + 1 if isinstance(base, _Chain) else 1
            if reused * 2 >= len(entries) and depth <= MAX_DEPTH:
                stored = _Chain(base, reused, stored[reused:], depth)
        self._bases[key] = (stored, entries)  # holds entries[0]: its id stays its own
        if len(self._bases) > MAX_BASES:
            self._bases.popitem(last=False)
        return stored

    def loads_typed(self, data: tuple[str, Any]) -> Any:
        if data[0] == TAG:
            load = super().loads_typed
            out = []
            for entry in _entries(data[1]):
                message = load(entry)
                self._remember(message, entry)  # a run resumed from here shares it again
                out.append(message)
            return out
        return super().loads_typed(data)

    def _encode(self, message: BaseMessage) -> tuple[str, bytes]:
        key = id(message)
        known = self._encoded.get(key)
        if known is not None and known.ref() is message:
            try:
                if _fields(message) == known.fields:
                    return known.typed
            except Exception:  # a field that cannot be compared: encode it again
                pass
        typed = super().dumps_typed(message)
        self._remember(message, typed)
        return typed

    def _remember(self, message: Any, typed: tuple[str, bytes]) -> None:
        if not isinstance(message, BaseMessage):
            return
        key = id(message)
        try:
            fields = _copy(_fields(message))
            ref = weakref.ref(message, lambda _, key=key: self._forget(key))
        except Exception:  # a field that cannot be copied: never shared
            return
        self._encoded[key] = _Encoded(ref, fields, typed)

    def _forget(self, key: int) -> None:
        known = self._encoded.get(key)
        if known is not None and known.ref() is None:
            del self._encoded[key]
