"""Timeouts where LangGraph takes them: ``NodeBuilder.set_timeout`` and ``Send(timeout=)``.

The nodes wait on an event nobody sets, so only the timeout can end them.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from engine.errors import NodeTimeoutError
from engine.graph import END, START, EphemeralValue, LastValue, NodeBuilder, Pregel, StateGraph
from engine.types import Send, TimeoutPolicy


async def _forever(value: Any) -> Any:
    await asyncio.Event().wait()
    return value


def test_a_node_builder_timeout_stops_a_stuck_async_node() -> None:
    graph = Pregel(
        nodes={
            "stuck": NodeBuilder()
            .subscribe_only("input")
            .do(_forever)
            .set_timeout(TimeoutPolicy(idle_timeout=0.05))
            .write_to("output")
        },
        channels={"input": EphemeralValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    with pytest.raises(NodeTimeoutError) as caught:
        asyncio.run(graph.ainvoke(1))
    assert caught.value.node == "stuck" and caught.value.kind == "idle"


def test_a_sync_node_builder_node_cannot_have_a_timeout() -> None:
    with pytest.raises(ValueError, match="only supported for async nodes"):
        Pregel(
            nodes={
                "slow": NodeBuilder()
                .subscribe_only("input")
                .do(lambda v: v)
                .set_timeout(1.0)
                .write_to("output")
            },
            channels={"input": EphemeralValue(int), "output": LastValue(int)},
            input_channels="input",
            output_channels="output",
        )


class S(TypedDict):
    x: int


def test_a_sends_timeout_wins_over_its_nodes() -> None:
    async def stuck(state: S) -> S:
        return await _forever(state)

    g = StateGraph(S)
    g.add_node("stuck", stuck, timeout=TimeoutPolicy(run_timeout=3600))
    g.add_conditional_edges(START, lambda s: [Send("stuck", s, timeout=0.05)])
    g.add_edge("stuck", END)
    with pytest.raises(NodeTimeoutError) as caught:
        asyncio.run(g.compile().ainvoke({"x": 1}))
    assert caught.value.kind == "run" and caught.value.timeout == 0.05


def test_a_send_with_a_timeout_round_trips_through_serde() -> None:
    from engine import serde

    packet = Send("n", {"x": 1}, timeout=TimeoutPolicy(idle_timeout=2.0))
    assert serde.decode(serde.encode(packet)) == packet
    assert serde.decode(serde.encode(Send("n", 1))) == Send("n", 1)


def test_a_step_timeout_cancels_the_steps_tasks_and_raises_timeout_error() -> None:
    cancelled: list[str] = []

    async def stuck(state: S) -> S:
        try:
            return await _forever(state)
        except asyncio.CancelledError:
            cancelled.append("stuck")
            raise

    async def quick(state: S) -> S:
        return {"x": 2}

    g = StateGraph(S)
    g.add_node("stuck", stuck)
    g.add_node("quick", quick)
    g.add_conditional_edges(START, lambda s: ["stuck", "quick"])
    graph = g.compile()
    graph.step_timeout = 0.05

    async def run() -> list[Any]:
        return [c async for c in graph.astream({"x": 1}, stream_mode="updates")]

    with pytest.raises(TimeoutError):
        asyncio.run(run())
    assert cancelled == ["stuck"]
