"""A stream runs at its consumer's pace (as LangGraph's): a task of the graph runs once the
consumer has taken every chunk so far and asked for the next; a subgraph's tasks do not wait."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from engine.graph import START, StateGraph


class S(TypedDict):
    n: int


def _graph(log: list[str]) -> Any:
    def step(name: str) -> Any:
        def run(state: S) -> dict[str, int]:
            log.append(f"run {name}")
            return {"n": state["n"] + 1}

        return run

    inner = StateGraph(S)
    inner.add_node("x", step("x"))
    inner.add_node("y", step("y"))
    inner.add_edge(START, "x")
    inner.add_edge("x", "y")
    b = StateGraph(S)
    b.add_node("a", step("a"))
    b.add_node("sub", inner.compile())
    b.add_edge(START, "a")
    b.add_edge("a", "sub")
    return b.compile()


def test_sync_and_async_streams_run_a_task_when_asked() -> None:
    log: list[str] = []
    g = _graph(log)
    for chunk in g.stream({"n": 0}, stream_mode="updates"):
        log.append(f"got {next(iter(chunk))}")
    expected = ["run a", "got a", "run x", "run y", "got sub"]
    assert log == expected
    log.clear()

    async def consume() -> None:
        async for chunk in g.astream({"n": 0}, stream_mode="updates"):
            log.append(f"got {next(iter(chunk))}")

    asyncio.run(consume())
    assert log == expected


def test_a_consumer_that_stops_early_stops_the_run() -> None:
    log: list[str] = []
    g = _graph(log)
    for _ in g.stream({"n": 0}, stream_mode="updates"):
        break
    assert log == ["run a"]
