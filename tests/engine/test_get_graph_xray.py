"""``get_graph(xray=...)`` draws a subgraph node's own graph in its place, as LangGraph does:
its nodes named ``parent:child``, the edges into the subgraph led to its first nodes and its
last nodes to the edges out; an int limits the depth."""

from __future__ import annotations

import itertools
from typing import TypedDict

from engine import END, START, StateGraph


class S(TypedDict, total=False):
    x: int


def _step(state: S) -> S:
    return {"x": state.get("x", 0) + 1}


def _chain(*names: str, inner: dict[str, object] | None = None) -> object:
    b = StateGraph(S)
    for n in names:
        b.add_node(n, (inner or {}).get(n, _step))  # type: ignore[arg-type]
    b.add_edge(START, names[0])
    for a, c in itertools.pairwise(names):
        b.add_edge(a, c)
    b.add_edge(names[-1], END)
    return b.compile()


def _edges(g: object) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in g.edges}  # type: ignore[attr-defined]


def test_xray_draws_the_subgraph_in_place() -> None:
    inner = _chain("a", "b")
    outer = _chain("first", "sub", "last", inner={"sub": inner})
    flat = outer.get_graph()  # type: ignore[attr-defined]
    assert flat.nodes["sub"].kind == "subgraph"
    g = outer.get_graph(xray=True)  # type: ignore[attr-defined]
    assert "sub" not in g.nodes and {"sub:a", "sub:b"} <= set(g.nodes)
    assert _edges(g) == {
        (START, "first"),
        ("first", "sub:a"),
        ("sub:a", "sub:b"),
        ("sub:b", "last"),
        ("last", END),
    }


def test_an_int_limits_how_deep() -> None:
    deepest = _chain("z")
    middle = _chain("m", inner={"m": deepest})
    outer = _chain("top", inner={"top": middle})
    one = outer.get_graph(xray=1)  # type: ignore[attr-defined]
    assert "top:m" in one.nodes and one.nodes["top:m"].kind == "subgraph"
    every = outer.get_graph(xray=True)  # type: ignore[attr-defined]
    assert "top:m:z" in every.nodes and "top:m" not in every.nodes
    assert _edges(every) == {(START, "top:m:z"), ("top:m:z", END)}
