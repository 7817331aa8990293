"""Channel values as blobs: append-log deltas on the way in, a decoded-value cache on the way out.

An ``AppendLog`` (``messages``, ``operator.add`` lists) that only grew since the previous blob
of its channel is stored as ``{"append": [new items], "base": previous version}``; anything
else as ``{"value": ...}`` (or ``{"messages"|"list": [...]}`` for a full log).  Reading walks
the append chain back to a cached or full blob and replays it forward, so a long thread is
decoded once and then served from the cache.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from engine import serde
from engine.errors import CheckpointError
from engine.message_log import AppendLog, MessageList

__all__ = ["BlobCodec"]


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

    def _load_value(
        self, thread_id: str, ns: str, channel: str, version: str, checkpoint_id: str
    ) -> Any:
        cached = self._cache_get((thread_id, ns, channel, version))
        if cached is not serde.TAG:
            return cached
        # walk the append chain back to a cached or full blob, then replay forward
        chain: list[tuple[str, list[Any]]] = []
        v: str | None = version
        base_value: Any = serde.TAG
        while v is not None:
            cached = self._cache_get((thread_id, ns, channel, v))
            if cached is not serde.TAG:
                base_value = cached
                break
            text = self._get_blob(thread_id, ns, channel, v)
            if text is None:
                raise CheckpointError(
                    f"Checkpoint {checkpoint_id} of thread '{thread_id}' refers to missing data for channel "
                    f"'{channel}' (version {v}) in {self.location}",
                    thread_id=thread_id,
                    checkpoint_id=checkpoint_id,
                )
            try:
                blob = json.loads(text)
                if "append" in blob:
                    chain.append((v, serde.decode(blob["append"])))
                    v = blob["base"]
                    continue
                if "messages" in blob:
                    base_value = MessageList(serde.decode(blob["messages"]))
                elif "list" in blob:
                    base_value = AppendLog(serde.decode(blob["list"]))
                else:
                    base_value = serde.decode(blob["value"])
            except (ValueError, KeyError, TypeError) as exc:
                raise CheckpointError(
                    f"Checkpoint {checkpoint_id} of thread '{thread_id}' in {self.location} is corrupt "
                    f"(channel '{channel}'): {exc}",
                    thread_id=thread_id,
                    checkpoint_id=checkpoint_id,
                ) from exc
            self._cache_put((thread_id, ns, channel, v), base_value)
            break
        value = base_value
        for ver, delta in reversed(chain):
            if not isinstance(value, AppendLog):
                value = AppendLog(value)
            value = value.extended(delta)
            self._cache_put((thread_id, ns, channel, ver), value)
        if isinstance(value, AppendLog):
            self._tips[(thread_id, ns, channel)] = (version, value)
        return value
