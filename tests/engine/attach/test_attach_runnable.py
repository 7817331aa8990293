"""Code written for the app's graph runs unchanged on the attached one: what describes the
graph (its builder, subgraphs, schemas, stream mode, store) reads as the app's, and LangChain's
composition API (``|``, ``with_retry``, ``with_fallbacks``, ``as_tool``, ``bind``) runs the
attached graph, so the composed runs go through Stepwise.  Each case compares with the plain
graph."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

pytest.importorskip("langgraph.graph")
from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore

from engine.attach import attach
from engine.events import EventBase


class S(TypedDict):
    topic: str
    log: Annotated[list[str], operator.add]


def _graph() -> Any:
    sub = StateGraph(S)
    sub.add_node("inner", lambda s: {"log": [f"inner {s['topic']}"]})
    sub.add_edge(START, "inner")
    b = StateGraph(S)
    b.add_node("write", lambda s: {"log": [f"about {s['topic']}"]})
    b.add_node("child", sub.compile())
    b.add_edge(START, "write")
    b.add_edge("write", "child")
    return b.compile(store=InMemoryStore(), name="writer")


def _seen(graph: Any) -> list[EventBase]:
    seen: list[EventBase] = []
    graph.subscribe(seen.append)
    return seen


def test_what_describes_the_graph_reads_as_the_apps() -> None:
    real = _graph()
    attached = attach(real)
    assert attached.builder is real.builder
    assert attached.store is real.store
    assert attached.stream_mode == real.stream_mode
    assert attached.get_name() == real.get_name() == "writer"
    assert [n for n, _ in attached.get_subgraphs()] == [n for n, _ in real.get_subgraphs()]
    schema = attached.get_input_schema().model_json_schema()
    assert schema == real.get_input_schema().model_json_schema()
    assert asyncio.run(attached.aget_graph()).nodes.keys() == attached.get_graph().nodes.keys()
    with pytest.raises(AttributeError, match="no attribute 'nothing_like_this'"):
        _ = attached.nothing_like_this


def test_a_pipe_runs_the_attached_graph() -> None:
    count = RunnableLambda(lambda out: len(out["log"]))
    plain = (_graph() | count).invoke({"topic": "cats", "log": []})
    attached = attach(_graph())
    seen = _seen(attached)
    assert (attached | count).invoke({"topic": "cats", "log": []}) == plain
    assert [e.kind for e in seen if e.kind.startswith("run.")] == ["run.started", "run.finished"]
    assert len(seen) > 2 and seen[-1].kind == "run.finished"
    # a mapping before it: a dict's ``|`` leaves the attached graph to compose
    before = {"topic": RunnableLambda(lambda t: t), "log": RunnableLambda(lambda t: [])}
    assert (before | attached).invoke("dogs") == (before | _graph()).invoke("dogs")
    assert seen[-1].kind == "run.finished" and seen[-1].run_id != seen[0].run_id


def test_retry_fallbacks_and_a_tool_go_through_stepwise() -> None:
    inp = {"topic": "cats", "log": []}
    attached = attach(_graph())
    seen = _seen(attached)
    plain = _graph().with_retry(stop_after_attempt=2).invoke(inp)
    assert attached.with_retry(stop_after_attempt=2).invoke(inp) == plain
    assert attached.with_fallbacks([RunnableLambda(lambda x: None)]).invoke(inp) == plain
    assert asyncio.run(attached.with_retry().ainvoke(inp)) == plain
    tool = attached.as_tool(name="write", description="Write about a topic.")
    assert tool.invoke({"topic": "cats", "log": []}) == plain
    assert [e.kind for e in seen].count("run.finished") == 4


def test_a_runnable_piped_into_the_attached_graph() -> None:
    """``runnable | attached``: LangChain takes the attached graph as a runnable (it refused
    it as "not a Runnable, callable or dict"), and the composed run goes through Stepwise."""
    from langchain_core.runnables import Runnable

    attached = attach(_graph())
    seen: list[EventBase] = []
    attached.subscribe(seen.append)
    assert isinstance(attached, Runnable)
    make_input = RunnableLambda(lambda topic: {"topic": topic, "log": []})
    plain = make_input | _graph()
    composed = make_input | attached
    assert composed.invoke("cats") == plain.invoke("cats")
    assert [e.kind for e in seen].count("run.started") == 1
    assert list(composed.stream("cats")) == list(plain.stream("cats"))
    assert asyncio.run(composed.ainvoke("dogs")) == asyncio.run(plain.ainvoke("dogs"))
    assert [e.kind for e in seen].count("run.started") == 3


def test_validate_and_the_run_log_as_the_apps() -> None:
    """``validate`` gives the attached graph back (LangGraph gives the graph back);
    ``astream_log``, LangChain's run log, patches as the plain graph's and runs through
    Stepwise."""
    import warnings

    attached = attach(_graph())
    assert attached.validate() is attached

    async def paths(graph: Any) -> list[str]:
        out: list[str] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain deprecates astream_log
            async for patch in graph.astream_log(
                {"topic": "t", "log": []}, include_names=["write"]
            ):
                out += [op["path"] for op in patch.ops]
        return out

    seen = _seen(attached)
    assert asyncio.run(paths(attached)) == asyncio.run(paths(_graph()))
    assert any(e.kind == "node.finished" and e.__dict__["node"] == "write" for e in seen)
