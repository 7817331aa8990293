"""``invoke(..., stream_mode=...)``: any mode but ``values`` returns the list of chunks."""

from __future__ import annotations

import asyncio
from typing import TypedDict

from engine.cache import CachePolicy, InMemoryCache
from engine.graph import END, START, StateGraph


class S(TypedDict):
    x: int


def _graph():  # type: ignore[no-untyped-def]
    g = StateGraph(S)
    g.add_node("inc", lambda s: {"x": s["x"] + 1}, cache_policy=CachePolicy())
    g.add_node("double", lambda s: {"x": s["x"] * 2})
    g.add_edge(START, "inc")
    g.add_edge("inc", "double")
    g.add_edge("double", END)
    return g.compile(cache=InMemoryCache())


def test_updates_come_back_as_chunks_and_a_cache_hit_says_so() -> None:
    graph = _graph()
    assert graph.invoke({"x": 1}, stream_mode="updates") == [
        {"inc": {"x": 2}},
        {"double": {"x": 4}},
    ]
    assert graph.invoke({"x": 1}, stream_mode="updates") == [
        {"inc": {"x": 2}, "__metadata__": {"cached": True}},
        {"double": {"x": 4}},
    ]


def test_values_is_still_the_final_state_and_a_list_of_modes_gives_pairs() -> None:
    graph = _graph()
    assert graph.invoke({"x": 1}) == {"x": 4}
    assert graph.invoke({"x": 1}, stream_mode="values") == {"x": 4}
    pairs = asyncio.run(graph.ainvoke({"x": 1}, stream_mode=["values", "updates"]))
    assert [mode for mode, _ in pairs] == ["values", "updates", "values", "updates", "values"]
    assert pairs[-1] == ("values", {"x": 4})
