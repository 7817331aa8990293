"""Result caches for nodes and tasks (``CachePolicy``, ``InMemoryCache``, ``SqliteCache``).

A cache maps ``(namespace, key)`` to a value with an optional time to live.  Values are stored
as JSON through ``engine.serde`` (never pickle).  A node or task opts in with
``cache_policy=CachePolicy(...)``; the graph gets the cache with ``compile(cache=...)`` or
``@entrypoint(cache=...)``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engine import serde

__all__ = [
    "BaseCache",
    "CachePolicy",
    "FullKey",
    "InMemoryCache",
    "Namespace",
    "SqliteCache",
    "default_cache_key",
]

Namespace = tuple[str, ...]
FullKey = tuple[Namespace, str]
ValueT = TypeVar("ValueT")
KeyFuncT = TypeVar("KeyFuncT", bound=Callable[..., str | bytes])


def default_cache_key(*args: Any, **kwargs: Any) -> str:
    """A stable key for a call's arguments: a hash of their JSON encoding."""
    payload = json.dumps(
        serde.encode([list(args), kwargs]), sort_keys=True, separators=(",", ":"), default=repr
    )
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=16).hexdigest()


@dataclass
class CachePolicy(Generic[KeyFuncT]):
    """How a node's or task's results are cached: ``key_func`` maps the input (for a task:
    its arguments) to a key; ``ttl`` is the lifetime in seconds (``None``: forever)."""

    key_func: KeyFuncT = default_cache_key  # type: ignore[assignment]
    ttl: int | None = None

    def key(self, *args: Any, **kwargs: Any) -> str:
        k = self.key_func(*args, **kwargs)
        return k.hex() if isinstance(k, bytes) else str(k)


class BaseCache(Generic[ValueT]):
    """The cache protocol: ``get``/``set``/``clear`` and their async twins."""

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        raise NotImplementedError

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        raise NotImplementedError

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        raise NotImplementedError

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        return await asyncio.to_thread(self.get, keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        await asyncio.to_thread(self.set, pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        await asyncio.to_thread(self.clear, namespaces)


class InMemoryCache(BaseCache[ValueT]):
    """A process-local cache (values are JSON-encoded, so callers never share objects)."""

    def __init__(self) -> None:
        self._data: dict[Namespace, dict[str, tuple[str, float | None]]] = {}
        self._lock = threading.RLock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        now = time.time()
        out: dict[FullKey, ValueT] = {}
        with self._lock:
            for ns, key in keys:
                entry = self._data.get(ns, {}).get(key)
                if entry is None:
                    continue
                blob, expiry = entry
                if expiry is not None and expiry <= now:
                    del self._data[ns][key]
                    continue
                out[(ns, key)] = serde.decode(json.loads(blob))
        return out

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        now = time.time()
        with self._lock:
            for (ns, key), (value, ttl) in pairs.items():
                blob = json.dumps(serde.encode(value))
                self._data.setdefault(ns, {})[key] = (blob, now + ttl if ttl else None)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._data.clear()
            else:
                for ns in namespaces:
                    self._data.pop(tuple(ns), None)

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        return self.get(keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        self.set(pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        self.clear(namespaces)


class SqliteCache(BaseCache[ValueT]):
    """A cache in a SQLite file (``":memory:"`` for a private in-memory database)."""

    def __init__(self, *, path: str = ":memory:") -> None:
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.RLock()
        with self._lock:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS cache (ns TEXT NOT NULL, key TEXT NOT NULL, "
                "value TEXT NOT NULL, expiry REAL, PRIMARY KEY (ns, key))"
            )
            self._conn.commit()

    @staticmethod
    def _ns(ns: Namespace) -> str:
        return json.dumps(list(ns))

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        now = time.time()
        out: dict[FullKey, ValueT] = {}
        with self._lock:
            for ns, key in keys:
                row = self._conn.execute(
                    "SELECT value, expiry FROM cache WHERE ns = ? AND key = ?",
                    (self._ns(ns), key),
                ).fetchone()
                if row is None:
                    continue
                if row[1] is not None and row[1] <= now:
                    self._conn.execute(
                        "DELETE FROM cache WHERE ns = ? AND key = ?", (self._ns(ns), key)
                    )
                    self._conn.commit()
                    continue
                out[(ns, key)] = serde.decode(json.loads(row[0]))
        return out

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        now = time.time()
        with self._lock:
            for (ns, key), (value, ttl) in pairs.items():
                self._conn.execute(
                    "INSERT OR REPLACE INTO cache (ns, key, value, expiry) VALUES (?, ?, ?, ?)",
                    (
                        self._ns(ns),
                        key,
                        json.dumps(serde.encode(value)),
                        now + ttl if ttl else None,
                    ),
                )
            self._conn.commit()

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._conn.execute("DELETE FROM cache")
            else:
                for ns in namespaces:
                    self._conn.execute("DELETE FROM cache WHERE ns = ?", (self._ns(tuple(ns)),))
            self._conn.commit()
