""" "Break on any failure" stops once per failure, where it happened.

A failing tool call is reported by the call (tool.finished), then by the retry attempt that
wrapped it; a failing model call by the response, then the attempt; an error in a plain node by
the node, the superstep and the run.  Each is one failure: one stop, at the innermost report.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.debug import Debugger
from engine.events import EventBase
from engine.messages import HumanMessage
from resources.scenarios.retry_todos import INPUT, build_agent


async def _stops(graph: Any, inp: Any, thread: str) -> list[tuple[str, str]]:
    """Run under "break on any failure", continuing at each stop; where it stopped."""
    dbg = Debugger()
    dbg.break_on_failure()
    stops: list[tuple[str, str]] = []

    def on_pause(d: Debugger) -> None:
        ev: EventBase = d.current_event  # type: ignore[assignment]
        err = ev.__dict__.get("error")
        stops.append((ev.kind, getattr(err, "type", "")))
        asyncio.get_running_loop().call_soon(d.continue_)

    dbg.on_pause.append(on_pause)
    async for _ in graph.astream_events(
        inp, {"configurable": {"thread_id": thread}}, debugger=dbg, version="stepwise"
    ):
        pass
    return stops


async def test_one_stop_for_each_retried_failure_of_seed_000() -> None:
    agent = build_agent(initial_delay=0.0)
    stops = await _stops(agent, {"messages": [HumanMessage(INPUT)]}, "seed")
    assert stops == [("model.response", "TimeoutError"), ("tool.finished", "OSError")]


class Log(TypedDict):
    log: list[str]


async def test_one_stop_for_an_error_raised_by_a_node() -> None:
    def bad(state: Log) -> dict[str, Any]:
        raise ValueError("nope")

    g = StateGraph(Log)
    g.add_node("bad", bad)
    g.add_edge(START, "bad")
    dbg_stops: list[str] = []
    dbg = Debugger()
    dbg.break_on_failure()
    dbg.on_pause.append(
        lambda d: (dbg_stops.append(d.current_event.kind), d.continue_())  # type: ignore[union-attr]
    )
    with pytest.raises(ValueError):
        async for _ in g.compile(checkpointer=InMemorySaver()).astream_events(
            {"log": []}, {"configurable": {"thread_id": "again"}}, debugger=dbg, version="stepwise"
        ):
            pass
    assert dbg_stops == ["node.finished"]
