"""What the Store dock shows, without Qt: a store's namespaces and items, and what each run did.

- ``StoreSource`` is what the dock reads: ``LiveStoreSource`` wraps the agent's store (the
  engine's ``InMemoryStore`` / ``SqliteStore``, or an attached app's LangGraph store: the same
  ``list_namespaces`` / ``search`` API); ``RecordedStoreSource`` rebuilds, from a session's
  ``store.access`` events, the items its runs read or wrote (all an offline session knows).  A remote
  server's store API plugs in as one more ``StoreSource``.
- ``StoreActivity`` follows the ``store.access`` events: per run, which items it read, wrote
  and deleted, and what it searched for.
- ``namespace_tree`` groups namespaces into a tree with item counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.events import EventBase, StoreAccessed

__all__ = [
    "ItemKey",
    "LiveStoreSource",
    "NamespaceNode",
    "RecordedStoreSource",
    "RunActivity",
    "StoreActivity",
    "StoreRow",
    "StoreSource",
    "find_store",
    "namespace_tree",
    "parse_filter",
]

ItemKey = tuple[tuple[str, ...], str]
"""(namespace, key) of an item."""
READ, WRITTEN, DELETED = "read", "written", "deleted"


@dataclass(frozen=True)
class StoreRow:
    namespace: tuple[str, ...]
    key: str
    value: Any
    updated_at: str | None = None
    score: float | None = None

    @property
    def address(self) -> ItemKey:
        return (self.namespace, self.key)


class StoreSource(Protocol):
    label: str
    blocking: bool
    """True when reads do I/O (the dock reads on a worker thread)."""

    def namespaces(self) -> list[tuple[str, ...]]: ...

    def search(
        self,
        prefix: tuple[str, ...],
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 500,
    ) -> list[StoreRow]: ...


def find_store(graph: Any) -> Any:
    """The long-term memory store of a loaded graph (ours or an attached app's), or None."""
    if graph is None:
        return None
    store = getattr(graph, "store", None)
    if store is None:
        store = getattr(getattr(graph, "real", None), "store", None)
    return store if hasattr(store, "search") and hasattr(store, "list_namespaces") else None


WORD_SEARCH_SCAN = 10_000
"""Items a word search reads from a store without an index, to look for the words in."""


class LiveStoreSource:
    """The agent's store object (any store with the BaseStore reading API)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.label = type(store).__name__
        self.blocking = bool(getattr(store, "blocking", True))

    def namespaces(self) -> list[tuple[str, ...]]:
        return [tuple(ns) for ns in self.store.list_namespaces(limit=10_000)]

    def search(
        self,
        prefix: tuple[str, ...],
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 500,
    ) -> list[StoreRow]:
        """The store's own search; with a query and no ``index_config`` (a LangGraph store,
        ours too, then ignores the query), the words are looked for here, in the values."""
        semantic = bool(query) and getattr(self.store, "index_config", None) is not None
        items = self.store.search(
            tuple(prefix),
            query=query if semantic else None,
            filter=dict(filter) if filter else None,
            limit=limit if semantic or not query else WORD_SEARCH_SCAN,
        )
        rows = [
            StoreRow(
                tuple(i.namespace),
                i.key,
                i.value,
                _iso(getattr(i, "updated_at", None)),
                getattr(i, "score", None),
            )
            for i in items
        ]
        if query and not semantic:
            rows = [r for r in rows if has_words(r.value, query)]
        return rows[:limit]


def _iso(when: Any) -> str | None:
    if when is None:
        return None
    iso = getattr(when, "isoformat", None)
    return str(iso()) if callable(iso) else str(when)


def has_words(value: Any, query: str) -> bool:
    """Does ``value``'s JSON text hold any of ``query``'s words (case-insensitive)?  The
    search box's test where the store has no semantic index."""
    words = query.lower().split()
    if not words:
        return True
    text = json.dumps(value, ensure_ascii=False, default=str).lower()
    return any(w in text for w in words)


def _matches(value: Any, filter: Mapping[str, Any]) -> bool:
    return isinstance(value, Mapping) and all(value.get(k) == v for k, v in filter.items())


class RecordedStoreSource:
    """The items a session's runs read or wrote, as their ``store.access`` events recorded
    them: the latest value seen of each (a write's, or what a ``get`` read)."""

    blocking = False

    def __init__(self, events: Iterable[EventBase] = ()) -> None:
        self.label = "recorded reads and writes"
        self.items: dict[ItemKey, StoreRow] = {}
        self.add(events)

    def add(self, events: Iterable[EventBase]) -> bool:
        """Apply the reads and writes among ``events``; True when something changed."""
        changed = False
        for ev in events:
            if not isinstance(ev, StoreAccessed) or ev.key is None:
                continue
            address = (tuple(ev.namespace or ()), str(ev.key))
            if ev.op == "get":
                changed |= self._read(address, ev)
            elif ev.op in ("put", "delete"):
                value = ev.value if ev.op == "put" else None
                if value is None:
                    changed |= self.items.pop(address, None) is not None
                else:
                    self.items[address] = StoreRow(address[0], address[1], value, _iso_ts(ev.ts))
                    changed = True
        return changed

    def _read(self, address: ItemKey, ev: StoreAccessed) -> bool:
        """A ``get``: the item was missing, or held the value read (its time of writing is
        not known unless this session wrote it).  A session recorded before reads kept their
        value says only that the item was there: nothing to show."""
        known = self.items.get(address)
        if not ev.found:
            return self.items.pop(address, None) is not None
        if ev.value is None or (known is not None and known.value == ev.value):
            return False
        self.items[address] = StoreRow(address[0], address[1], ev.value, None)
        return True

    def namespaces(self) -> list[tuple[str, ...]]:
        return sorted({ns for ns, _key in self.items})

    def search(
        self,
        prefix: tuple[str, ...],
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 500,
    ) -> list[StoreRow]:
        out = []
        for (ns, _key), row in sorted(self.items.items()):
            if ns[: len(prefix)] != tuple(prefix):
                continue
            if filter and not _matches(row.value, filter):
                continue
            if query and not has_words(row.value, query):
                continue
            out.append(row)
        return out[:limit]


def _iso_ts(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()


def parse_filter(text: str) -> dict[str, Any] | None:
    """The filter box's text: empty (None) or a JSON object; ``ValueError`` with one line."""
    text = text.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"The filter is not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError('The filter must be a JSON object, e.g. {"theme": "dark"}')
    return value


# -- what runs did ---------------------------------------------------------------------------


@dataclass
class RunActivity:
    run_id: str
    index: int
    """1-based, in the order runs first touched the store."""
    items: dict[ItemKey, set[str]] = field(default_factory=dict)
    searches: list[tuple[tuple[str, ...], str | None, int]] = field(default_factory=list)
    """(prefix, query, hits) of each search."""
    calls: int = 0

    def marks(self, address: ItemKey) -> set[str]:
        return self.items.get(address, set())

    def summary(self) -> str:
        counts = {
            m: sum(1 for s in self.items.values() if m in s) for m in (READ, WRITTEN, DELETED)
        }
        parts = [f"{n} {m}" for m, n in counts.items() if n]
        if self.searches:
            parts.append(f"{len(self.searches)} search{'es' if len(self.searches) != 1 else ''}")
        return ", ".join(parts) or "no store calls"


class StoreActivity:
    """Per run: the items it read (get, or returned by a search), wrote and deleted."""

    def __init__(self) -> None:
        self.runs: dict[str, RunActivity] = {}

    def clear(self) -> None:
        self.runs.clear()

    def add(self, events: Iterable[EventBase]) -> bool:
        changed = False
        for ev in events:
            if not isinstance(ev, StoreAccessed):
                continue
            changed = True
            run = self.runs.get(ev.run_id)
            if run is None:
                run = self.runs[ev.run_id] = RunActivity(ev.run_id, len(self.runs) + 1)
            run.calls += 1
            op, key = ev.op, ev.key
            ns = tuple(str(x) for x in ev.namespace or ())
            if op == "get" and key is not None:
                run.items.setdefault((ns, str(key)), set()).add(READ)
            elif op == "put" and key is not None:
                mark = WRITTEN if ev.value is not None else DELETED
                run.items.setdefault((ns, str(key)), set()).add(mark)
            elif op == "delete" and key is not None:
                run.items.setdefault((ns, str(key)), set()).add(DELETED)
            elif op == "search":
                run.searches.append((ns, ev.query, int(ev.hit_count or 0)))
                for hit in ev.hits or ():
                    if isinstance(hit, Mapping) and hit.get("key") is not None:
                        address = (tuple(hit.get("namespace") or ()), str(hit["key"]))
                        run.items.setdefault(address, set()).add(READ)
        return changed

    def ordered(self) -> list[RunActivity]:
        return sorted(self.runs.values(), key=lambda r: r.index)

    def marks(self, address: ItemKey, run_id: str | None = None) -> set[str]:
        """What ``run_id`` did to the item (every run's marks together when None)."""
        if run_id is not None:
            run = self.runs.get(run_id)
            return set(run.marks(address)) if run is not None else set()
        out: set[str] = set()
        for run in self.runs.values():
            out |= run.marks(address)
        return out

    def touched(self, run_id: str | None = None) -> set[ItemKey]:
        runs = [self.runs[run_id]] if run_id in self.runs else [] if run_id else self.runs.values()
        return {a for r in runs for a in r.items}


# -- namespaces as a tree ----------------------------------------------------------------------


@dataclass
class NamespaceNode:
    label: str
    path: tuple[str, ...]
    children: dict[str, NamespaceNode] = field(default_factory=dict)
    items: int = 0
    """Items in this namespace and below."""


def namespace_tree(
    namespaces: Sequence[tuple[str, ...]], counts: Mapping[tuple[str, ...], int] | None = None
) -> NamespaceNode:
    """``("users", "u1")`` and ``("users", "u2")`` under one ``users`` node."""
    root = NamespaceNode("", ())
    for ns in namespaces:
        node = root
        n = (counts or {}).get(ns, 0)
        root.items += n
        for i, label in enumerate(ns):
            node = node.children.setdefault(label, NamespaceNode(label, ns[: i + 1]))
            node.items += n
    return root
