"""``node.finished`` lists what a LangGraph node wrote as the engine lists its own nodes'
writes: a ``Command``'s update and where its ``goto`` sends the run (a node's branch channel,
a ``Send``'s task), not nothing."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

import engine.graph as ours
import engine.types as our_types
from engine.attach import attach
from tests.engine.attach.test_attach_langgraph import collect


class S(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]


def _build(graph_cls: Any, command: Any, send: Any) -> Any:
    def router(state: S) -> Any:
        return command(goto=["big", send("count", {"n": 7})], update={"log": ["routed"]})

    def big(state: S) -> dict[str, Any]:
        return {"log": ["big"]}

    def count(state: S) -> dict[str, Any]:
        return {"log": [f"count {state['n']}"]}

    b = graph_cls(S)
    b.add_node("router", router)
    b.add_node("big", big)
    b.add_node("count", count)
    b.add_edge(START, "router")
    b.add_edge("big", END)
    b.add_edge("count", END)
    return b


def _finished(events: list[Any], node: str) -> list[dict[str, Any]]:
    [ev] = [e for e in events if e.kind == "node.finished" and e.__dict__["node"] == node]
    return ev.__dict__["writes"]


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_a_command_update_and_goto_are_the_nodes_writes(sync: bool) -> None:
    real = _build(StateGraph, Command, Send).compile()
    events = collect(attach(real, sync=sync), {"n": 2}, {})
    assert events[-1].__dict__["status"] == "done"
    writes = _finished(events, "router")
    assert writes == [
        {"channel": "log", "value": ["routed"]},
        {"channel": "branch:to:big", "value": "big"},
        {"channel": "__pregel_tasks", "value": {"send": "count", "arg": {"n": 7}}},
    ]
    engine = _build(ours.StateGraph, our_types.Command, our_types.Send).compile()
    ours_events = collect(engine, {"n": 2}, {})
    assert _finished(ours_events, "router") == writes  # as the engine reports its own
