"""A node fails while a sibling of the same superstep runs.  In a sync call (``invoke``) the
sibling runs to its end and its writes are kept, as LangGraph's thread pool keeps them: the
thread's state shows it done, and a retry reruns only the failed node.  In an async call the
sibling is cancelled and its cancellation is kept as its error (a retry reruns both)."""

from __future__ import annotations

import asyncio
import importlib
import operator
from typing import Annotated, Any, TypedDict

import pytest


class S(TypedDict):
    log: Annotated[list, operator.add]


def _app(lib: str, *, broken: list[bool]) -> Any:
    graph = importlib.import_module(f"{lib}.graph")
    memory = importlib.import_module(f"{lib}.checkpoint.memory")

    def a(s: S) -> dict[str, Any]:
        return {"log": ["a"]}

    def b(s: S) -> dict[str, Any]:
        if broken[0]:
            raise RuntimeError("b broke")
        return {"log": ["b"]}

    def c(s: S) -> dict[str, Any]:
        return {"log": ["c"]}

    g = graph.StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(graph.START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    return g.compile(checkpointer=memory.InMemorySaver())


def _after_failure(lib: str) -> tuple[Any, Any, Any]:
    broken = [True]
    app = _app(lib, broken=broken)
    cfg = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="b broke"):
        app.invoke({"log": []}, cfg)
    snap = app.get_state(cfg)
    broken[0] = False
    return snap, app.invoke(None, cfg), [t.name for t in snap.tasks if t.error is None]


def test_a_sync_sibling_finishes_and_its_writes_are_kept() -> None:
    snap, out, _ = _after_failure("engine")
    assert snap.next == ("b",)
    assert snap.values == {"log": ["a", "c"]}
    by_name = {t.name: t for t in snap.tasks}
    assert by_name["b"].error == "RuntimeError('b broke')"
    assert by_name["c"].error is None and by_name["c"].result == {"log": ["c"]}
    assert out == {"log": ["a", "c", "b"]} or out == {"log": ["a", "b", "c"]}


def test_as_langgraph_does_in_a_sync_call() -> None:
    pytest.importorskip("langgraph.graph")
    ours, theirs = _after_failure("engine"), _after_failure("langgraph")
    assert ours[0].next == theirs[0].next
    assert ours[0].values == theirs[0].values
    assert ours[1] == theirs[1]
    assert ours[2] == theirs[2]


def _async_after_failure(lib: str) -> Any:
    graph = importlib.import_module(f"{lib}.graph")
    memory = importlib.import_module(f"{lib}.checkpoint.memory")

    def a(s: S) -> dict[str, Any]:
        return {"log": ["a"]}

    async def b(s: S) -> dict[str, Any]:
        raise RuntimeError("b broke")

    async def c(s: S) -> dict[str, Any]:
        await asyncio.Event().wait()  # never finishes on its own: only cancelled
        return {"log": ["c"]}

    g = graph.StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(graph.START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    app = g.compile(checkpointer=memory.InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="b broke"):
        asyncio.run(app.ainvoke({"log": []}, cfg))
    return app.get_state(cfg)


def test_an_async_sibling_is_cancelled_and_that_is_kept_as_its_error() -> None:
    snap = _async_after_failure("engine")
    assert snap.next == ("b", "c")
    assert {t.name: t.error for t in snap.tasks} == {
        "b": "RuntimeError('b broke')",
        "c": "CancelledError()",
    }
    assert snap.values == {"log": ["a"]}


def test_as_langgraph_does_in_an_async_call() -> None:
    pytest.importorskip("langgraph.graph")
    ours, theirs = _async_after_failure("engine"), _async_after_failure("langgraph")
    assert ours.next == theirs.next
    assert [(t.name, t.error) for t in ours.tasks] == [(t.name, t.error) for t in theirs.tasks]
