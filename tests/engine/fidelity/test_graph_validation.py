"""Graph and checkpointer validation as LangGraph does it: bad reducers, bad checkpointers, and
a saver subclass whose overrides (sync or async) a run honours."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.graph import END
from engine.types import Command


def one_arg(a: str) -> str:
    return a


class Bad(TypedDict):
    hello: Annotated[str, one_arg]


def test_a_reducer_that_is_not_a_b_to_c_is_refused_when_the_graph_is_made() -> None:
    with pytest.raises(ValueError, match=r"Invalid reducer signature. Expected \(a, b\) -> c"):
        StateGraph(Bad)


def test_a_checkpointer_that_is_not_a_saver_is_refused_at_compile() -> None:
    class S(TypedDict):
        x: int

    g = StateGraph(S)
    g.add_node("a", lambda s: s)
    g.add_edge(START, "a")

    class NotASaver:
        pass

    with pytest.raises(TypeError, match=r"Invalid checkpointer provided.*Received NotASaver"):
        g.compile(checkpointer=NotASaver())  # type: ignore[arg-type]


def _root_graph(saver: Any):  # type: ignore[no-untyped-def]
    g = StateGraph(Annotated[str, operator.add])
    g.add_node("agent", lambda s: "x")
    g.add_edge(START, "agent")
    return g.compile(checkpointer=saver)


@pytest.mark.parametrize("use_async", [False, True])
def test_sync_overrides_of_a_saver_are_seen_by_sync_and_async_runs(use_async: bool) -> None:
    seen: list[str] = []

    class Tracing(InMemorySaver):
        def get_tuple(self, config: Any) -> Any:
            seen.append("get_tuple")
            return super().get_tuple(config)

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            seen.append("put")
            return super().put(config, checkpoint, metadata, new_versions)

        def put_writes(self, config: Any, writes: Any, task_id: str) -> None:
            seen.append("put_writes")
            super().put_writes(config, writes, task_id)

    graph = _root_graph(Tracing())
    cfg = {"configurable": {"thread_id": "t"}}
    if use_async:
        import asyncio

        out = asyncio.run(graph.ainvoke("a", cfg, durability="sync"))
    else:
        out = graph.invoke("a", cfg, durability="sync")
    assert out == "ax"
    assert {"get_tuple", "put", "put_writes"} <= set(seen)
    assert graph.get_state(cfg).values == "ax"


def test_a_run_takes_channel_versions_from_the_savers_get_next_version() -> None:
    class Faulty(InMemorySaver):
        def get_next_version(self, current: Any, channel: Any) -> Any:
            raise ValueError("no versions today")

    with pytest.raises(ValueError, match="no versions today"):
        _root_graph(Faulty()).invoke("", {"configurable": {"thread_id": "t"}})


def test_a_saver_may_number_versions_with_plain_integers() -> None:
    class Counting(InMemorySaver):
        def get_next_version(self, current: Any, channel: Any) -> Any:
            return (current or 0) + 1 if isinstance(current, int | None) else 1

    graph = _root_graph(Counting())
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke("a", cfg) == "ax"
    assert graph.invoke("b", cfg) == "axbx"


class _Routed(TypedDict):
    x: int


def _hinted(s: _Routed) -> Command[Literal["b", "ghost"]]:
    return Command(goto="b")


def _ends(s: _Routed) -> Command[Literal["b", "__end__"]]:
    return Command(goto="b")


def test_a_command_destination_that_is_not_a_node_is_refused_at_compile() -> None:
    """A node's ``-> Command[Literal[...]]`` or ``destinations=`` naming a node the graph does
    not have fails ``compile`` (LangGraph's "Found edge ending at unknown node"); END is fine."""

    def build(add: Any) -> Any:
        g = StateGraph(_Routed)
        add(g)
        g.add_node("b", lambda s: {"x": 1})
        g.add_edge(START, "a")
        return g

    with pytest.raises(ValueError, match="Found edge ending at unknown node `ghost`"):
        build(lambda g: g.add_node("a", _hinted)).compile()
    with pytest.raises(ValueError, match="Found edge ending at unknown node `ghost`"):
        build(
            lambda g: g.add_node("a", lambda s: Command(goto="b"), destinations=("b", "ghost"))
        ).compile()
    assert build(lambda g: g.add_node("a", _ends)).compile().invoke({"x": 0}) == {"x": 1}
    made = build(lambda g: g.add_node("a", lambda s: Command(goto="b"), destinations=("b", END)))
    assert made.compile().invoke({"x": 0}) == {"x": 1}
