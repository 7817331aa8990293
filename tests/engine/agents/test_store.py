"""``engine.store``: put/get/search/delete by namespace and key, sync and async, reopen."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.store import BaseStore, InMemoryStore, InvalidNamespaceError, SqliteStore
from tests.fixtures.store_clock import StoreClock


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path, store_clock: StoreClock) -> Any:
    if request.param == "memory":
        yield InMemoryStore()
    else:
        s = SqliteStore(tmp_path / "store.db")
        yield s
        s.close()


def test_put_get_update_delete(store: BaseStore):
    assert store.get(("users", "1"), "prefs") is None
    store.put(("users", "1"), "prefs", {"theme": "dark", "langs": ["zh", "en"]})
    item = store.get(("users", "1"), "prefs")
    assert item is not None
    assert (item.namespace, item.key, item.value) == (
        ("users", "1"),
        "prefs",
        {"theme": "dark", "langs": ["zh", "en"]},
    )
    created = item.created_at
    store.put(("users", "1"), "prefs", {"theme": "light"})
    again = store.get(("users", "1"), "prefs")
    assert again is not None and again.value == {"theme": "light"}
    assert again.created_at == created and again.updated_at >= created
    store.delete(("users", "1"), "prefs")
    assert store.get(("users", "1"), "prefs") is None
    store.put(("users", "1"), "gone", {"x": 1})
    store.put(("users", "1"), "gone", None)  # None deletes
    assert store.get(("users", "1"), "gone") is None


def test_values_are_copies(store: BaseStore):
    value = {"items": [1]}
    store.put(("a",), "k", value)
    value["items"].append(2)
    got = store.get(("a",), "k")
    assert got is not None and got.value == {"items": [1]}
    got.value["items"].append(3)
    assert store.get(("a",), "k").value == {"items": [1]}  # type: ignore[union-attr]


def test_search_prefix_filter_query_paging(store: BaseStore, store_clock: StoreClock):
    store.put(("docs", "a"), "1", {"kind": "note", "text": "Tea at five", "n": 1})
    store.put(("docs", "a"), "2", {"kind": "todo", "text": "Buy coffee", "n": 2})
    store.put(("docs", "b"), "3", {"kind": "note", "text": "coffee and tea", "n": 3})
    store.put(("other",), "4", {"kind": "note", "text": "tea"})
    assert [i.key for i in store.search(("docs",))] == ["1", "2", "3"]
    assert [i.key for i in store.search(("docs", "a"))] == ["1", "2"]
    assert [i.key for i in store.search(("doc",))] == []  # labels match whole, not as text
    assert [i.key for i in store.search(("docs",), filter={"kind": "note"})] == ["1", "3"]
    assert [i.key for i in store.search(("docs",), filter={"n": {"$gte": 2}})] == ["2", "3"]
    # without an index, as LangGraph's stores: a query neither filters nor ranks
    hits = store.search(("docs",), query="what's my name?")
    assert [(i.key, i.score) for i in hits] == [("1", None), ("2", None), ("3", None)]
    store.put(("docs", "a"), "1", {"kind": "note", "text": "Tea at six", "n": 1})
    if isinstance(store, InMemoryStore):  # an update keeps its place, as in LangGraph's
        assert [i.key for i in store.search(("docs",))] == ["1", "2", "3"]
        assert [i.key for i in store.search((), limit=2, offset=1)] == ["2", "3"]
    else:  # LangGraph's SQLite store lists the last written first (to the second), then in
        # the order written: a rewrite within the second moves the item last
        assert [i.key for i in store.search(("docs",))] == ["2", "3", "1"]
        assert [i.key for i in store.search((), limit=2, offset=1)] == ["3", "4"]
        store_clock.second += 1  # a write a second later comes first
        store.put(("docs", "b"), "3", {"kind": "note", "text": "tea", "n": 3})
        assert [i.key for i in store.search(("docs",))] == ["3", "2", "1"]


def test_list_namespaces(store: BaseStore):
    for ns in [("users", "1", "prefs"), ("users", "2", "prefs"), ("docs", "x")]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [
        ("docs", "x"),
        ("users", "1", "prefs"),
        ("users", "2", "prefs"),
    ]
    assert store.list_namespaces(prefix=("users",), max_depth=2) == [("users", "1"), ("users", "2")]
    assert store.list_namespaces(suffix=("prefs",), limit=1) == [("users", "1", "prefs")]


async def test_async_twins(store: BaseStore):
    await store.aput(("a", "b"), "k", {"x": 1})
    item = await store.aget(("a", "b"), "k")
    assert item is not None and item.value == {"x": 1}
    assert [i.key for i in await store.asearch(("a",))] == ["k"]
    assert await store.alist_namespaces() == [("a", "b")]
    await store.adelete(("a", "b"), "k")
    assert await store.aget(("a", "b"), "k") is None


def test_only_json_objects_and_valid_namespaces(store: BaseStore):
    with pytest.raises(TypeError, match="must be a dict"):
        store.put(("a",), "k", [1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="JSON-serialisable"):
        store.put(("a",), "k", {"when": object()})
    with pytest.raises(ValueError, match="cannot be empty"):
        store.put((), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError, match="Namespace labels cannot be empty strings"):
        store.put(("a", ""), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError, match="cannot contain periods"):
        store.put(("a.b",), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError, match='cannot be "langgraph"'):
        store.put(("langgraph", "a"), "k", {"x": 1})
    assert store.get((), "k") is None  # a read may name any namespace, as LangGraph's
    with pytest.raises(ValueError, match="non-empty string"):
        store.put(("a",), "", {"x": 1})


def test_sqlite_store_survives_reopen_and_uses_wal(tmp_path: Path):
    path = tmp_path / "memory.db"
    with SqliteStore(path) as s:
        s.put(("users", "7"), "profile", {"name": "Ada", "tags": ["x"]})
    with SqliteStore(path) as s:
        item = s.get(("users", "7"), "profile")
        assert item is not None and item.value == {"name": "Ada", "tags": ["x"]}
        assert [i.key for i in s.search(("users",))] == ["profile"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        raw = conn.execute("SELECT value FROM store").fetchone()[0]
        assert raw == '{"name":"Ada","tags":["x"]}'  # plain JSON on disk
    finally:
        conn.close()
