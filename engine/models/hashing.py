"""``request_hash``: a stable fingerprint of a model request, for replay and event stamping.

The hash covers what the model sees: each message's type, content, name, tool calls (name,
args, id), tool_call_id and status (and a chat message's role); the tools by their schema; tool_choice and
response_format.  It ignores message ``id``s (fresh uuid4s every run) and bookkeeping the
model never sees (usage, response metadata, tool artifacts), so the same conversation hashes
the same in every process and every run.
"""

from __future__ import annotations

import hashlib
import json
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from json import encoder as _json_encoder
from typing import Any, cast

from engine.message_edits import CONTENT_FIELDS, epoch, watch
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
_digests: OrderedDict[int, tuple[BaseMessage, tuple[Any, ...], str]] = OrderedDict()
"""id(message) -> (the message, its ``_version`` when hashed, its digest)."""
_lock = threading.Lock()

_VERSIONED = CONTENT_FIELDS


_PREFIX_CACHE_SIZE = 64
_DIGEST_LEN = 64  # hex characters of a SHA-256


class _Prefix:
    """The last request hashed in one conversation: its messages, their digests joined, the
    hash state after them all, and the ``engine.message_edits`` epoch before they were read
    (a message of it edited since makes it stale)."""

    __slots__ = ("after_all", "digests", "epoch", "messages")

    def __init__(
        self, messages: list[BaseMessage], digests: bytes, after_all: Any, epoch: int
    ) -> None:
        self.messages = messages
        self.digests = digests
        self.after_all = after_all
        self.epoch = epoch


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
    if message.type == "chat":  # a chat message's role is what the model sees it as
        out["role"] = message.role  # type: ignore[attr-defined]
    return out


def _p(value: Any) -> Any:
    return value if type(value) in _JSON_SCALARS else _plain(value)


def _canonical_plain(message: BaseMessage) -> dict[str, Any]:
    """``_plain(_canonical_message(message))`` in one pass (the same dict, key for key)."""
    if isinstance(message, AIMessageChunk):
        message = message.to_message()
    out: dict[str, Any] = {
        "type": _p(message.type),
        "content": _p(message.content),
        "name": _p(message.name),
    }
    if isinstance(message, AIMessage):
        out["tool_calls"] = [
            {"name": _p(c.get("name")), "args": _p(c.get("args") or {}), "id": _p(c.get("id"))}
            for c in message.tool_calls
        ]
        out["invalid_tool_calls"] = [
            {"name": _p(c.get("name")), "args": _p(c.get("args")), "id": _p(c.get("id"))}
            for c in message.invalid_tool_calls
        ]
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = _p(message.tool_call_id)
        out["status"] = _p(message.status)
    if message.type == "chat":
        out["role"] = _p(message.role)  # type: ignore[attr-defined]
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


_C_ENCODER: Callable[[Any, int], list[str]] | None = (
    _json_encoder.c_make_encoder(  # type: ignore[attr-defined]
        None,  # no circularity check: ``_plain`` made every container afresh
        _ENCODER.default,
        _json_encoder.encode_basestring,
        None,
        ":",
        ",",
        True,
        False,
        True,
    )
    if getattr(_json_encoder, "c_make_encoder", None) is not None
    else None
)
"""``_ENCODER``'s C encoder, made once (``encode`` makes one per call, a third of the cost of
dumping a small message)."""


def _dumps(obj: Any) -> bytes:
    if _C_ENCODER is not None:
        return "".join(_C_ENCODER(obj, 0)).encode("utf-8")
    return _ENCODER.encode(obj).encode("utf-8")


_vars = cast(Callable[[Any], dict[str, Any]], vars)


def _version(message: BaseMessage) -> tuple[Any, ...]:
    """The objects a message's canonical fields hold (kept, compared by identity: a field set
    anew is a new object, and a kept object's id cannot be reused)."""
    try:
        fields = _vars(message)
    except TypeError:
        return tuple(getattr(message, k, None) for k in _VERSIONED)
    return tuple(map(fields.get, _VERSIONED))


def _same_objects(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


def message_digest(message: BaseMessage) -> str:
    """SHA-256 of one message's canonical form, computed once per message object.

    A conversation's history is hashed on every model call; caching each message's digest
    keeps that O(new messages) of real work plus a cheap lookup per message.  The digest is
    reused while the message holds the same field objects: a field set anew (``content``,
    ``tool_calls``...) is hashed again.  (Messages are otherwise treated as immutable: a
    list or dict changed in place inside a field is not seen.)
    """
    key = id(message)
    version = _version(message)
    with _lock:
        hit = _digests.get(key)
        if hit is not None and hit[0] is message and _same_objects(hit[1], version):
            _digests.move_to_end(key)
            return hit[2]
    digest = hashlib.sha256(_dumps(_canonical_plain(message))).hexdigest()
    watch(message)
    with _lock:
        _digests[key] = (message, version, digest)
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
    speed, by identity first, none of them edited since: ``engine.message_edits``) only the
    new messages are hashed.  A first message made afresh
    each call (middleware rebuilding the system prompt) costs one hash over the kept digests."""
    head = _head(tools, tool_choice, response_format)
    msgs = coerce_messages(messages)
    if not msgs:
        return hashlib.sha256(head).hexdigest()
    anchor = next((m for m in msgs if not isinstance(m, SystemMessage)), None)
    key = (head, id(anchor))
    now = epoch()  # read first: an edit while the messages are read makes the result stale
    with _lock:
        known = _prefixes.get(key)
    if known is not None and known.epoch == now and _continues(msgs, known.messages):
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
        _prefixes[key] = _Prefix(msgs, joined + new, h.copy(), now)
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
    # first by the tools' identities: an agent hands the same schema objects on every call
    ids = (*map(id, items), tool_choice, id(response_format))
    hit = _heads_by_id.get(ids)
    if hit is not None and hit[1] is response_format and _same_objects(hit[0], items):
        return hit[2]
    # then by the tools' names, compared by value: an agent may rebuild equal schemas per call
    key = (tuple(map(_tool_name, items)), tool_choice, id(response_format))
    with _lock:
        hit = _heads.get(key)
    if hit is not None and hit[1] is response_format and _same_items(hit[0], items):
        with _lock:
            _heads.move_to_end(key)
            _remember_ids(ids, (items, response_format, hit[2]))
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
        _remember_ids(ids, (items, response_format, head))
    return head


_heads_by_id: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any, bytes]] = {}
"""The tools' ids (and tool_choice, the response format's id) -> ``_heads``'s entry; an
entry keeps its objects, compared by identity, so an id is never read for another object."""


def _remember_ids(ids: tuple[Any, ...], entry: tuple[tuple[Any, ...], Any, bytes]) -> None:
    """(Under ``_lock``.)  Kept for the newest ``_PREFIX_CACHE_SIZE`` sets of tools."""
    if len(_heads_by_id) >= _PREFIX_CACHE_SIZE and ids not in _heads_by_id:
        del _heads_by_id[next(iter(_heads_by_id))]  # the oldest
    _heads_by_id[ids] = entry


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
