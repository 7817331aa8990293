"""``request_hash``: a stable fingerprint of a model request, for replay and event stamping.

The hash covers what the model sees: each message's type, content, name, tool calls (name,
args, id), tool_call_id and status; the tools by their schema; tool_choice and
response_format.  It ignores message ``id``s (fresh uuid4s every run) and bookkeeping the
model never sees (usage, response metadata, tool artifacts), so the same conversation hashes
the same in every process and every run.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from engine.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolMessage,
    coerce_messages,
)
from engine.models.base import ToolLike, tool_schema
from engine.serde import SerializationError, encode

__all__ = ["HASH_VERSION", "canonical_request", "message_digest", "request_hash"]

HASH_VERSION = 2
"""Bumped whenever the canonical form changes (old recordings then diverge, never mis-match)."""

_CACHE_SIZE = 50_000
_digests: OrderedDict[int, tuple[BaseMessage, str]] = OrderedDict()
_lock = threading.Lock()

_PREFIX_CACHE_SIZE = 64
_DIGEST_LEN = 64  # hex characters of a SHA-256


class _Prefix:
    """The last request hashed in one conversation: its messages, their digests joined, and
    the hash state after them all."""

    __slots__ = ("after_all", "digests", "messages")

    def __init__(self, messages: list[BaseMessage], digests: bytes, after_all: Any) -> None:
        self.messages = messages
        self.digests = digests
        self.after_all = after_all


_prefixes: OrderedDict[tuple[bytes, int], _Prefix] = OrderedDict()
"""Per conversation (the request's head and its first message that is not a system message,
which stays the same object while middleware may rebuild the system prompt every call)."""


_JSON_SCALARS = frozenset({type(None), bool, int, float, str})


def _plain(obj: Any) -> Any:
    """JSON data with a process-independent form (sets sorted, odd values tagged)."""
    # fast paths for the exact built-in types a canonical message is made of (subclasses and
    # everything else take the general path below); the result is the same
    t = type(obj)
    if t in _JSON_SCALARS:
        return obj
    if t is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _JSON_SCALARS else _plain(v)
            for k, v in obj.items()
        }
    if t is list or t is tuple:
        return [v if type(v) in _JSON_SCALARS else _plain(v) for v in obj]
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, set | frozenset):
        return sorted((_plain(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    try:
        return _plain(encode(obj))
    except SerializationError:  # not JSON data: its type is the only stable thing about it
        return f"<{type(obj).__module__}.{type(obj).__qualname__}>"


def _canonical_message(message: BaseMessage) -> dict[str, Any]:
    if isinstance(message, AIMessageChunk):
        message = message.to_message()
    out: dict[str, Any] = {"type": message.type, "content": message.content, "name": message.name}
    if isinstance(message, AIMessage):
        out["tool_calls"] = [
            {"name": c.get("name"), "args": c.get("args") or {}, "id": c.get("id")}
            for c in message.tool_calls
        ]
        out["invalid_tool_calls"] = [
            {"name": c.get("name"), "args": c.get("args"), "id": c.get("id")}
            for c in message.invalid_tool_calls
        ]
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
        out["status"] = message.status
    return out


def canonical_request(
    messages: Sequence[Any],
    tools: Sequence[ToolLike] | None = None,
    tool_choice: str | None = None,
    response_format: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-ready form ``request_hash`` digests (useful to diff two requests)."""
    request = {
        "v": HASH_VERSION,
        "messages": [_canonical_message(m) for m in coerce_messages(messages)],
        "tools": [tool_schema(t) for t in tools or ()],
        "tool_choice": tool_choice,
        "response_format": dict(response_format) if response_format is not None else None,
    }
    return _plain(request)


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""What ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` uses,
made once (``dumps`` with options builds an encoder per call)."""


def _dumps(obj: Any) -> bytes:
    return _ENCODER.encode(obj).encode("utf-8")


def message_digest(message: BaseMessage) -> str:
    """SHA-256 of one message's canonical form, computed once per message object.

    A conversation's history is hashed on every model call; caching each message's digest
    (messages are treated as immutable: middleware copy, never mutate) keeps that O(new
    messages) of real work plus a cheap lookup per message.
    """
    key = id(message)
    with _lock:
        hit = _digests.get(key)
        if hit is not None and hit[0] is message:
            _digests.move_to_end(key)
            return hit[1]
    digest = hashlib.sha256(_dumps(_plain(_canonical_message(message)))).hexdigest()
    with _lock:
        _digests[key] = (message, digest)
        if len(_digests) > _CACHE_SIZE:
            _digests.popitem(last=False)
    return digest


def request_hash(
    messages: Sequence[Any],
    tools: Sequence[ToolLike] | None = None,
    tool_choice: str | None = None,
    response_format: Mapping[str, Any] | None = None,
) -> str:
    """Hex SHA-256 over the messages' digests and the canonical rest of the request.

    A conversation's requests grow by a few messages each: the hash state after the previous
    request's messages is kept, and when the new request starts with them (compared at C
    speed, by identity first) only the new messages are hashed.  A first message made afresh
    each call (middleware rebuilding the system prompt) costs one hash over the kept digests."""
    head = _head(tools, tool_choice, response_format)
    msgs = coerce_messages(messages)
    if not msgs:
        return hashlib.sha256(head).hexdigest()
    anchor = next((m for m in msgs if not isinstance(m, SystemMessage)), None)
    key = (head, id(anchor))
    with _lock:
        known = _prefixes.get(key)
    if known is not None and _continues(msgs, known.messages):
        n = len(known.messages)
        if _same(msgs[0], known.messages[0]):
            h, joined = known.after_all.copy(), known.digests
        else:  # a first message made afresh (a system prompt): its digest, then the others'
            d0 = message_digest(msgs[0]).encode("ascii")
            joined = d0 + known.digests[_DIGEST_LEN:]
            h = hashlib.sha256(head)
            h.update(joined)
    else:
        n = 1
        joined = message_digest(msgs[0]).encode("ascii")
        h = hashlib.sha256(head)
        h.update(joined)
    new = b"".join(message_digest(m).encode("ascii") for m in msgs[n:])
    h.update(new)  # the same as one update per digest
    with _lock:
        _prefixes[key] = _Prefix(msgs, joined + new, h.copy())
        _prefixes.move_to_end(key)
        if len(_prefixes) > _PREFIX_CACHE_SIZE:
            _prefixes.popitem(last=False)
    return h.hexdigest()


_heads: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any, bytes]] = OrderedDict()


def _head(
    tools: Sequence[ToolLike] | None,
    tool_choice: str | None,
    response_format: Mapping[str, Any] | None,
) -> bytes:
    """The canonical bytes of the request's non-message part, computed once per set of tool
    objects (an agent passes the same schemas on every call; like messages, they are treated
    as immutable)."""
    items = tuple(tools or ())
    # keyed by the tools' names, compared by value: an agent may rebuild equal schemas per call
    key = (tuple(map(_tool_name, items)), tool_choice, id(response_format))
    with _lock:
        hit = _heads.get(key)
    if hit is not None and hit[1] is response_format and _same_items(hit[0], items):
        with _lock:
            _heads.move_to_end(key)
        return hit[2]
    rest = {
        "v": HASH_VERSION,
        "tools": [tool_schema(t) for t in items],
        "tool_choice": tool_choice,
        "response_format": dict(response_format) if response_format is not None else None,
    }
    head = _dumps(_plain(rest))
    with _lock:
        _heads[key] = (items, response_format, head)
        if len(_heads) > _PREFIX_CACHE_SIZE:
            _heads.popitem(last=False)
    return head


def _tool_name(tool: Any) -> Any:
    name = tool.get("name") if isinstance(tool, Mapping) else getattr(tool, "name", None)
    return name if isinstance(name, str) else id(tool)


def _same_items(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    try:
        return len(old) == len(new) and all(a is b or a == b for a, b in zip(old, new, strict=True))
    except Exception:  # values that cannot be compared: made again
        return False


def _continues(msgs: list[BaseMessage], prefix: list[BaseMessage]) -> bool:
    """Whether ``msgs`` holds ``prefix``'s messages after the first (compared at C speed,
    identity first; equal messages have the same canonical form)."""
    n = len(prefix)
    try:
        return 0 < n <= len(msgs) and msgs[1:n] == prefix[1:]
    except Exception:  # a field whose values cannot be compared: hash it all
        return False


def _same(a: BaseMessage, b: BaseMessage) -> bool:
    try:
        return a is b or a == b
    except Exception:
        return False
