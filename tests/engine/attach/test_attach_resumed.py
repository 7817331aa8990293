"""An attached run's ``interrupt.resumed`` names the interrupt it answers (its id, node and
scope), as the engine's does: one raised inside a subgraph by the subgraph's own node, and a
resume by interrupt id once per id."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from engine.attach import attach
from tests.engine.attach.test_attach_langgraph import collect


class S(TypedDict, total=False):
    draft: str
    verdicts: Annotated[list[str], operator.add]


def _review(name: str) -> Any:
    def review(state: S) -> dict[str, Any]:
        return {"verdicts": [f"{name}: {interrupt({'review': name})}"]}

    return review


def _with_subgraph() -> Any:
    sub = StateGraph(S)
    sub.add_node("review", _review("legal"))
    sub.add_edge(START, "review")
    parent = StateGraph(S)
    parent.add_node("writer", sub.compile())
    parent.add_edge(START, "writer")
    return attach(parent.compile(checkpointer=InMemorySaver()))


def _parallel() -> Any:
    b = StateGraph(S)
    b.add_node("legal", _review("legal"))
    b.add_node("style", _review("style"))
    b.add_edge(START, "legal").add_edge(START, "style")
    return attach(b.compile(checkpointer=InMemorySaver()))


def test_resuming_an_interrupt_raised_in_a_subgraph_names_its_node_and_scope() -> None:
    graph = _with_subgraph()
    cfg = {"configurable": {"thread_id": "t"}}
    raised = [e for e in collect(graph, {"draft": "v1"}, cfg) if e.kind == "interrupt.raised"]
    inner = next(e for e in raised if e.ns)
    events = collect(graph, Command(resume="ok"), cfg)
    (resumed,) = [e for e in events if e.kind == "interrupt.resumed"]
    d = resumed.__dict__
    assert (d["interrupt_id"], d["node"], d["value"]) == (inner.interrupt_id, "review", "ok")
    assert resumed.ns == inner.ns  # the subgraph's scope, as the interrupt was raised
    assert graph.get_state(cfg).values["verdicts"] == ["legal: ok"]


def test_a_resume_by_interrupt_id_answers_each_id() -> None:
    graph = _parallel()
    cfg = {"configurable": {"thread_id": "t"}}
    raised = [e for e in collect(graph, {"draft": "v1"}, cfg) if e.kind == "interrupt.raised"]
    ids = {e.__dict__["node"]: e.interrupt_id for e in raised}
    assert set(ids) == {"legal", "style"}
    # each carries its task, the one LangGraph's thread says waits on it
    tasks = {t.name: t for t in graph.get_state(cfg).tasks}
    for e in raised:
        d = e.__dict__
        assert d["task_id"] == tasks[d["node"]].id
        assert [i.id for i in tasks[d["node"]].interrupts] == [e.interrupt_id]
    answers = {ids["legal"]: "yes", ids["style"]: "no"}
    events = collect(graph, Command(resume=answers), cfg)
    resumed = [e.__dict__ for e in events if e.kind == "interrupt.resumed"]
    assert {(d["node"], d["interrupt_id"], d["value"]) for d in resumed} == {
        ("legal", ids["legal"], "yes"),
        ("style", ids["style"], "no"),
    }
    assert sorted(graph.get_state(cfg).values["verdicts"]) == ["legal: yes", "style: no"]


def test_one_value_for_several_waiting_interrupts_is_refused_and_claims_no_resume() -> None:
    graph = _parallel()
    cfg = {"configurable": {"thread_id": "t"}}
    collect(graph, {"draft": "v1"}, cfg)
    seen: list[str] = []

    async def go() -> None:
        async for ev in graph.astream_events(Command(resume="maybe"), cfg, version="stepwise"):
            seen.append(ev.kind)

    with pytest.raises(RuntimeError, match="multiple pending interrupts"):  # LangGraph's own
        asyncio.run(go())
    assert "interrupt.resumed" not in seen
    assert len(graph.get_state(cfg).interrupts) == 2  # both still wait


def test_interrupts_reported_one_task_at_a_time_keep_each_nodes_name() -> None:
    from types import SimpleNamespace

    from engine.attach.base import Interrupted
    from engine.attach.translate import StreamTranslator

    # both parallel nodes ended interrupted before LangGraph reported the first one's interrupt
    legal, style = Interrupted("legal", "s1", "t1", []), Interrupted("style", "s2", "t2", [])
    tr = StreamTranslator.__new__(StreamTranslator)
    tr.cb = SimpleNamespace(interrupted={"": [legal, style]})  # type: ignore[assignment]
    one = SimpleNamespace(id=None)
    assert tr._interrupted_nodes("", [one]) == [legal]
    assert tr._interrupted_nodes("", [one]) == [style]  # was '': the first report took both
    assert tr._interrupted_nodes("", [one]) == [None] and tr.cb.interrupted == {}


def test_interrupts_are_matched_to_their_tasks_by_id_whatever_the_order() -> None:
    from types import SimpleNamespace

    from engine.attach.base import Interrupted
    from engine.attach.translate import StreamTranslator

    legal = Interrupted("review", "s1", "t1", ["i1"])
    style = Interrupted("review", "s2", "t2", ["i2"])
    tr = StreamTranslator.__new__(StreamTranslator)
    tr.cb = SimpleNamespace(interrupted={"": [legal, style]})  # type: ignore[assignment]
    second, first = SimpleNamespace(id="i2"), SimpleNamespace(id="i1")
    assert tr._interrupted_nodes("", [second, first]) == [style, legal]
    assert tr.cb.interrupted == {}


def test_two_tasks_of_one_node_interrupting_at_once_each_carry_their_task() -> None:
    from langgraph.types import Send

    def review(state: S) -> dict[str, Any]:
        draft = state.get("draft", "")
        return {"verdicts": [f"{draft}: {interrupt(draft)}"]}

    b = StateGraph(S)
    b.add_node("review", review)
    b.add_conditional_edges(START, lambda s: [Send("review", {"draft": d}) for d in ("a", "b")])
    graph = attach(b.compile(checkpointer=InMemorySaver()))
    cfg = {"configurable": {"thread_id": "t"}}
    raised = [
        e.__dict__ for e in collect(graph, {"draft": "v1"}, cfg) if e.kind == "interrupt.raised"
    ]
    waiting = {i.id: t.id for t in graph.get_state(cfg).tasks for i in t.interrupts}
    assert len(waiting) == 2 and len(set(waiting.values())) == 2
    assert {d["interrupt_id"]: d["task_id"] for d in raised} == waiting
    spans = {d["task_id"]: d["parent_span_id"] for d in raised}
    assert len(set(spans.values())) == 2  # each under its own task's node span
    by_value = {d["value"]: d["interrupt_id"] for d in raised}
    collect(graph, Command(resume={by_value["a"]: "yes", by_value["b"]: "no"}), cfg)
    assert sorted(graph.get_state(cfg).values["verdicts"]) == ["a: yes", "b: no"]
