"""The target protocol on the embedded engine: runs driven by ``RunDriver`` (events, outcome,
interrupts answered or left waiting, errors in one line, stop), time travel and capabilities."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from engine import END, START, StateGraph, interrupt
from engine.checkpoint.memory import InMemorySaver
from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.targets import (
    STAY,
    Capability,
    EngineTarget,
    RunDriver,
    RunRequest,
    Target,
    TargetError,
    ThreadQuery,
    target_for,
)
from engine.types import Command


class S(TypedDict, total=False):
    log: list[str]


def _graph(*, ask: bool = False, fail: bool = False, saver: Any = True) -> Any:
    def first(state: S) -> S:
        return {"log": [*state.get("log", []), "first"]}

    def second(state: S) -> S:
        if fail:
            raise ValueError("the second node broke\nsecond line")
        answer = interrupt("ok?") if ask else "-"
        return {"log": [*state.get("log", []), f"second:{answer}"]}

    b = StateGraph(S)
    b.add_node("first", first)
    b.add_node("second", second)
    b.add_edge(START, "first")
    b.add_edge("first", "second")
    b.add_edge("second", END)
    return b.compile(checkpointer=InMemorySaver() if saver else None)


async def _drive(
    target: Target, request: RunRequest, answer: Any = None
) -> tuple[Any, list[EventBase]]:
    events: list[EventBase] = []
    outcome = await RunDriver(target, Debugger()).drive(request, events.append, answer)
    return outcome, events


def test_an_engine_graph_is_an_engine_target() -> None:
    target = target_for(_graph())
    assert isinstance(target, EngineTarget) and isinstance(target, Target)
    assert target.kind == "engine" and Capability.FAULT_INJECTION in target.capabilities
    assert target.state_keys() == ["log"]
    assert target.input_schema() is not None and target.context_schema() is None
    assert set(target.shape().nodes) >= {"first", "second"}


async def test_a_run_ends_done_with_its_events() -> None:
    outcome, events = await _drive(target_for(_graph()), RunRequest({"log": []}, "t1"))
    assert outcome.status == "done" and outcome.error is None
    assert outcome.output == {"log": ["first", "second:-"]}
    assert events[0].kind == "run.started" and events[-1].kind == "run.finished"
    assert {e.run_id for e in events} == {outcome.run_id}


async def test_an_interrupt_is_answered_and_the_run_goes_on() -> None:
    asked: list[list[InterruptRaised]] = []

    async def answer(interrupts: list[InterruptRaised]) -> Any:
        asked.append(interrupts)
        return Command(resume="yes")

    target = target_for(_graph(ask=True))
    outcome, events = await _drive(target, RunRequest({"log": []}, "t2"), answer)
    assert [i.value for i in asked[0]] == ["ok?"]
    assert outcome.status == "done" and outcome.output == {"log": ["first", "second:yes"]}
    assert [e.kind for e in events].count("run.started") == 2


async def test_stay_leaves_the_thread_waiting() -> None:
    async def later(_interrupts: list[InterruptRaised]) -> Any:
        return STAY

    target = target_for(_graph(ask=True))
    outcome, _ = await _drive(target, RunRequest({"log": []}, "t3"), later)
    assert outcome.status == "interrupted" and [i.value for i in outcome.interrupts] == ["ok?"]
    snap = await target.state("t3")
    assert snap is not None and snap.next == ("second",)


async def test_a_failed_run_is_an_outcome_with_one_line() -> None:
    outcome, events = await _drive(target_for(_graph(fail=True)), RunRequest({"log": []}, "t4"))
    assert outcome.status == "error"
    assert outcome.error == "ValueError: the second node broke"
    assert events[-1].kind == "run.finished"


async def test_stop_at_a_breakpoint_is_a_cancelled_outcome() -> None:
    target = target_for(_graph())
    dbg = Debugger()
    dbg.break_before("second")
    dbg.on_pause.append(lambda d: d.stop())
    outcome = await RunDriver(target, dbg).run_once(RunRequest({"log": []}, "t5"), lambda e: None)
    assert outcome.status == "cancelled"
    assert not dbg.stop_requested
    snap = await target.state("t5")
    assert snap is not None and snap.values == {"log": ["first"]}


async def test_time_travel_and_a_fork() -> None:
    target = target_for(_graph())
    await _drive(target, RunRequest({"log": []}, "t6"))
    history = await target.history("t6")
    assert [s.values.get("log") for s in history][:2] == [["first", "second:-"], ["first"]]
    older = await target.history("t6", before=history[0].config["configurable"]["checkpoint_id"])
    assert older[0].values == {"log": ["first"]}
    assert len(await target.history("t6", limit=1)) == 1
    branch_at = history[1].config["configurable"]["checkpoint_id"]
    new = await target.update_state(
        "t6", {"log": ["edited"]}, as_node="first", checkpoint_id=branch_at
    )
    snap = await target.state("t6", new)
    assert snap is not None and snap.values == {"log": ["edited"]} and snap.next == ("second",)
    outcome, _ = await _drive(target, RunRequest(None, "t6", checkpoint_id=new))
    assert outcome.output == {"log": ["edited", "second:-"]}


async def test_threads_are_listed_newest_first() -> None:
    target = target_for(_graph(ask=True))
    await _drive(target, RunRequest({"log": []}, "old"))
    await _drive(target, RunRequest({"log": []}, "new"))
    threads = await target.threads()
    assert [t.thread_id for t in threads] == ["new", "old"]
    assert {t.status for t in threads} == {"interrupted"}
    assert [t.thread_id for t in await target.threads(ThreadQuery(limit=1, offset=1))] == ["old"]


async def test_without_a_checkpointer_time_travel_is_missing_and_says_why() -> None:
    target = target_for(_graph(saver=False))
    caps = target.capabilities
    assert Capability.EDIT_STATE not in caps and Capability.RUN in caps
    assert caps.why_not("fork") == "this graph has no checkpointer"
    assert await target.state("x") is None and await target.history("x") == []
    with pytest.raises(TargetError, match="needs a checkpointer"):
        await target.update_state("x", {"log": []})


def test_as_target_takes_a_graph_whose_schema_property_raises_and_a_target_as_it_is() -> None:
    """A graph with a ``typing.TypedDict`` state: on Python 3.11 building its ``input_schema``
    raises (pydantic wants ``typing_extensions.TypedDict``).  ``isinstance(graph, Target)``
    read that property or not depending on the order of the protocol's members (string
    hashing: ``PYTHONHASHSEED=2`` made ``tests/studio/test_edit_state_model.py`` fail), so
    applying a State edit failed in some processes; ``as_target`` judges by the class and
    never reads it."""
    import sys
    import typing

    from engine import END, START, StateGraph
    from engine.checkpoint import InMemorySaver
    from engine.targets import EngineTarget, as_target

    class Plain(typing.TypedDict):
        n: int

    b = StateGraph(Plain)
    b.add_node("inc", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "inc")
    b.add_edge("inc", END)
    graph = b.compile(checkpointer=InMemorySaver())
    if sys.version_info < (3, 12):
        with pytest.raises(Exception, match="typing_extensions"):
            _ = graph.input_schema
    target = as_target(graph)
    assert isinstance(target, EngineTarget)
    assert as_target(target) is target
