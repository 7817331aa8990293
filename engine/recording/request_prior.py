"""A run's first model request, written as a continuation of the thread's previous request.

Within a run a ``model.request`` names the earlier request it continues (``messages_base``,
``engine.observe.request_log``), but a run's first request carries its whole history: a long
conversation recorded run by run would grow with the square of its length.  The recorder
knows what the session file already holds, so it writes such a request as the thread's last
recorded request of the same namespace (the one sharing the longest first messages, usually
the whole of it) plus what follows, with one extra member::

    "messages": [<the messages after the shared ones>],
    "messages_prior": {"run": "<run id>", "seq": <its seq>, "reused": <shared messages>}

The reader (``PriorResolver``) joins them again, so every reader of the file sees exactly
the event the recorder was given: ``messages`` whole, no ``messages_prior``.  Only the file
changes; events in memory never carry ``messages_prior``.
"""

from __future__ import annotations

import json
import operator
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from engine.events import EventBase

__all__ = ["PRIOR_KEY", "PriorResolver", "RequestPriors"]

PRIOR_KEY = "messages_prior"
_MARK = '"messages_prior":{'
_RECENT = 8
"""Requests remembered per (thread, namespace): the last of each of up to 8 lanes."""


def _shared(old: list[Any], new: list[Any]) -> int:
    """How many first items of ``new`` equal ``old``'s: the same objects first (the request
    log hands a run the JSON of the previous run's messages), then deep comparisons (C
    passes, both)."""
    same = list(map(operator.is_, old, new))
    try:
        i = same.index(False)
    except ValueError:
        return len(same)
    equal = list(map(operator.eq, old[i:], new[i:]))
    try:
        return i + equal.index(False)
    except ValueError:
        return i + len(equal)


class RequestPriors:
    """The recorder's side (its writer thread): which recorded request a run's first request
    continues, from the full message lists of the requests it wrote (JSON values, shared with
    the events, never copied item by item)."""

    def __init__(self) -> None:
        self._runs: dict[str, dict[int, list[Any]]] = {}
        """Per run: the full messages of each lane's latest request (by ``seq``)."""
        self._recent: dict[tuple[str, str], list[tuple[str, int, list[Any]]]] = {}
        """Per (thread, namespace): the latest requests of its lanes, oldest first."""

    def forget(self) -> None:
        """Write every later request whole (the text filters changed: what is in the file
        was filtered otherwise)."""
        self._runs.clear()
        self._recent.clear()

    def run_finished(self, run_id: str) -> None:
        self._runs.pop(run_id, None)

    def prior(self, ev: EventBase) -> tuple[str, int, int] | None:
        """``(run, seq, reused)`` of the recorded request ``ev`` continues (then write only
        ``ev.messages[reused:]``), or None (write it as it is).  Every request is seen once,
        in the order written."""
        d = ev.__dict__
        messages = d.get("messages")
        if type(messages) is not list:
            return None
        run = self._runs.setdefault(ev.run_id, {})
        base = d.get("messages_base")
        key = (ev.thread_id or "", ev.ns)
        recent = self._recent.setdefault(key, []) if ev.thread_id is not None else None
        found: tuple[str, int, int] | None = None
        if base is not None:
            earlier = run.pop(base, None)  # a lane's request is continued once, by its next
            if earlier is None:
                return None
            full = [*earlier[: d.get("messages_reused") or 0], *messages]
            if recent is not None:
                recent[:] = [r for r in recent if not (r[0] == ev.run_id and r[1] == base)]
        else:
            full = messages
            if recent:
                found = self._best(recent, messages)
        run[ev.seq] = full
        if recent is not None:
            recent.append((ev.run_id, ev.seq, full))
            if len(recent) > _RECENT:
                del recent[0]
        return found

    @staticmethod
    def _best(
        recent: list[tuple[str, int, list[Any]]], messages: list[Any]
    ) -> tuple[str, int, int] | None:
        best: tuple[str, int, int] | None = None
        for run_id, seq, full in reversed(recent):
            n = _shared(full, messages)
            if n and (best is None or n > best[2]):
                best = (run_id, seq, n)
                if n == len(full):  # the whole earlier request: the usual next turn
                    break
        return best


def with_prior(text: str, prior: tuple[str, int, int]) -> str:
    """An event's JSON text (an object) with the ``messages_prior`` member added."""
    run_id, seq, reused = prior
    member = json.dumps({"run": run_id, "seq": seq, "reused": reused}, separators=(",", ":"))
    return f'{text[:-1]},"{PRIOR_KEY}":{member}}}'


class PriorResolver:
    """The reader's side: an event text with ``messages_prior`` made whole again.

    ``row(run_id, seq)`` returns a recorded event's JSON text (None when there is none).  The
    full message lists of the last requests joined are kept, so a file read in order costs a
    lookup per run, not a walk back to the thread's first request."""

    def __init__(self, row: Callable[[str, int], str | None], keep: int = 32) -> None:
        self._row = row
        self._keep = keep
        self._full: OrderedDict[tuple[str, int], list[Any]] = OrderedDict()

    def clear(self) -> None:
        self._full.clear()

    @staticmethod
    def marked(text: str) -> bool:
        """Whether the text may need joining (a cheap test; ``expand`` checks properly)."""
        return _MARK in text

    def whole(self, text: str) -> str:
        """``expand``, or the text as it is when it is not JSON (whoever decodes it says so)."""
        try:
            return self.expand(text)
        except (ValueError, RecursionError):
            return text

    def expand(self, text: str) -> str:
        """The event's text as the recorder was given it (unchanged when it has no prior)."""
        data = json.loads(text)
        if not isinstance(data, dict) or PRIOR_KEY not in data:
            return text
        data[PRIOR_KEY] = data.pop(PRIOR_KEY)  # joined last, whatever the member order
        full = self._join(data)
        data.pop(PRIOR_KEY)
        data["messages"] = full  # None: the earlier request is missing (shown as unknown)
        if full is not None and isinstance(data.get("run_id"), str):
            self._remember((data["run_id"], int(data.get("seq") or 0)), full)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    def _remember(self, key: tuple[str, int], full: list[Any]) -> None:
        self._full[key] = full
        self._full.move_to_end(key)
        if len(self._full) > self._keep:
            self._full.popitem(last=False)

    def _join(self, data: dict[str, Any]) -> list[Any] | None:
        """The full messages of the request ``data`` (walking back through the requests it
        continues; each step must go to an earlier one, so a damaged file cannot loop)."""
        chain: list[tuple[tuple[str, int] | None, dict[str, Any]]] = []
        key: tuple[str, int] | None = None
        current: dict[str, Any] | None = data
        full: list[Any] | None = None
        seen: set[tuple[str, int]] = set()
        while current is not None:
            own = current.get("messages")
            if type(own) is not list:
                return None
            chain.append((key, current))
            prior = current.get(PRIOR_KEY)
            run_id = current.get("run_id")
            if isinstance(prior, dict):
                nxt = (prior.get("run"), prior.get("seq"))
            elif current.get("messages_base") is not None:
                nxt = (run_id, current.get("messages_base"))
            else:
                break  # the first request of the chain: its list is whole
            if not isinstance(nxt[0], str) or type(nxt[1]) is not int or len(chain) > 1_000_000:
                return None
            if nxt[0] == run_id and nxt[1] >= int(current.get("seq") or 0):
                return None  # not earlier in its run
            key = (nxt[0], nxt[1])
            if key in self._full:
                full = self._full[key]
                self._full.move_to_end(key)
                current = None
                break
            if key in seen:
                return None
            seen.add(key)
            text = self._row(*key)
            parsed = json.loads(text) if text is not None else None
            if not isinstance(parsed, dict) or parsed.get("kind") != "model.request":
                return None
            current = parsed
        for k, d in reversed(chain):
            own = d["messages"]
            prior = d.get(PRIOR_KEY)
            if full is None:
                full = list(own)
            elif isinstance(prior, dict):
                full = [*full[: int(prior.get("reused") or 0)], *own]
            else:
                full = [*full[: int(d.get("messages_reused") or 0)], *own]
            if k is not None:
                self._remember(k, full)
        return full
