"""A subgraph's ``interrupt()`` is told once: one ``interrupt.raised``, in the subgraph's scope,
under the span of the node that called it; the parent's node that ran the subgraph ends
``interrupted`` (it waits on it), and the run's outcome holds that one interrupt, which the
answer resumes.  The same on the embedded engine and on an attached LangGraph graph (the remote
mode's is in ``tests.engine.remote.test_remote_subgraph_interrupt``)."""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.targets import RunDriver, RunRequest, target_for
from engine.types import Command


class S(TypedDict, total=False):
    draft: str
    verdicts: Annotated[list[str], operator.add]


def _engine_graph() -> Any:
    from engine.checkpoint import InMemorySaver
    from engine.graph import START, StateGraph, interrupt

    def review(state: S) -> dict[str, Any]:
        return {"verdicts": [f"legal: {interrupt({'review': 'legal'})}"]}

    sub = StateGraph(S).add_node("review", review).add_edge(START, "review").compile()
    parent = StateGraph(S).add_node("writer", sub).add_edge(START, "writer")
    return parent.compile(checkpointer=InMemorySaver())


def _langgraph_graph() -> Any:
    pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    from engine.attach import attach

    def review(state: S) -> dict[str, Any]:
        return {"verdicts": [f"legal: {interrupt({'review': 'legal'})}"]}

    sub = StateGraph(S).add_node("review", review).add_edge(START, "review").compile()
    parent = StateGraph(S).add_node("writer", sub).add_edge(START, "writer")
    return attach(parent.compile(checkpointer=InMemorySaver()))


def check_told_once(events: list[EventBase], inner: str, outer: str) -> InterruptRaised:
    """The one ``interrupt.raised`` of a run stopped in subgraph node ``inner`` run by the
    parent's node ``outer`` (see the module docstring)."""
    raised = [e for e in events if isinstance(e, InterruptRaised)]
    assert len(raised) == 1, [(e.ns, e.node) for e in raised]
    (intr,) = raised
    assert intr.node == inner and intr.ns.startswith(f"{outer}:")
    assert intr.value == {"review": "legal"} and intr.interrupt_id
    (called,) = [e for e in events if e.kind == "node.started" and e.__dict__["node"] == inner]
    assert intr.parent_span_id == called.span_id  # under the node that called interrupt()
    ends = {e.__dict__["node"]: e.__dict__["status"] for e in events if e.kind == "node.finished"}
    assert ends[inner] == ends[outer] == "interrupted"  # the parent's node waits on it
    sub_steps = [e for e in events if e.kind == "superstep.finished" and e.ns == intr.ns]
    assert sub_steps[-1].__dict__["status"] == "interrupted"
    return intr


@pytest.mark.parametrize("make", [_engine_graph, _langgraph_graph], ids=["engine", "attach"])
async def test_a_subgraph_interrupt_is_told_once_and_answered(make: Any) -> None:
    target = target_for(make())
    asked: list[list[InterruptRaised]] = []
    events: list[EventBase] = []

    async def answer(interrupts: list[InterruptRaised]) -> Any:
        asked.append(interrupts)
        return Command(resume="ok")

    outcome = await RunDriver(target, Debugger()).drive(
        RunRequest({"draft": "v1"}, "t"), events.append, answer
    )
    first_run = [e for e in events if e.run_id == events[0].run_id]
    intr = check_told_once(first_run, "review", "writer")
    assert [[(i.interrupt_id, i.node) for i in a] for a in asked] == [
        [(intr.interrupt_id, "review")]
    ]
    assert outcome.status == "done"
    snap = await target.state("t")
    assert snap is not None and snap.values["verdicts"] == ["legal: ok"]
    resumed = [e for e in events if e.kind == "interrupt.resumed"]
    assert [e.__dict__["interrupt_id"] for e in resumed] == [intr.interrupt_id]


@pytest.mark.parametrize("make", [_engine_graph, _langgraph_graph], ids=["engine", "attach"])
async def test_a_subgraph_interrupt_left_waiting_is_the_outcome(make: Any) -> None:
    target = target_for(make())
    events: list[EventBase] = []
    outcome = await RunDriver(target, Debugger()).run_once(
        RunRequest({"draft": "v1"}, "t"), events.append
    )
    intr = check_told_once(events, "review", "writer")
    assert outcome.status == "interrupted"
    assert [(i.interrupt_id, i.node) for i in outcome.interrupts] == [(intr.interrupt_id, "review")]
