"""Node/task result caches and execution policies (retry details, timeouts, error handlers,
drain, execution info, context coercion)."""

from __future__ import annotations

import asyncio
import operator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest

from engine import Command, RetryPolicy, StateGraph, entrypoint, task
from engine.cache import CachePolicy, InMemoryCache, SqliteCache
from engine.core.execution import RunControl
from engine.errors import GraphDrained, NodeError, NodeTimeoutError
from engine.events import NodeFinished
from engine.graph import START, Runtime
from engine.types import TimeoutPolicy


class Doc(TypedDict, total=False):
    text: str
    notes: Annotated[list[str], operator.add]


class Text(TypedDict):
    text: str


@pytest.mark.parametrize("make_cache", [InMemoryCache, lambda: SqliteCache(path=":memory:")])
def test_cached_node_is_not_called_again_and_is_reported(make_cache: Any) -> None:
    calls: list[str] = []

    def upper(state: Text) -> Text:
        calls.append(state["text"])
        return {"text": state["text"].upper()}

    graph = (
        StateGraph(Text)
        .add_node("upper", upper, cache_policy=CachePolicy())
        .add_edge(START, "upper")
        .compile(cache=make_cache())
    )
    assert graph.invoke({"text": "abc"}) == {"text": "ABC"}
    chunks = list(graph.stream({"text": "abc"}))
    assert chunks == [{"upper": {"text": "ABC"}, "__metadata__": {"cached": True}}]
    assert calls == ["abc"]
    cached = [
        e
        for e in graph.stream_events({"text": "abc"}, version="stepwise")
        if isinstance(e, NodeFinished)
    ]
    assert [e.cached for e in cached] == [True]
    graph.clear_cache()
    graph.invoke({"text": "abc"})
    assert calls == ["abc", "abc"]


def test_cache_key_func_and_ttl() -> None:
    cache: InMemoryCache[Any] = InMemoryCache()
    cache.set({(("ns",), "k"): ({"v": 1}, None), (("ns",), "old"): ("x", -1)})
    assert cache.get([(("ns",), "k"), (("ns",), "old")]) == {(("ns",), "k"): {"v": 1}}
    policy = CachePolicy(key_func=lambda state: state["text"][:1])
    assert policy.key({"text": "hello"}) == "h"


def test_task_cache_survives_threads_and_clear_cache() -> None:
    calls: list[int] = []

    @task(cache_policy=CachePolicy())
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    cache: InMemoryCache[Any] = InMemoryCache()

    @entrypoint(cache=cache)
    def total(ns: list[int]) -> int:
        return sum(f.result() for f in [square(n) for n in ns])

    assert total.invoke([2, 3]) == 13
    assert total.invoke([3, 2]) == 13
    assert sorted(calls) == [2, 3]
    square.clear_cache(cache)
    total.invoke([2])
    assert sorted(calls) == [2, 2, 3]


def test_error_handler_replaces_the_failed_nodes_writes() -> None:
    def flaky(state: Doc) -> Doc:
        raise ValueError("broken")

    def rescue(state: Doc, error: NodeError) -> Command:
        return Command(update={"notes": [f"{error.node}: {error.error}"]}, goto="after")

    graph = (
        StateGraph(Doc)
        .add_node("flaky", flaky, error_handler=rescue)
        .add_node("after", lambda s: {"notes": ["after"]})
        .add_edge(START, "flaky")
        .compile()
    )
    assert graph.invoke({"notes": []})["notes"] == ["flaky: broken", "after"]


def test_node_defaults_apply_unless_a_node_sets_its_own() -> None:
    attempts = {"a": 0, "b": 0}

    def make(name: str, fail_times: int) -> Any:
        def node(state: Doc) -> Doc:
            attempts[name] += 1
            if attempts[name] <= fail_times:
                raise ConnectionError("flap")
            return {"notes": [name]}

        return node

    graph = (
        StateGraph(Doc)
        .set_node_defaults(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0))
        .add_node("a", make("a", 2))
        .add_node("b", make("b", 1), retry_policy=RetryPolicy(max_attempts=1))
        .add_edge(START, "a")
        .add_edge("a", "b")
        .compile()
    )
    with pytest.raises(ConnectionError):
        graph.invoke({"notes": []})
    assert attempts == {"a": 3, "b": 1}


def test_execution_info_counts_attempts() -> None:
    seen: list[tuple[int, float | None]] = []

    def node(state: Doc, runtime: Runtime) -> Doc:
        info = runtime.execution_info
        assert info is not None
        seen.append((info.node_attempt, info.node_first_attempt_time))
        if info.node_attempt < 2:
            raise ConnectionError("again")
        return {"text": "ok"}

    graph = (
        StateGraph(Doc)
        .add_node("n", node, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
        .add_edge(START, "n")
        .compile()
    )
    graph.invoke({"text": ""})
    assert [a for a, _ in seen] == [1, 2]
    assert seen[0][1] == seen[1][1] is not None


def test_async_node_timeout_raises_node_timeout_error() -> None:
    async def stuck(state: Doc) -> Doc:
        await asyncio.Event().wait()
        return {}

    graph = (
        StateGraph(Doc)
        .add_node("stuck", stuck, timeout=TimeoutPolicy(run_timeout=0.05))
        .add_edge(START, "stuck")
        .compile()
    )
    with pytest.raises(NodeTimeoutError):
        asyncio.run(graph.ainvoke({"text": ""}))


def test_sync_timeouts_are_refused() -> None:
    builder = StateGraph(Doc).add_node("s", lambda s: s, timeout=1.0).add_edge(START, "s")
    with pytest.raises(ValueError, match="only supported for async"):
        builder.compile()
    with pytest.raises(ValueError, match="only supported for async"):
        task(timeout=1.0)(lambda: None)


def test_drain_stops_between_steps_and_resumes() -> None:
    from engine.checkpoint import InMemorySaver

    control = RunControl()

    def first(state: Doc) -> Doc:
        control.request_drain("deploy")
        return {"notes": ["first"]}

    graph = (
        StateGraph(Doc)
        .add_node("first", first)
        .add_node("second", lambda s: {"notes": ["second"]})
        .add_edge(START, "first")
        .add_edge("first", "second")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "drain"}}
    with pytest.raises(GraphDrained, match="deploy"):
        graph.invoke({"notes": []}, cfg, control=control)
    assert graph.get_state(cfg).next == ("second",)
    assert graph.invoke(None, cfg)["notes"] == ["first", "second"]


def test_context_dict_becomes_the_context_schema() -> None:
    @dataclass
    class Ctx:
        user: str
        tier: str = "free"

    def node(state: Text, runtime: Runtime[Ctx]) -> Text:
        return {"text": f"{runtime.context.user}/{runtime.context.tier}"}

    graph = StateGraph(Text, context_schema=Ctx).add_node("n", node).add_edge(START, "n").compile()
    assert graph.invoke({"text": ""}, context={"user": "ann"}) == {"text": "ann/free"}
    with pytest.raises(TypeError):
        graph.invoke({"text": ""}, context={"nobody": 1})


def test_builders_are_subscriptable() -> None:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph import CompiledStateGraph

    assert StateGraph[Doc] is not None
    assert CompiledStateGraph[Doc, None, Doc, Doc] is not None
    assert BaseCheckpointSaver[str] is not None
