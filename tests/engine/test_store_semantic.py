"""InMemoryStore(index=...): LangGraph's semantic search, as its memory docs use it (a program
ported by imports built its store with index= and failed with a TypeError)."""

from __future__ import annotations

import asyncio

import pytest

from engine.store import InMemoryStore
from engine.store.semantic import text_at_path


def _embed(texts: list[str]) -> list[list[float]]:
    return [
        [t.lower().count("pizza") + 0.1, t.lower().count("broccoli") + 0.2, len(t) / 100.0]
        for t in texts
    ]


def _store() -> InMemoryStore:
    store = InMemoryStore(index={"embed": _embed, "dims": 3, "fields": ["food", "$"]})
    ns = ("1", "memories")
    store.put(ns, "m1", {"food": "I like pizza"})
    store.put(ns, "m2", {"food": "I hate broccoli", "other": 1})
    store.put(ns, "m3", {"x": "not embedded"}, index=False)
    return store


def test_a_query_ranks_by_cosine_and_unembedded_items_fill_the_page() -> None:
    hits = _store().search(("1", "memories"), query="pizza", limit=3)
    assert [h.key for h in hits] == ["m1", "m2", "m3"]
    assert hits[0].score is not None and hits[0].score > 0.99
    assert hits[1].score is not None and hits[1].score < hits[0].score
    assert hits[2].score is None
    assert [h.key for h in _store().search(("1",), query="broccoli", limit=1)] == ["m2"]


def test_filters_apply_before_ranking_and_deletes_drop_vectors() -> None:
    store = _store()
    assert [h.key for h in store.search(("1",), query="pizza", filter={"other": 1})] == ["m2"]
    store.delete(("1", "memories"), "m1")
    store.put(("1", "memories"), "m2", None)
    assert [h.key for h in store.search(("1",), query="pizza")] == ["m3"]


def test_a_put_may_name_its_own_fields_and_the_async_twins_take_them() -> None:
    store = InMemoryStore(index={"embed": _embed, "dims": 3, "fields": ["none"]})
    asyncio.run(store.aput(("n",), "a", {"food": "pizza", "other": "x"}, index=["food"]))
    store.put(("n",), "b", {"food": "broccoli"})  # no configured field: no vectors
    hits = asyncio.run(store.asearch(("n",), query="pizza"))
    assert [(h.key, h.score is None) for h in hits] == [("a", False), ("b", True)]
    assert hits[0].dict()["score"] == hits[0].score


def test_paths_and_a_bad_embed_are_clear() -> None:
    value = {"a": {"b": "x"}, "l": ["p", "q"], "n": 3}
    assert text_at_path(value, "a.b") == ["x"]
    assert text_at_path(value, "l[*]") == ["p", "q"]
    assert text_at_path(value, "l[-1]") == ["q"]
    assert text_at_path(value, "n") == ["3"]
    assert text_at_path(value, "missing") == []
    assert text_at_path({"k": 1}, "$") == ['{"k": 1}']
    with pytest.raises(TypeError, match="index 'embed' must be"):
        InMemoryStore(index={"embed": 42, "dims": 1})


def test_an_embeddings_object_is_used_for_documents_and_queries() -> None:
    class Emb:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return _embed(texts)

        def embed_query(self, text: str) -> list[float]:
            return [0.0, 1.0, 0.0]

    store = InMemoryStore(index={"embed": Emb(), "dims": 3, "fields": ["food"]})
    store.put(("n",), "a", {"food": "pizza"})
    store.put(("n",), "b", {"food": "broccoli"})
    assert [h.key for h in store.search(("n",), query="anything")] == ["b", "a"]
