"""What a model call was sent, in full, without repeating a history on every call.

A ``model.request`` event carries the whole request: the messages (system prompt first), the
tools with their JSON schemas, ``tool_choice``, the structured-output schema and the model's
parameters.  Sending the whole history with every call would make a session grow with the
square of the conversation, so a request that starts with the messages of an earlier request
of the same run (compared by identity: the same message objects, which is what the runtime
hands from one call to the next) names that request (``messages_base``, its ``seq``) and how
many of its messages it reuses (``messages_reused``), and carries only the rest; tool schemas
the same as the base's are not repeated either (``tool_schemas_reused``).  ``resolve``
rebuilds the full lists from the events (what the studio's Request view does).

One ``RequestLog`` per run (on its ``RunEmitter``); requests are grouped in *lanes* (graph
namespace and node), the previous request of the same lane being the candidate base.  The work
per call is a pass over the message list comparing object identities plus the JSON of the new
messages only; nothing is done when nobody listens (the emitter is not active).
"""

from __future__ import annotations

import operator
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.events import EventBase
from engine.serde import to_jsonable

__all__ = ["MAX_STR", "RequestLog", "SeqOf", "public_params", "resolve"]

MAX_STR = 100_000
"""Longest string kept in a recorded message (a data URL of an image is cut, and says so)."""

_SECRET = re.compile(
    r"(^|_)(api_?key|secret|password|passwd|auth|authorization|cookies?|credentials?|headers?"
    r"|access_token|refresh_token|bearer|private_key|token)($|_)",
    re.IGNORECASE,
)
_NOT_PARAMS = frozenset(
    {"messages", "tools", "tool_choice", "response_format", "functions", "stream", "_type"}
)


def public_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Model parameters as they may appear in events and sessions: anything that could carry a
    credential (``api_key``, ``default_headers``, ``auth_token``...) is redacted; what the
    request shows in its own fields (messages, tools...) is left out."""
    if not params:
        return {}
    out: dict[str, Any] = {}
    for k, v in params.items():
        key = str(k)
        if key in _NOT_PARAMS or v is None:
            continue
        out[key] = "[redacted]" if _SECRET.search(key) else to_jsonable(v, max_str=500)
    return out


class SeqOf:
    """The ``seq`` of an event emitted but not delivered yet, as a field of a later event of
    the same run: the emitter writes the number in when it delivers that later event (events
    are delivered in the order they were emitted, so the earlier one has its number by then)."""

    __slots__ = ("event",)

    def __init__(self, event: EventBase) -> None:
        self.event = event

    def __repr__(self) -> str:
        return f"SeqOf({self.event.kind})"


@dataclass
class _Last:
    event: EventBase
    messages: list[Any]
    tools: list[Any]
    jsons: list[Any]
    """The JSON of every message of the request (those of its base's included)."""


_CARRY = 64
"""Conversations whose last request's message JSON is kept for the next run (see below)."""
_carried: OrderedDict[int, tuple[list[Any], list[Any]]] = OrderedDict()
_carried_lock = threading.Lock()


def _anchor(messages: Sequence[Any]) -> Any:
    """A conversation's key: its second message (its first may be a system prompt middleware
    makes afresh for every call; the rest of the history stays the same objects)."""
    return messages[1] if len(messages) > 1 else None


def _carried_json(
    messages: Sequence[Any],
    same: Callable[[Any, Any], bool] | None,
    render: Callable[[Any, int], Any],
) -> list[Any]:
    """The JSON of ``messages`` for a run's first request: what the conversation's previous
    request (an earlier run on the thread, usually) already made is reused, the same objects
    (messages are not changed in place, as within a run), and only the rest is made."""
    anchor = _anchor(messages)
    known = None
    if anchor is not None:
        with _carried_lock:
            known = _carried.get(id(anchor))
    reused = 0
    if known is not None and len(known[0]) > 1 and known[0][1] is anchor:
        reused = _common_prefix(known[0], messages, same)
    head = known[1][:reused] if known is not None and reused else []
    return [*head, *(render(m, MAX_STR) for m in messages[reused:])]


def _carry(messages: list[Any], jsons: list[Any]) -> None:
    anchor = _anchor(messages)
    if anchor is None:
        return
    with _carried_lock:
        _carried[id(anchor)] = (messages, jsons)
        _carried.move_to_end(id(anchor))
        if len(_carried) > _CARRY:
            _carried.popitem(last=False)


class RequestLog:
    """The last request of each lane of one run (see the module docstring)."""

    def __init__(self) -> None:
        self._last: dict[str, _Last] = {}
        self._jsons: dict[str, list[Any]] = {}

    def fields(
        self,
        lane: str,
        messages: Sequence[Any],
        tools: Sequence[Any] = (),
        *,
        same: Callable[[Any, Any], bool] | None = None,
        render: Callable[[Any, int], Any] | None = None,
    ) -> dict[str, Any]:
        """The ``model.request`` fields of a request sending ``messages`` and ``tools``
        (``render``: how a message is made JSON, ``to_jsonable`` at a ``max_str``: a
        ``jsonable_memo`` the caller renders the same messages with too)."""
        render = render or _render
        last = self._last.get(lane)
        reused, base = 0, None
        tools_reused = False
        if last is not None:
            reused = _common_prefix(last.messages, messages, same)
            if reused:
                # the base may still be on its way to the loop (a worker thread's event): its
                # ``seq`` is read when this request is delivered, after it (``SeqOf``)
                base = last.event.seq or SeqOf(last.event)
                tools_reused = _same_list(last.tools, tools)
        if last is None:
            jsons = _carried_json(messages, same, render)
            own = list(jsons)  # the event's own list (the kept one is never handed out)
        else:
            own = [render(m, MAX_STR) for m in messages[reused:]]
            jsons = [*last.jsons[:reused], *own]
        self._jsons[lane] = jsons
        out: dict[str, Any] = {
            "messages": own,
            "messages_base": base,
            "messages_reused": reused,
        }
        if tools_reused:
            out["tool_schemas_reused"] = True
        else:
            out["tool_schemas"] = [to_jsonable(t, max_str=MAX_STR) for t in tools]
        return out

    def remember(
        self, lane: str, event: EventBase | None, messages: Sequence[Any], tools: Sequence[Any]
    ) -> None:
        """Note the request just emitted (``event`` is None when nobody listened)."""
        jsons = self._jsons.pop(lane, None)
        if event is not None:
            if jsons is None:  # not asked for its fields first
                jsons = [to_jsonable(m, max_str=MAX_STR) for m in messages]
            kept = list(messages)
            self._last[lane] = _Last(event, kept, list(tools), jsons)
            _carry(kept, jsons)


def _render(obj: Any, max_str: int) -> Any:
    return to_jsonable(obj, max_str=max_str)


def _common_prefix(
    old: Sequence[Any], new: Sequence[Any], same: Callable[[Any, Any], bool] | None
) -> int:
    """How many first messages of ``new`` are those of ``old``: the same objects (compared in
    one C pass over a long history), or, where the objects differ, equal values (``same``, or
    equality of the same type): a system prompt a middleware rebuilds for every call is a new
    object with the same text, and the history after it is still the same objects."""
    flags = list(map(operator.is_, old, new))
    equal = same or _equal
    i = 0
    while True:
        try:
            i = flags.index(False, i)
        except ValueError:
            return len(flags)
        if not equal(old[i], new[i]):
            return i
        i += 1


def _equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # an odd object: not reused
        return False


def _same_list(old: Sequence[Any], new: Sequence[Any]) -> bool:
    return len(old) == len(new) and all(a is b or a == b for a, b in zip(old, new, strict=True))


def resolve(
    event: EventBase, find: Callable[[int], EventBase | None]
) -> tuple[list[Any] | None, list[Any] | None]:
    """The full (messages, tool schemas) of a ``model.request``; ``find(seq)`` returns an
    earlier event of the same run.  None for what the events do not record (a session recorded
    before requests were, a base request that is missing)."""
    chain = [event]
    while (base_seq := chain[-1].__dict__.get("messages_base")) is not None:
        base = find(base_seq)
        if base is None or base.seq >= chain[-1].seq:  # missing, or not earlier: no cycle
            return None, None
        chain.append(base)
    messages: list[Any] = []
    tools: list[Any] | None = None
    for ev in reversed(chain):
        d = ev.__dict__
        own = d.get("messages")
        if own is None:
            return None, None
        messages = [*messages[: d.get("messages_reused") or 0], *own]
        if not d.get("tool_schemas_reused"):
            tools = d.get("tool_schemas")
    return messages, tools
