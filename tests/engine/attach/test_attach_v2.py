"""An attached graph's ``version="v2"`` output is LangGraph's own for the app (its
``GraphOutput`` class, its stream parts), while Stepwise sees the same run as with v1: the same
events.  An entrypoint that returns a dict gives it back attached (v1 and v2, with and without a
checkpointer), as on LangGraph."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Command, GraphOutput, interrupt
from pydantic import BaseModel

from engine.attach import attach
from engine.events import EventBase


class Note(BaseModel):
    n: int
    log: Annotated[list[str], operator.add] = []


def bump(state: Note) -> dict[str, Any]:
    return {"n": state.n + 1, "log": ["bumped"]}


def ask(state: Note) -> dict[str, Any]:
    return {"log": [f"asked: {interrupt('keep?')}"]}


def _graph() -> Any:
    return (
        StateGraph(Note)
        .add_node("bump", bump)
        .add_node("ask", ask)
        .add_edge(START, "bump")
        .add_edge("bump", "ask")
        .compile(checkpointer=InMemorySaver())
    )


def _kinds(graph: Any, run: Any) -> list[str]:
    seen: list[EventBase] = []
    with graph.subscribe(seen.append):
        run()
    return [e.kind for e in seen]


def _plain_ids(obj: Any) -> Any:
    """``obj`` with the interrupts' ids out (each run makes its own)."""
    return repr(obj).replace("'", "").split("id=")[0]


def test_invoke_v2_gives_langgraphs_graph_output_with_the_state_as_its_model() -> None:
    plain, attached = _graph(), attach(_graph())
    cfg = {"configurable": {"thread_id": "t"}}
    for call in ({"n": 1}, Command(resume="yes")):
        want = plain.invoke(call, cfg, version="v2")
        got = attached.invoke(call, cfg, version="v2")
        assert type(got) is GraphOutput
        assert got.value == want.value and isinstance(got.value, Note)
        assert [i.value for i in got.interrupts] == [i.value for i in want.interrupts]


def test_stream_v2_gives_langgraphs_parts_and_stepwise_sees_the_same_run() -> None:
    attached = attach(_graph())
    modes = ["values", "updates", "checkpoints", "tasks", "debug", "custom"]
    v1: list[Any] = []
    v2: list[Any] = []
    kinds_v1 = _kinds(
        attached,
        lambda: v1.extend(
            attached.stream({"n": 1}, {"configurable": {"thread_id": "a"}}, stream_mode=modes)
        ),
    )
    kinds_v2 = _kinds(
        attached,
        lambda: v2.extend(
            attached.stream(
                {"n": 1}, {"configurable": {"thread_id": "b"}}, stream_mode=modes, version="v2"
            )
        ),
    )
    assert kinds_v1 and kinds_v2 == kinds_v1
    assert [(p["type"], p["ns"]) for p in v2] == [(m, ()) for m, _ in v1]
    real = list(
        _graph().stream(
            {"n": 1}, {"configurable": {"thread_id": "c"}}, stream_mode=modes, version="v2"
        )
    )
    assert [p["type"] for p in v2] == [p["type"] for p in real]
    values = [p for p in v2 if p["type"] == "values"]
    assert [p["data"] for p in values] == [p["data"] for p in real if p["type"] == "values"]
    assert isinstance(values[-1]["data"], Note) and values[-1]["interrupts"]


def test_astream_and_ainvoke_v2_attached() -> None:
    async def main() -> tuple[list[Any], Any]:
        attached = attach(_graph())
        cfg = {"configurable": {"thread_id": "t"}}
        parts = [
            p async for p in attached.astream({"n": 2}, cfg, stream_mode="updates", version="v2")
        ]
        return parts, await attached.ainvoke(Command(resume="no"), cfg, version="v2")

    parts, out = asyncio.run(main())
    assert [p["type"] for p in parts] == ["updates", "updates"]
    assert parts[0] == {"type": "updates", "ns": (), "data": {"bump": {"n": 3, "log": ["bumped"]}}}
    assert "__interrupt__" in parts[1]["data"]
    assert out == GraphOutput(value=Note(n=3, log=["bumped", "asked: no"]), interrupts=())


def test_a_misspelt_run_option_is_ignored_as_langgraph_ignores_it() -> None:
    cfg = {"configurable": {"thread_id": "t"}}
    plain = _graph().invoke({"n": 1}, cfg, versio="v2")
    attached = attach(_graph()).invoke({"n": 1}, cfg, versio="v2")
    assert not isinstance(plain, GraphOutput)  # the v1 output: the option is not read
    assert type(attached) is type(plain) and attached.keys() == plain.keys()


@pytest.mark.parametrize("saver", [True, False])
def test_an_entrypoint_returning_a_dict_gives_it_back(saver: bool) -> None:
    def make() -> Any:
        @entrypoint(checkpointer=InMemorySaver() if saver else None)
        def flow(n: int) -> dict[str, Any]:
            ok = interrupt("keep?") if saver else True
            return {"n": n, "ok": ok}

        return flow

    plain, attached = make(), attach(make())
    cfg = {"configurable": {"thread_id": "t"}}
    calls: list[Any] = [3, Command(resume=True)] if saver else [3]
    for call in calls:
        assert _plain_ids(attached.invoke(call, cfg)) == _plain_ids(plain.invoke(call, cfg))
    cfg = {"configurable": {"thread_id": "u"}}
    for call in calls:
        want = plain.invoke(call, cfg, version="v2")
        got = attached.invoke(call, cfg, version="v2")
        assert _plain_ids(got) == _plain_ids(want)
