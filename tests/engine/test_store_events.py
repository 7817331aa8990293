"""``store.access`` events: what a run read from and wrote to its long-term memory."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import pytest

from engine.agents import create_agent
from engine.events import EventBase, StoreAccessed
from engine.messages import AIMessage, HumanMessage
from engine.models import ScriptedChatModel
from engine.store import BaseStore, InMemoryStore, SqliteStore
from engine.tools import InjectedStore, tool
from tests.fixtures.store_clock import StoreClock


def _agent(store: BaseStore) -> Any:
    @tool
    def remember(fact: str, store: Annotated[Any, InjectedStore()]) -> str:
        """Remember a fact about the user.

        Args:
            fact: the fact
        """
        old = store.get(("user", "u1"), "facts")
        facts = [*(old.value["facts"] if old else []), fact]
        store.put(("user", "u1"), "facts", {"facts": facts})
        hits = store.search(("user",), query=fact)
        store.delete(("user", "u1"), "scratch")
        return f"{len(hits)} hit(s)"

    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "remember", "args": {"fact": "likes tea"}, "id": "c1"}],
            ),
            "Noted.",
        ]
    )
    return create_agent(model, [remember], store=store)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_run_reports_each_store_call(kind: str, tmp_path: Path, store_clock: StoreClock) -> None:
    store: BaseStore = InMemoryStore() if kind == "memory" else SqliteStore(tmp_path / "m.db")
    store.put(("user", "u1"), "scratch", {"x": 1})  # outside a run: no event anywhere
    graph = _agent(store)
    seen: list[EventBase] = []
    graph.subscribe(seen.append)
    asyncio.run(graph.ainvoke({"messages": [HumanMessage(content="I like tea")]}))
    ops = [e for e in seen if isinstance(e, StoreAccessed)]
    assert [(e.op, e.namespace, e.key) for e in ops] == [
        ("get", ["user", "u1"], "facts"),
        ("put", ["user", "u1"], "facts"),
        ("search", ["user"], None),
        ("delete", ["user", "u1"], "scratch"),
    ]
    get, put, search, _ = ops
    assert get.found is False
    assert put.value == {"facts": ["likes tea"]}
    # no index: the query neither filters nor ranks (as LangGraph's stores); first put first
    assert search.query == "likes tea" and search.hit_count == 2
    assert search.hits == [
        {"namespace": ["user", "u1"], "key": "scratch"},
        {"namespace": ["user", "u1"], "key": "facts"},
    ]
    run_id = next(e.run_id for e in seen if e.kind == "run.started")
    tool_span = next(e.span_id for e in seen if e.kind == "tool.started")
    assert all(e.run_id == run_id and e.parent_span_id == tool_span for e in ops)
    if isinstance(store, SqliteStore):
        store.close()


def test_async_store_calls_are_reported_too() -> None:
    from typing_extensions import TypedDict

    from engine import END, START, StateGraph

    class S(TypedDict):
        n: int

    async def node(state: S, store: Any) -> dict[str, int]:
        await store.aput(("a",), "k", {"n": state["n"]})
        item = await store.aget(("a",), "k")
        return {"n": item.value["n"] + 1}

    g = StateGraph(S)
    g.add_node("node", node)
    g.add_edge(START, "node")
    g.add_edge("node", END)
    graph = g.compile(store=InMemoryStore())
    seen: list[EventBase] = []
    graph.subscribe(seen.append)
    assert asyncio.run(graph.ainvoke({"n": 1}))["n"] == 2
    assert [(e.op, e.found, e.value) for e in seen if isinstance(e, StoreAccessed)] == [
        ("put", None, {"n": 1}),
        ("get", True, {"n": 1}),  # what the run read, so a recorded session can show it
    ]


def test_nobody_listening_builds_no_event(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.observe.emitter as bus

    built: list[Any] = []
    real = bus.construct
    monkeypatch.setattr(bus, "construct", lambda cls, f: built.append(cls) or real(cls, f))
    store = InMemoryStore()
    graph = _agent(store)
    asyncio.run(graph.ainvoke({"messages": [HumanMessage(content="I like tea")]}))
    assert store.get(("user", "u1"), "facts") is not None
    assert built == []
