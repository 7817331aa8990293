"""Channel values as blobs: append-log deltas on the way in, a decoded-value cache on the way out.

An ``AppendLog`` (``messages``, ``operator.add`` lists) that only grew since the previous blob
of its channel is stored as ``{"append": [new items], "base": previous version}``; anything
else as ``{"value": ...}`` (or ``{"messages"|"list": [...]}`` for a full log).  Reading walks
the append chain back to a cached or full blob (a saver reads a growing stretch of the chain per
query: a 10,000-message log takes a handful of queries, not 10,000) and replays it forward with
every message decoded in one call, so a long thread is decoded once and then served from the
cache.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from engine import serde
from engine.core.gc_pause import paused_gc
from engine.errors import CheckpointError
from engine.message_log import AppendLog, MessageList

__all__ = ["BlobCodec", "chain_from"]

_CHAIN_MAX = 1 << 30
"""No limit: the rest of a chain, however long."""


class BlobCodec:
    """Mixin of ``BaseCheckpointSaver`` (which provides ``_get_blob`` and ``location``)."""

    CACHE_SIZE = 1024

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, str, str, str], Any] = OrderedDict()
        self._tips: dict[tuple[str, str, str], tuple[str, AppendLog[Any]]] = {}
        self._cache_lock = threading.Lock()

    @property
    def location(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__

    def _get_blob(
        self, thread_id: str, ns: str, channel: str, version: str
    ) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def _encode_blob(self, thread_id: str, ns: str, channel: str, version: str, value: Any) -> str:
        if isinstance(value, AppendLog):
            tip = self._tips.get((thread_id, ns, channel))
            self._tips[(thread_id, ns, channel)] = (version, value)
            self._cache_put((thread_id, ns, channel, version), value)
            if tip is not None and tip[0] != version and value.extends(tip[1]):
                delta = value.delta_since(tip[1])
                return json.dumps(
                    {"append": serde.encode(delta), "base": tip[0]},
                    separators=(",", ":"),
                    ensure_ascii=False,
                )
            key = "messages" if isinstance(value, MessageList) else "list"
            return json.dumps(
                {key: serde.encode(list(value))}, separators=(",", ":"), ensure_ascii=False
            )
        self._cache_put((thread_id, ns, channel, version), value)
        return json.dumps({"value": serde.encode(value)}, separators=(",", ":"), ensure_ascii=False)

    def _cache_put(self, key: tuple[str, str, str, str], value: Any) -> None:
        with self._cache_lock:
            self._cache[key] = value
            self._cache.move_to_end(key)
            while len(self._cache) > self.CACHE_SIZE:
                self._cache.popitem(last=False)

    def _cache_get(self, key: tuple[str, str, str, str]) -> Any:
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        return serde.TAG  # sentinel: not cached

    def _get_blob_chain(
        self, thread_id: str, ns: str, channel: str, version: str, limit: int
    ) -> list[tuple[str, str]]:
        """``(version, blob)`` of ``version`` and of the versions its append chain rests on,
        newest first: at most ``limit``, ending at a full blob.  This default reads one blob;
        a saver with a query language reads the whole stretch in one query."""
        text = self._get_blob(thread_id, ns, channel, version)
        return [] if text is None else [(version, text)]

    def _load_value(
        self, thread_id: str, ns: str, channel: str, version: str, checkpoint_id: str
    ) -> Any:
        cached = self._cache_get((thread_id, ns, channel, version))
        if cached is not serde.TAG:
            return cached
        # a deep read makes tens of thousands of objects, none of them garbage: collecting
        # while it runs only rescans them (half the time of a cold read)
        with paused_gc():
            return self._decode_chain(thread_id, ns, channel, version, checkpoint_id)

    def _first_cached(self, keys: list[tuple[str, str, str, str]]) -> tuple[int, Any]:
        """The position of the first cached key and its value (``len(keys)``, TAG: none)."""
        with self._cache_lock:
            cache = self._cache
            for i, key in enumerate(keys):
                if key in cache:
                    cache.move_to_end(key)
                    return i, cache[key]
        return len(keys), serde.TAG

    def _decode_chain(
        self, thread_id: str, ns: str, channel: str, version: str, checkpoint_id: str
    ) -> Any:
        def missing(v: str) -> CheckpointError:
            return CheckpointError(
                f"Checkpoint {checkpoint_id} of thread '{thread_id}' refers to missing data for channel "
                f"'{channel}' (version {v}) in {self.location}",
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            )

        def corrupt(exc: Exception) -> CheckpointError:
            return CheckpointError(
                f"Checkpoint {checkpoint_id} of thread '{thread_id}' in {self.location} is corrupt "
                f"(channel '{channel}'): {exc}",
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            )

        # walk the append chain back to a cached or full blob (read a growing stretch of it
        # per query), then replay it forward
        chain: list[tuple[str, Any]] = []  # (version, encoded items it appended), newest first
        v: str | None = version
        base_value: Any = serde.TAG
        stretch = 4
        while v is not None:
            rows = self._get_blob_chain(thread_id, ns, channel, v, stretch)
            stretch = stretch * 16  # 4, 64, then the rest (``_CHAIN_MAX``) in one read
            if stretch > 64:
                stretch = _CHAIN_MAX
            if not rows or rows[0][0] != v:
                raise missing(v)
            skip = 0 if chain else 1  # ``version`` itself was looked up already
            hit, cached = self._first_cached(
                [(thread_id, ns, channel, ver) for ver, _text in rows[skip:]]
            )
            texts = [text for _ver, text in rows[: skip + hit]]
            if cached is not serde.TAG:
                base_value = cached
            try:
                blobs = json.loads(f"[{','.join(texts)}]") if texts else []
            except ValueError as exc:
                raise corrupt(exc) from exc
            for (ver, _text), blob in zip(rows, blobs, strict=False):
                try:
                    if "append" in blob:
                        chain.append((ver, blob["append"]))
                        v = blob["base"]
                        continue
                    if "messages" in blob:
                        base_value = MessageList(serde.decode(blob["messages"]))
                    elif "list" in blob:
                        base_value = AppendLog(serde.decode(blob["list"]))
                    else:
                        base_value = serde.decode(blob["value"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise corrupt(exc) from exc
                self._cache_put((thread_id, ns, channel, ver), base_value)
                break
            if base_value is not serde.TAG:
                break
        if not chain:
            if isinstance(base_value, AppendLog):
                self._tips[(thread_id, ns, channel)] = (version, base_value)
            return base_value
        try:
            deltas = serde.decode_lists([items for _ver, items in reversed(chain)])
        except (ValueError, KeyError, TypeError) as exc:
            raise corrupt(exc) from exc
        value = base_value if isinstance(base_value, AppendLog) else AppendLog(base_value)
        start = len(value)
        value = value.extended([item for delta in deltas for item in delta])
        # each version of the chain is a view of the one buffer; the newest ones are cached
        ends: list[int] = []
        for delta in deltas:
            start += len(delta)
            ends.append(start)
        versions = [ver for ver, _items in reversed(chain)]
        for ver, end in list(zip(versions, ends, strict=True))[-self.CACHE_SIZE :]:
            self._cache_put((thread_id, ns, channel, ver), value.prefix(end))
        self._tips[(thread_id, ns, channel)] = (version, value)
        return value


_DELTA_HEAD = '{"append":'
_BASE_KEY = ',"base":"'


def _base_of(text: str) -> str | None:
    """The base version of an append blob as ``_encode_blob`` writes it
    (``{"append":[...],"base":"<version>"}``), read from its end without parsing its items;
    None for any other text.  ``,"base":"`` cannot occur inside a JSON string (its quotes
    would be escaped), so its last occurrence is the blob's own last member."""
    if not (text.startswith(_DELTA_HEAD) and text.endswith('"}')):
        return None
    i = text.rfind(_BASE_KEY)
    if i < 0:
        return None
    base = text[i + len(_BASE_KEY) : -2]
    return None if '"' in base or "\\" in base else base


def chain_from(blobs: dict[str, str], version: str, limit: int) -> list[tuple[str, str]]:
    """``(version, blob)`` of ``version`` and of the blobs its append chain rests on, newest
    first, from a channel's blobs by version: at most ``limit`` (and never more than there are
    blobs: a chain that loops ends).  It ends at the first blob that is not an append blob of
    the usual form, or whose base is missing (the caller parses that blob and goes on, or
    reports what is missing or corrupt)."""
    out: list[tuple[str, str]] = []
    v: str | None = version
    cap = min(limit, len(blobs))
    while v is not None and len(out) < cap:
        text = blobs.get(v)
        if text is None:
            break
        out.append((v, text))
        v = _base_of(text)
    return out
