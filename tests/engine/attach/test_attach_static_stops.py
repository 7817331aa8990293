"""An app's own ``interrupt_before`` / ``interrupt_after`` stops, attached: the pause says
where it is (before which node, or after which), as our engine's own stops do."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from engine.attach import attach
from tests.engine.attach.test_attach_langgraph import collect


class S(TypedDict, total=False):
    n: int


def _graph(**stops: Any) -> Any:
    b = StateGraph(S)
    b.add_node("a", lambda s: {"n": s["n"] + 1})
    b.add_node("b", lambda s: {"n": s["n"] * 10})
    b.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    return attach(b.compile(checkpointer=InMemorySaver(), **stops))


@pytest.mark.parametrize(
    ("stops", "where"),
    [
        ({"interrupt_before": ["b"]}, ("before", "b")),
        ({"interrupt_after": ["a"]}, ("after", "a")),
        ({"interrupt_before": "*"}, ("before", "a")),
    ],
)
def test_a_static_stop_says_where_it_is(stops: dict[str, Any], where: tuple[str, str]) -> None:
    graph = _graph(**stops)
    cfg = {"configurable": {"thread_id": "t"}}
    events = collect(graph, {"n": 1}, cfg)
    (pause,) = [e for e in events if e.kind == "interrupt.raised"]
    assert (pause.__dict__["static"], pause.__dict__["node"]) == where
    assert events[-1].__dict__["status"] == "interrupted"
