"""Long-term memory shared across threads: ``BaseStore``, ``InMemoryStore``, ``SqliteStore``.

Items live under a *namespace* (a tuple of strings such as ``("users", "123")``) and a key;
values are JSON objects (dicts), stored as JSON text, so what you read back is always a fresh
copy and nothing but JSON ever reaches the disk.  Tools reach the agent's store through an
``InjectedStore`` parameter (or ``ToolRuntime.store``)::

    store.put(("users", "123"), "prefs", {"theme": "dark"})
    store.get(("users", "123"), "prefs").value      # {"theme": "dark"}
    store.search(("users",), filter={"theme": "dark"})

While a run is watched (``engine.observe.bus``), every call made inside it emits a ``store.access``
event (op, namespace, key, what was found, written or returned), so a debugger can show what
each run read and wrote; outside a run, or with nobody listening, nothing is built.

Every method has an async twin (``aput``, ``aget``, ``asearch``, ``adelete``,
``alist_namespaces``) that runs the same code; a store whose storage blocks (SQLite) runs it
on a worker thread so the event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from engine.store.access import _hits, _record, _record_get, access_summary
from engine.store.namespaces import InvalidNamespaceError, check_namespace
from engine.store.semantic import SemanticIndex, cosine

__all__ = [
    "BaseStore",
    "InMemoryStore",
    "InvalidNamespaceError",
    "Item",
    "SearchItem",
    "SqliteStore",
    "access_summary",
]

T = TypeVar("T")
_SEP = "\x1f"
Row = tuple[tuple[str, ...], str, str, str, str]
"""(namespace, key, value JSON, created_at ISO, updated_at ISO)"""


@dataclass(frozen=True)
class Item:
    """A stored value with its address and timestamps."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: dt.datetime
    updated_at: dt.datetime

    def dict(self) -> dict[str, Any]:
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    # as LangGraph's ``Item``: shown by its ``dict()`` (a search hit too, under this name),
    # equal by address, value and times (whatever its score), hashed by address
    def __repr__(self) -> str:
        return "Item(" + ", ".join(f"{k}={v!r}" for k, v in self.dict().items()) + ")"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return False
        return (self.namespace, self.key, self.value, self.created_at, self.updated_at) == (
            other.namespace,
            other.key,
            other.value,
            other.created_at,
            other.updated_at,
        )

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))


@dataclass(frozen=True, repr=False, eq=False)
class SearchItem(Item):
    """A search hit; ``score`` is set when the search had a ``query``."""

    score: float | None = None

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "score": self.score}


def _now() -> str:
    """When a write happens: ISO time, UTC (the order of a SQLite store's search reads it)."""
    return dt.datetime.now(dt.UTC).isoformat()


def _check_namespace(namespace: Any, *, allow_empty: bool = False) -> tuple[str, ...]:
    """``namespace`` checked (``engine.store.namespaces``); ``allow_empty`` False: a put's."""
    return check_namespace(namespace, written=not allow_empty)


def _encode_value(value: Any) -> str:
    if not isinstance(value, dict):
        raise TypeError(
            f"A stored value must be a dict (a JSON object), got {type(value).__name__}"
        )
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"A stored value must be JSON-serialisable: {exc}") from None


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], filter: dict[str, Any]) -> bool:
    """Exact match per key, or ``{"$gt": 3}``-style comparisons."""
    for k, want in filter.items():
        have = value.get(k)
        if isinstance(want, dict) and want and all(op in _OPS for op in want):
            try:
                if not all(_OPS[op](have, arg) for op, arg in want.items()):
                    return False
            except TypeError:
                return False
        elif have != want:
            return False
    return True


class BaseStore:
    """A namespaced key-value store of JSON objects.

    Subclasses implement four small synchronous primitives (``_write``, ``_read``,
    ``_remove``, ``_scan``); everything else, sync and async, is written here once.
    """

    blocking = False
    """True when the primitives do I/O: async methods then run on a worker thread."""

    _index: SemanticIndex | None = None
    """The ``index=`` configuration (semantic search), if the store has one."""
    _vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]]

    @property
    def index_config(self) -> dict[str, Any] | None:
        """The ``index=`` configuration (as LangGraph's stores name it); None without one:
        then a search's ``query`` neither filters nor ranks."""
        return None if self._index is None else dict(self._index.config)

    # -- primitives ----------------------------------------------------------------------

    def _write(self, namespace: tuple[str, ...], key: str, value: str, now: str) -> None:
        raise NotImplementedError

    def _read(self, namespace: tuple[str, ...], key: str) -> Row | None:
        raise NotImplementedError

    def _remove(self, namespace: tuple[str, ...], key: str) -> None:
        raise NotImplementedError

    def _scan(self, prefix: tuple[str, ...]) -> Iterable[Row]:
        """Every row whose namespace starts with ``prefix``, in the order a search lists them
        (the store's own order: as LangGraph's store of the same kind)."""
        raise NotImplementedError

    def _namespaces(self, prefix: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
        """The namespaces under ``prefix`` that ``list_namespaces`` reports: those holding
        an item, unless a store keeps more."""
        return {ns for ns, *_ in self._scan(prefix)}

    # -- sync API ------------------------------------------------------------------------

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any] | None,
        index: Literal[False] | list[str] | None = None,
    ) -> None:
        """Store ``value`` (a JSON object) at ``(namespace, key)``; ``None`` deletes it.
        ``index`` (a store built with ``index=``): the field paths to embed instead of the
        configured ones, or ``False`` to embed none."""
        ns = _check_namespace(namespace)
        if not isinstance(key, str) or not key:
            raise ValueError(f"A key must be a non-empty string, got {key!r}")
        if value is None:
            self._remove(ns, key)
            if self._index is not None:
                self._vectors.pop((ns, key), None)
            _record("put", ns, key=key, value=None)
            return
        encoded = _encode_value(value)
        if self._index is not None:
            self._vectors[(ns, key)] = self._index.vectors(value, index)
        self._write(ns, key, encoded, _now())
        _record("put", ns, key=key, value=json.loads(encoded))

    def get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        ns = _check_namespace(namespace, allow_empty=True)
        row = self._read(ns, key)
        _record_get(ns, key, row)
        return None if row is None else _item(row, Item)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        ns = _check_namespace(namespace, allow_empty=True)
        self._remove(ns, key)
        if self._index is not None:
            self._vectors.pop((ns, key), None)
        _record("delete", ns, key=key)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[SearchItem]:
        """Items under ``namespace_prefix`` matching ``filter``, in the order they were first
        put (an update keeps an item's place).  A store built with ``index=`` ranks them by the
        cosine similarity of their vectors to ``query``; without an index, as LangGraph's
        stores, the query neither filters nor ranks."""
        prefix = _check_namespace(namespace_prefix, allow_empty=True)
        if query and self._index is not None:
            items = self._semantic_search(prefix, query, filter, limit, offset)
        else:
            rows = [
                row
                for row in self._scan(prefix)
                if not filter or _matches(json.loads(row[2]), filter)
            ]
            items = [_item(row, SearchItem) for row in rows[offset : offset + limit]]
        _record(
            "search",
            prefix,
            query=query,
            filter=filter,
            hits=_hits(items),
            hit_count=len(items),
        )
        return items

    def _semantic_search(
        self,
        prefix: tuple[str, ...],
        query: str,
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
    ) -> list[SearchItem]:
        """As LangGraph ranks: an item's best cosine over its vectors, highest first; the items
        without vectors fill what is left of the page, unscored."""
        assert self._index is not None
        qv = self._index.query_vector(query)
        scored: list[tuple[float, Row]] = []
        unscored: list[Row] = []
        for row in self._scan(prefix):
            if filter and not _matches(json.loads(row[2]), filter):
                continue
            vectors = self._vectors.get((row[0], row[1]))
            if vectors:
                scored.append((max(cosine(qv, v) for v in vectors.values()), row))
            else:
                unscored.append(row)
        scored.sort(key=lambda h: -h[0])
        page: list[tuple[float | None, Row]] = list(scored[offset : offset + limit])
        if len(page) < limit:
            page.extend((None, row) for row in unscored[: limit - len(page)])
        return [_item(row, SearchItem, score=score) for score, row in page]

    def list_namespaces(
        self,
        *,
        prefix: tuple[str, ...] | None = None,
        suffix: tuple[str, ...] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """The distinct namespaces in use (truncated to ``max_depth`` labels), sorted."""
        found: set[tuple[str, ...]] = set()
        for ns in self._namespaces(_check_namespace(prefix or (), allow_empty=True)):
            if suffix and ns[len(ns) - len(suffix) :] != tuple(suffix):
                continue
            found.add(ns[:max_depth] if max_depth is not None else ns)
        out = sorted(found)[offset : offset + limit]
        _record("list_namespaces", prefix or (), hit_count=len(out))
        return out

    # -- async API (the same code, maybe on a worker thread) -------------------------------

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.blocking:
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any] | None,
        index: Literal[False] | list[str] | None = None,
    ) -> None:
        await self._run(self.put, namespace, key, value, index)

    async def aget(self, namespace: tuple[str, ...], key: str) -> Item | None:
        return await self._run(self.get, namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        await self._run(self.delete, namespace, key)

    async def asearch(
        self, namespace_prefix: tuple[str, ...], /, **kwargs: Any
    ) -> list[SearchItem]:
        return await self._run(self.search, namespace_prefix, **kwargs)

    async def alist_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        return await self._run(self.list_namespaces, **kwargs)


def _item(row: Row, cls: type[Any], **extra: Any) -> Any:
    ns, key, value, created, updated = row
    return cls(
        namespace=ns,
        key=key,
        value=json.loads(value),
        created_at=dt.datetime.fromisoformat(created),
        updated_at=dt.datetime.fromisoformat(updated),
        **extra,
    )


class InMemoryStore(BaseStore):
    """A store in a dict (values kept as JSON text); thread-safe; gone when the process ends.
    ``index={"embed": ..., "dims": ..., "fields": [...]}`` turns on semantic search
    (``engine.store.semantic``)."""

    def __init__(self, *, index: dict[str, Any] | None = None) -> None:
        self._data: dict[tuple[str, ...], dict[str, tuple[str, str, str]]] = {}
        self._lock = threading.Lock()
        if index is not None:
            self._index = SemanticIndex(index)
            self._vectors = {}

    def _write(self, namespace: tuple[str, ...], key: str, value: str, now: str) -> None:
        with self._lock:
            bucket = self._data.setdefault(namespace, {})
            old = bucket.get(key)
            bucket[key] = (value, old[1] if old else now, now)

    def _read(self, namespace: tuple[str, ...], key: str) -> Row | None:
        with self._lock:
            entry = self._data.get(namespace, {}).get(key)
        return None if entry is None else (namespace, key, *entry)

    def _remove(self, namespace: tuple[str, ...], key: str) -> None:
        with self._lock:
            bucket = self._data.get(namespace)
            if bucket is not None:
                bucket.pop(key, None)  # an emptied namespace is still listed, as LangGraph's

    def _namespaces(self, prefix: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
        with self._lock:
            return [ns for ns in self._data if ns[: len(prefix)] == prefix]

    def _scan(self, prefix: tuple[str, ...]) -> Iterable[Row]:
        with self._lock:
            rows = [
                (ns, key, *entry)
                for ns, bucket in self._data.items()
                if ns[: len(prefix)] == prefix
                for key, entry in bucket.items()
            ]
        return rows


class SqliteStore(BaseStore):
    """A store in a SQLite file (WAL mode); survives restarts; safe across threads.

    ``SqliteStore("memory.db")`` or ``SqliteStore(sqlite3.connect(...))``; ``":memory:"`` works
    too; ``with SqliteStore.from_conn_string("memory.db") as store:`` as LangGraph's.  Close it
    with ``close()`` or use it as a context manager.  A search lists the items last written
    first (to the second, as LangGraph's SQLite store keeps times), then in the order written.
    """

    blocking = True

    def __init__(self, path: str | Path | sqlite3.Connection) -> None:
        if isinstance(path, sqlite3.Connection):
            self._conn = path
            self._conn.isolation_level = None
            self.path = ":connection:"
        else:
            self.path = str(path)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            if self.path not in (":memory:", ":connection:"):
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA busy_timeout=5000")
        self.setup()

    @classmethod
    @contextlib.contextmanager
    def from_conn_string(cls, conn_string: str) -> Iterator[SqliteStore]:
        """A store on the SQLite file ``conn_string`` (or ``":memory:"``), closed on exit."""
        store = cls(conn_string)
        try:
            yield store
        finally:
            store.close()

    def setup(self) -> None:
        """Create the store's table if it is not there (done when the store opens; calling it
        again, as programs written for LangGraph's store do, changes nothing)."""
        with self._lock:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS store ("
                " prefix TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
                " created_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
                " PRIMARY KEY (prefix, key))"
            )

    @staticmethod
    def _prefix(namespace: tuple[str, ...]) -> str:
        return "".join(label + _SEP for label in namespace)

    def _write(self, namespace: tuple[str, ...], key: str, value: str, now: str) -> None:
        with self._lock:
            prefix = self._prefix(namespace)
            # a rewrite moves the item after the others written in the same second (a new
            # row), keeping when it was created
            self._conn.execute(
                "INSERT OR REPLACE INTO store (prefix, key, value, created_at, updated_at)"
                " VALUES (?, ?, ?, COALESCE((SELECT created_at FROM store"
                " WHERE prefix = ? AND key = ?), ?), ?)",
                (prefix, key, value, prefix, key, now, now),
            )

    def _read(self, namespace: tuple[str, ...], key: str) -> Row | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT value, created_at, updated_at FROM store WHERE prefix = ? AND key = ?",
                (self._prefix(namespace), key),
            ).fetchone()
        return None if row is None else (namespace, key, *row)

    def _remove(self, namespace: tuple[str, ...], key: str) -> None:
        with self._lock:
            self._conn.execute(
                "DELETE FROM store WHERE prefix = ? AND key = ?", (self._prefix(namespace), key)
            )

    def _scan(self, prefix: tuple[str, ...]) -> Iterable[Row]:
        p = self._prefix(prefix)
        with self._lock:
            rows = self._conn.execute(
                "SELECT prefix, key, value, created_at, updated_at FROM store"
                " WHERE substr(prefix, 1, ?) = ? ORDER BY substr(updated_at, 1, 19) DESC, rowid",
                (len(p), p),
            ).fetchall()
        return [(tuple(r[0].split(_SEP)[:-1]), r[1], r[2], r[3], r[4]) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"
