"""A route to a node the graph does not have (a ``Command`` goto, a conditional edge, a ``Send``)
is dropped with a logged warning and the run goes on, as in LangGraph; the ``route`` event says
which targets were ignored, so the debugger shows the typo the run silently survived."""

from __future__ import annotations

import importlib
import logging
from typing import Any, TypedDict

import pytest

CASES = ("command_goto", "command_goto_list", "command_send", "branch_name", "branch_send")


class S(TypedDict):
    x: int


def _build(lib: str, case: str) -> Any:
    graph_mod = importlib.import_module(f"{lib}.graph")
    types_mod = importlib.import_module(f"{lib}.types")
    command, send = types_mod.Command, types_mod.Send

    def a(state: S) -> Any:
        if case == "command_goto":
            return command(goto="nope", update={"x": 5})
        if case == "command_goto_list":
            return command(goto=["b", "nope"], update={"x": 5})
        if case == "command_send":
            return command(goto=send("nope", {"x": 1}), update={"x": 5})
        return {"x": 5}

    b = graph_mod.StateGraph(S)
    b.add_node("a", a)
    b.add_node("b", lambda s: {"x": s["x"] * 10})
    b.add_edge(graph_mod.START, "a")
    if case == "branch_name":
        b.add_conditional_edges("a", lambda s: "nope")
    if case == "branch_send":
        b.add_conditional_edges("a", lambda s: [send("nope", s)])
    return b.compile()


EXPECTED = {
    "command_goto": {"x": 5},
    "command_goto_list": {"x": 50},
    "command_send": {"x": 5},
    "branch_name": {"x": 5},
    "branch_send": {"x": 5},
}


@pytest.mark.parametrize("case", CASES)
def test_the_run_goes_on_without_the_unknown_target(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    graph = _build("engine", case)
    events: list[Any] = []
    graph.subscribe(events.append)
    with caplog.at_level(logging.WARNING, logger="engine.graph"):
        out = graph.invoke({"x": 1})
    assert out == EXPECTED[case]
    assert any("nope" in r.getMessage() for r in caplog.records)
    routes = [e for e in events if e.kind == "route" and e.from_node == "a"]
    assert routes, "the route decision is still an event"
    assert "ignored unknown node 'nope'" in routes[0].detail
    assert "nope" not in routes[0].to
    assert all(s["node"] != "nope" for s in routes[0].sends)


@pytest.mark.parametrize("case", CASES)
def test_as_langgraph_does(case: str) -> None:
    pytest.importorskip("langgraph.graph")
    assert _build("langgraph", case).invoke({"x": 1}) == _build("engine", case).invoke({"x": 1})


def test_a_pending_send_to_a_node_since_removed_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A thread saved by an earlier version of the graph holds a ``Send`` to a node the graph
    no longer has: resuming drops it with a warning (LangGraph does the same)."""
    from engine import START, StateGraph
    from engine.checkpoint import InMemorySaver
    from engine.types import Send

    saver = InMemorySaver()
    old = StateGraph(S)
    old.add_node("a", lambda s: {"x": s["x"] + 1})
    old.add_node("worker", lambda s: {"x": s["x"] * 100})
    old.add_edge(START, "a")
    old.add_conditional_edges("a", lambda s: [Send("worker", s)])
    cfg = {"configurable": {"thread_id": "t"}}
    old.compile(checkpointer=saver, interrupt_before=["worker"]).invoke({"x": 1}, cfg)

    new = StateGraph(S)
    new.add_node("a", lambda s: {"x": s["x"] + 1})
    new.add_edge(START, "a")
    graph = new.compile(checkpointer=saver)
    assert graph.get_state(cfg).next == ()
    with caplog.at_level(logging.WARNING, logger="engine.graph"):
        assert graph.invoke(None, cfg) == {"x": 2}
    assert any("worker" in r.getMessage() for r in caplog.records)
