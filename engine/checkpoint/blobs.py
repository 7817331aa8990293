"""Channel values as blobs: logs stored a few blobs per read, a decoded-value cache on the way out.

An ``AppendLog`` (``messages``, ``operator.add`` lists) that only grew since the previous blob
of its channel is stored as the items added since an older version of it
(``engine.checkpoint.log_blobs``: a read walks a handful of blobs, whatever the log's length);
anything else as ``{"value": ...}``.  A read hands out the log's items as their stored JSON
texts in a ``LazyList`` (``engine.lazy_list``): an item is decoded when it is first read, so a
long thread's state is available at once and costs its decoding only for what is looked at.
Decoded values are cached: the next read of the same or a nearby version is served from there.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from engine import serde
from engine.checkpoint.log_blobs import (
    LogBlob,
    Segment,
    Tip,
    base_of,
    encode_log,
    parse_log_blob,
    parse_packed_log,
    text_of,
)
from engine.checkpoint.packing import head, unpack
from engine.core.gc_pause import paused_gc
from engine.errors import CheckpointError
from engine.lazy_list import LazyList
from engine.message_log import AppendLog, MessageList

__all__ = ["BlobCodec", "chain_from"]

_CHAIN_MAX = 1 << 30
"""No limit: the rest of a chain, however long."""

_FIRST_STRETCH = 64
"""Blobs asked for in a read's first query: a chain in the current layout is shorter; a long
chain of the older layout (one blob per step) is read with the rest in a second query."""


class BlobCodec:
    """Mixin of ``BaseCheckpointSaver`` (which provides ``_get_blob`` and ``location``)."""

    CACHE_SIZE = 1024

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, str, str, str], Any] = OrderedDict()
        self._tips: dict[tuple[str, str, str], Tip] = {}
        self._cache_lock = threading.Lock()

    @property
    def location(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__

    def _get_blob(
        self, thread_id: str, ns: str, channel: str, version: str
    ) -> str | bytes | None:  # pragma: no cover
        raise NotImplementedError

    def _encode_blob(
        self, thread_id: str, ns: str, channel: str, version: str, value: Any
    ) -> tuple[str, list[str]]:
        """The blob's text, and the texts of the items it appended (its last ones) when it is
        an append blob of a log (else none)."""
        if isinstance(value, AppendLog):
            key = (thread_id, ns, channel)
            text, tip = encode_log(self._tips.get(key), version, value, serde.encode)
            self._tips[key] = tip
            self._cache_put((thread_id, ns, channel, version), value)
            return text, tip.added
        self._cache_put((thread_id, ns, channel, version), value)
        text = json.dumps({"value": serde.encode(value)}, separators=(",", ":"), ensure_ascii=False)
        return text, []

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
    ) -> list[tuple[str, str | bytes]]:
        """``(version, blob)`` of ``version`` and of the versions its append chain rests on,
        newest first, each as stored (its text, or packed: ``engine.checkpoint.packing``): at
        most ``limit``, ending at a full blob.  This default reads one blob; a saver with a
        query language reads the whole stretch in one query."""
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

        # walk the chain back to a cached value or a root, then build the value forward
        chain: list[tuple[str, LogBlob | list[Any]]] = []  # append blobs, newest first
        root: Any = serde.TAG  # a cached or decoded value, or (version, root LogBlob)
        v: str | None = version
        stretch = _FIRST_STRETCH
        while v is not None:
            rows = self._get_blob_chain(thread_id, ns, channel, v, stretch)
            stretch = _CHAIN_MAX
            if not rows or rows[0][0] != v:
                raise missing(v)
            skip = 0 if chain else 1  # ``version`` itself was looked up already
            hit, cached = self._first_cached(
                [(thread_id, ns, channel, ver) for ver, _text in rows[skip:]]
            )
            if cached is not serde.TAG:
                root = cached
            for ver, stored in rows[: skip + hit]:
                try:
                    blob = (
                        parse_log_blob(stored)
                        if isinstance(stored, str)
                        else parse_packed_log(stored)
                    )
                    if blob is None:  # the older layout, or not a log
                        text = unpack(stored)
                        data = json.loads(text)
                        if "append" in data:
                            chain.append((ver, data["append"]))
                            v = data["base"]
                            continue
                        if "messages" in data:
                            root = MessageList(serde.decode(data["messages"]))
                        elif "list" in data:
                            root = AppendLog(serde.decode(data["list"]))
                        else:
                            root = serde.decode(data["value"])
                        self._cache_put((thread_id, ns, channel, ver), root)
                    elif blob.base is not None:
                        chain.append((ver, blob))
                        v = blob.base
                        continue
                    else:
                        root = (ver, blob)
                except (ValueError, KeyError, TypeError) as exc:
                    raise corrupt(exc) from exc
                break
            if root is not serde.TAG:
                break
        decoder = _text_decoder(corrupt)
        tip: Tip | None = None  # kept only when the whole chain is in the current layout
        if isinstance(root, tuple):
            root_ver, root_blob = root
            root = _lazy_log(root_blob.kind, [(True, root_blob.items)], decoder)
            self._cache_put((thread_id, ns, channel, root_ver), root)
            tip = Tip.root(root_ver, root)
        key = (thread_id, ns, channel)
        if not chain:
            if isinstance(root, AppendLog):
                self._tips[key] = tip or Tip.root(version, root)
            return root
        chain.reverse()
        try:
            old = serde.decode_lists([d for _v, d in chain if not isinstance(d, LogBlob)])
        except (ValueError, KeyError, TypeError) as exc:
            raise corrupt(exc) from exc
        old.reverse()
        parts: list[tuple[bool, list[Any]]] = []
        for _ver, d in chain:
            if isinstance(d, LogBlob):
                parts.append((True, d.items))
            else:
                parts.append((False, old.pop()))
                tip = None
        base: AppendLog[Any] = root if isinstance(root, AppendLog) else AppendLog(root)
        n0 = len(base)
        value = _lazy_log(
            "messages" if isinstance(base, MessageList) else "list",
            [(False, base[:n0]), *parts],
            decoder,
        )
        # each version of the chain is a view of the one buffer; the newest ones are cached
        end = n0
        for ver, d in chain:
            end += len(d.items) if isinstance(d, LogBlob) else len(d)
            self._cache_put((thread_id, ns, channel, ver), value.prefix(end))
            if tip is not None and isinstance(d, LogBlob):
                tip.chain.append(Segment(d.k, ver, end, d.body))
        if tip is not None:
            tip.version, tip.value = version, value
        self._tips[key] = tip or Tip.root(version, value)
        return value


def _lazy_log(
    kind: str, parts: list[tuple[bool, list[Any]]], decode: Callable[[list[str]], list[Any]]
) -> AppendLog[Any]:
    """An ``AppendLog`` (a ``MessageList`` for ``messages``) over a ``LazyList`` of ``parts``."""
    items = LazyList.of_texts(parts, decode)
    cls = MessageList if kind == "messages" else AppendLog
    return cls.over(items)


def _text_decoder(
    corrupt: Callable[[Exception], CheckpointError],
) -> Callable[[list[str]], list[Any]]:
    """Decodes stored item texts; a text it cannot read is reported as ``corrupt`` says."""

    def decode(texts: list[str]) -> list[Any]:
        try:
            with paused_gc():
                joined = ",".join([text_of(t).rstrip(",") for t in texts])
                data = json.loads("[" + joined + "]")
                return serde.decode_lists([data])[0]
        except (ValueError, KeyError, TypeError) as exc:
            raise corrupt(exc) from exc

    return decode


def chain_from(
    blobs: dict[str, str | bytes], version: str, limit: int
) -> list[tuple[str, str | bytes]]:
    """``(version, blob)`` of ``version`` and of the blobs its append chain rests on, newest
    first, from a channel's blobs by version: at most ``limit`` (and never more than there are
    blobs: a chain that loops ends).  It ends at the first blob that is not an append blob of
    the usual form, or whose base is missing (the caller parses that blob and goes on, or
    reports what is missing or corrupt)."""
    out: list[tuple[str, str | bytes]] = []
    v: str | None = version
    cap = min(limit, len(blobs))
    while v is not None and len(out) < cap:
        text = blobs.get(v)
        if text is None:
            break
        out.append((v, text))
        v = base_of(head(text))
    return out
