"""A ``checkpoint.saved`` event's ``next`` names the tasks the next superstep plans, in the
planner's order, whether the tasks themselves are made (a ``checkpoints`` stream) or only
their names (a listener alone)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, Send, StateGraph
from engine.checkpoint import InMemorySaver
from engine.events import EventBase


class _State(TypedDict):
    items: list[str]
    log: Annotated[list[str], operator.add]


def _graph(bad_send: bool = False) -> Any:
    b = StateGraph(_State)
    b.add_node("plan", lambda s: {"log": ["plan"]})
    b.add_node("work", lambda arg: {"log": [f"work {arg}"]})
    b.add_node("left", lambda s: {"log": ["left"]})
    b.add_node("right", lambda s: {"log": ["right"]})
    b.add_node("join", lambda s: {"log": ["join"]})
    b.add_edge(START, "plan")
    target = "nowhere" if bad_send else "work"
    b.add_conditional_edges("plan", lambda s: [Send(target, i) for i in s["items"]])
    b.add_edge("plan", "left")
    b.add_edge("plan", "right")
    b.add_edge(["left", "right"], "join")
    b.add_edge("work", "join")
    b.add_edge("join", END)
    return b.compile(checkpointer=InMemorySaver())


def _nexts(events: list[EventBase]) -> list[list[str]]:
    return [list(e.__dict__["next"]) for e in events if e.kind == "checkpoint.saved"]


def test_next_names_the_tasks_each_next_superstep_runs() -> None:
    graph = _graph()
    events: list[EventBase] = []
    with graph.subscribe(events.append):
        graph.invoke({"items": ["a", "b"], "log": []}, {"configurable": {"thread_id": "t"}})
    planned = [
        [t.node for t in e.__dict__["tasks"]] for e in events if e.kind == "superstep.started"
    ]
    nexts = _nexts(events)
    assert nexts == [*planned, []]  # the input's checkpoint names __start__, the last none
    assert ["work", "work", "left", "right"] in nexts


def test_a_listener_alone_gets_the_next_a_checkpoints_stream_gets() -> None:
    alone: list[EventBase] = []
    streamed: list[EventBase] = []
    graph = _graph()
    with graph.subscribe(alone.append):
        graph.invoke({"items": ["a", "b"], "log": []}, {"configurable": {"thread_id": "a"}})
    chunks: list[Any] = []
    with graph.subscribe(streamed.append):
        for chunk in graph.stream(
            {"items": ["a", "b"], "log": []},
            {"configurable": {"thread_id": "s"}},
            stream_mode="checkpoints",
        ):
            chunks.append(chunk)
    assert _nexts(alone) == _nexts(streamed)
    assert [list(c["next"]) for c in chunks] == _nexts(streamed)


def test_a_send_to_an_unknown_node_is_dropped_and_not_named_next() -> None:
    """As in LangGraph: the Send is dropped with a warning (the route says so), the run goes
    on, and no checkpoint names it next."""
    graph = _graph(bad_send=True)
    events: list[EventBase] = []
    with graph.subscribe(events.append):
        out = graph.invoke({"items": ["a"], "log": []}, {"configurable": {"thread_id": "t"}})
    assert out["log"] == ["plan", "left", "right", "join"]
    assert _nexts(events) == [["__start__"], ["plan"], ["left", "right"], ["join"], []]
    routes = [e for e in events if e.kind == "route" and e.__dict__["from_node"] == "plan"]
    assert any("ignored unknown node 'nowhere'" in e.__dict__["detail"] for e in routes)
