"""An attached app's store calls are events, as the engine's own store's are: each put, get,
search, delete and namespace listing a node makes through ``runtime.store`` shows under that
node (the Store dock marks each run's items from them and follows them live).  The app's store
is the one written to, and holds what a run without Stepwise leaves in it."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from engine.attach import attach
from tests.engine.attach.test_attach_langgraph import collect


class S(TypedDict):
    user: str
    fact: str
    recalled: Annotated[list[str], operator.add]


def _graph(store: InMemoryStore, sync: bool) -> Any:
    def remember(s: S, runtime: Runtime) -> dict[str, Any]:
        assert runtime.store is not None
        runtime.store.put(("memories", s["user"]), s["fact"][:4], {"fact": s["fact"]})
        runtime.store.delete(("memories", s["user"]), "gone")
        return {}

    def recall(s: S, runtime: Runtime) -> dict[str, Any]:
        assert runtime.store is not None
        hit = runtime.store.get(("memories", s["user"]), "nope")
        runtime.store.get(("memories", s["user"]), "like")
        items = runtime.store.search(("memories",), filter={"fact": s["fact"]})
        spaces = runtime.store.list_namespaces(prefix=("memories",))
        return {"recalled": [i.value["fact"] for i in items] + [str(hit), str(len(spaces))]}

    async def arecall(s: S, runtime: Runtime) -> dict[str, Any]:
        assert runtime.store is not None
        hit = await runtime.store.aget(("memories", s["user"]), "nope")
        await runtime.store.aget(("memories", s["user"]), "like")
        items = await runtime.store.asearch(("memories",), filter={"fact": s["fact"]})
        spaces = await runtime.store.alist_namespaces(prefix=("memories",))
        return {"recalled": [i.value["fact"] for i in items] + [str(hit), str(len(spaces))]}

    b = StateGraph(S)
    b.add_node("remember", remember)
    b.add_node("recall", recall if sync else arecall)  # a sync run cannot run an async node
    b.add_edge(START, "remember")
    b.add_edge("remember", "recall")
    b.add_edge("recall", END)
    return b.compile(checkpointer=InMemorySaver(), store=store)


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_store_calls_are_events_under_the_node_that_made_them(sync: bool) -> None:
    store = InMemoryStore()
    graph = attach(_graph(store, sync), sync=sync)
    inp = {"user": "ana", "fact": "likes owls", "recalled": []}
    events = collect(graph, inp, {"configurable": {"thread_id": "t"}})
    assert events[-1].__dict__["status"] == "done"
    nodes = {e.span_id: e.__dict__["node"] for e in events if e.kind == "node.started"}
    seen = [
        (nodes.get(e.parent_span_id), e.__dict__["op"], e.__dict__["namespace"], e.__dict__["key"])
        for e in events
        if e.kind == "store.access"
    ]
    assert seen == [
        ("remember", "put", ["memories", "ana"], "like"),
        ("remember", "put", ["memories", "ana"], "gone"),  # a delete is a put of None
        ("recall", "get", ["memories", "ana"], "nope"),
        ("recall", "get", ["memories", "ana"], "like"),
        ("recall", "search", ["memories"], None),
        ("recall", "list_namespaces", ["memories"], None),
    ]
    by_op = {e.__dict__["op"]: e.__dict__ for e in events if e.kind == "store.access"}
    gets = [
        (e.__dict__["found"], e.__dict__["value"])
        for e in events
        if e.kind == "store.access" and e.__dict__["op"] == "get"
    ]
    assert gets == [(False, None), (True, {"fact": "likes owls"})]  # with the value read
    assert by_op["search"]["hits"] == [{"namespace": ["memories", "ana"], "key": "like"}]
    assert by_op["search"]["hit_count"] == 1 and by_op["search"]["filter"] == {"fact": "likes owls"}
    assert by_op["list_namespaces"]["hit_count"] == 1
    puts = [
        e.__dict__["value"]
        for e in events
        if e.kind == "store.access" and e.__dict__["op"] == "put"
    ]
    assert puts == [{"fact": "likes owls"}, None]
    # the app's own store was written, as a plain run writes it
    plain = InMemoryStore()
    out = asyncio.run(_graph(plain, sync).ainvoke(inp, {"configurable": {"thread_id": "t"}}))
    assert out["recalled"] == ["likes owls", "None", "1"]
    assert [i.dict() | {"created_at": 0, "updated_at": 0} for i in store.search(("memories",))] == [
        i.dict() | {"created_at": 0, "updated_at": 0} for i in plain.search(("memories",))
    ]
