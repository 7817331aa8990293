"""``attach(graph).invoke`` / ``ainvoke`` return what LangGraph's own return: a run that stops
at ``interrupt()`` gives its values with the pending interrupts under ``__interrupt__`` (what
callers, such as a re-run from a recorded session, tell an interrupted run by); a static pause
(``interrupt_before``) and a finished run give the values alone."""

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


class State(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def ask(state: State) -> dict[str, Any]:
    verdict = interrupt({"question": f"keep {state['n']}?"})
    return {"log": [f"asked: {verdict}"]}


def bump(state: State) -> dict[str, Any]:
    return {"n": state["n"] + 1, "log": ["bumped"]}


def _graph(**compile_kw: Any) -> Any:
    return (
        StateGraph(State)
        .add_node("bump", bump)
        .add_node("ask", ask)
        .add_edge(START, "bump")
        .add_edge("bump", "ask")
        .compile(checkpointer=InMemorySaver(), **compile_kw)
    )


def _both(calls: list[Any], **compile_kw: Any) -> tuple[list[Any], list[Any]]:
    plain, attached = _graph(**compile_kw), attach(_graph(**compile_kw))
    cfg = {"configurable": {"thread_id": "t"}}
    return [plain.invoke(c, cfg) for c in calls], [attached.invoke(c, cfg) for c in calls]


def test_an_interrupted_run_returns_its_interrupts_as_langgraph_does() -> None:
    plain, attached = _both([{"n": 1, "log": []}, Command(resume="yes")])
    assert "__interrupt__" in plain[0]
    assert [_values(o) for o in attached] == [_values(o) for o in plain]


def _values(output: dict[str, Any]) -> dict[str, Any]:
    """``output`` with each interrupt as its value (its id is made of the run's task id)."""
    pending = output.get("__interrupt__")
    if pending is None:
        return output
    return {**output, "__interrupt__": [(type(i).__name__, i.value) for i in pending]}


def test_a_static_pause_and_a_finished_run_return_the_values_alone() -> None:
    plain, attached = _both([{"n": 1, "log": []}], interrupt_before=["ask"])
    assert "__interrupt__" not in plain[0] and attached == plain


def test_ainvoke_too() -> None:
    attached = attach(_graph())
    cfg = {"configurable": {"thread_id": "t"}}
    out = asyncio.run(attached.ainvoke({"n": 1, "log": []}, cfg))
    assert [i.value for i in out["__interrupt__"]] == [{"question": "keep 2?"}]


@pytest.mark.parametrize("final", [False, True])
@pytest.mark.parametrize("with_saver", [False, True])
def test_an_entrypoint_returning_a_dict_returns_it(final: bool, with_saver: bool) -> None:
    """An entrypoint's output is one channel whose value may itself be a dict (LangGraph's
    ``values`` stream and state give it bare): the attached invoke hands it back, as the
    app's does, with ``entrypoint.final`` too."""
    from langgraph.func import entrypoint

    def make() -> Any:
        @entrypoint(checkpointer=InMemorySaver() if with_saver else None)
        def count(n: int, *, previous: Any = None) -> Any:
            before = previous["total"] if isinstance(previous, dict) else previous or 0
            out = {"total": before + n, "items": [n]}
            return entrypoint.final(value=out, save=out["total"]) if final else out

        return count

    plain, attached = make(), attach(make())
    for i, n in enumerate((1, 2)):
        cfg = {"configurable": {"thread_id": f"t{i}" if not with_saver else "t"}}
        assert attached.invoke(n, cfg) == plain.invoke(n, cfg)
        assert asyncio.run(attached.ainvoke(n, cfg)) == asyncio.run(plain.ainvoke(n, cfg))
