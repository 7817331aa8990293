"""``add_node(..., defer=True)``: the node waits until nothing else is due.

A fan-out with branches of uneven length reaches the deferred node from each branch; it runs
once, after the longest branch, with every branch's writes.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import END, START, StateGraph

RUNS: list[str] = []


class State(TypedDict, total=False):
    docs: Annotated[list[str], operator.add]
    answer: str


def _graph(**compile_kw: Any):  # type: ignore[no-untyped-def]
    def step(name: str, docs: list[str]) -> Any:
        def node(state: State) -> dict[str, Any]:
            RUNS.append(name)
            return {"docs": docs} if docs else {}

        return node

    def qa(state: State) -> dict[str, Any]:
        RUNS.append("qa")
        return {"answer": ",".join(sorted(state["docs"]))}

    g = StateGraph(State)
    g.add_node("start", step("start", []))
    g.add_node("short", step("short", ["b"]))
    g.add_node("long_1", step("long_1", []))
    g.add_node("long_2", step("long_2", ["a"]))
    g.add_node("qa", qa, defer=True)
    g.add_edge(START, "start")
    g.add_edge("start", "short")
    g.add_edge("start", "long_1")
    g.add_edge("long_1", "long_2")
    g.add_edge("short", "qa")
    g.add_edge("long_2", "qa")
    g.add_edge("qa", END)
    return g.compile(**compile_kw)


def test_a_deferred_node_runs_once_after_the_longest_branch() -> None:
    RUNS.clear()
    out = _graph().invoke({"docs": []})
    assert out["answer"] == "a,b"
    assert RUNS.count("qa") == 1 and RUNS[-1] == "qa"
    assert RUNS.index("long_2") < RUNS.index("qa")


def test_a_deferred_node_is_next_after_a_breakpoint_and_runs_on_resume() -> None:
    RUNS.clear()
    graph = _graph(checkpointer=InMemorySaver(), interrupt_after=["long_2"])
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"docs": []}, cfg)
    assert graph.get_state(cfg).next == ("qa",)
    assert graph.invoke(None, cfg)["answer"] == "a,b"
    assert RUNS.count("qa") == 1
