"""Joins, Send fan-out, subgraphs, Command.PARENT, stream modes, runtime access."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    Command,
    Interrupt,
    Runtime,
    Send,
    StateGraph,
    get_stream_writer,
    interrupt,
)
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, AnyMessage, add_messages


class Log(TypedDict):
    log: Annotated[list, operator.add]


def cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def test_join_waits_for_all_sources():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b1", lambda s: {"log": ["b1"]})
    g.add_node("b2", lambda s: {"log": ["b2"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b1")
    g.add_edge("b1", "b2")
    g.add_edge(["a", "b2"], "c")
    out = g.compile().invoke({"log": []})
    assert out["log"] == ["a", "b1", "b2", "c"]  # c ran once, after both a and b2


def test_send_fan_out_map_reduce():
    class MapState(TypedDict):
        items: list[int]
        results: Annotated[list, operator.add]

    def fan(state):
        return [Send("square", {"x": x}) for x in state["items"]]

    g = StateGraph(MapState)
    g.add_node("square", lambda arg: {"results": [arg["x"] ** 2]})
    g.add_conditional_edges(START, fan, ["square"])
    out = g.compile().invoke({"items": [3, 1, 2]})
    assert out["results"] == [9, 1, 4]  # Send index order, not completion order


def test_conditional_edge_sees_this_tasks_writes():
    class S(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    g = StateGraph(S)
    g.add_node("model", lambda s: {"messages": [AIMessage("done")]})
    g.add_node("after", lambda s: {})
    g.add_edge(START, "model")
    g.add_conditional_edges(
        "model", lambda s: "after" if s["messages"][-1].text == "done" else END, ["after", END]
    )
    out = g.compile().invoke(
        {"messages": ["hi"]},
    )
    assert [m.text for m in out["messages"]] == ["hi", "done"]


def test_subgraph_as_node_and_interrupt_inside():
    class Inner(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(Inner)
    inner.add_node("i1", lambda s: {"log": ["i1"]})
    inner.add_node("ask", lambda s: {"log": [f"answer={interrupt('q?')}"]})
    inner.add_edge(START, "i1")
    inner.add_edge("i1", "ask")
    sub = inner.compile()

    outer = StateGraph(Log)
    outer.add_node("before", lambda s: {"log": ["before"]})
    outer.add_node("sub", sub)
    outer.add_node("after", lambda s: {"log": ["after"]})
    outer.add_edge(START, "before")
    outer.add_edge("before", "sub")
    outer.add_edge("sub", "after")
    g = outer.compile(checkpointer=InMemorySaver())
    out = g.invoke({"log": []}, cfg())
    (intr,) = out["__interrupt__"]
    assert isinstance(intr, Interrupt) and intr.value == "q?"
    assert g.get_state(cfg()).next == ("sub",)
    out = g.invoke(Command(resume="42"), cfg())
    # the subgraph returns its whole log; the outer reducer appends it
    assert out["log"][-1] == "after"
    assert "answer=42" in out["log"]
    assert out["log"].count("i1") == 1  # the inner node before the interrupt did not rerun


def test_command_parent_routes_in_the_parent_graph():
    inner = StateGraph(Log)
    inner.add_node(
        "jump", lambda s: Command(graph=Command.PARENT, goto="target", update={"log": ["from-sub"]})
    )
    inner.add_edge(START, "jump")
    sub = inner.compile()

    outer = StateGraph(Log)
    outer.add_node("sub", sub)
    outer.add_node("target", lambda s: {"log": ["target"]})
    outer.add_node("never", lambda s: {"log": ["never"]})
    outer.add_edge(START, "sub")
    out = outer.compile().invoke({"log": []})
    assert out["log"] == ["from-sub", "target"]


def test_stream_modes_values_updates_custom_and_lists():
    def a(state, runtime: Runtime):
        runtime.stream_writer({"progress": 50})
        get_stream_writer()("half")
        return {"log": ["a"]}

    g = StateGraph(Log)
    g.add_node("a", a)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    graph = g.compile()
    assert list(graph.stream({"log": []}, stream_mode="values")) == [
        {"log": []},
        {"log": ["a"]},
        {"log": ["a", "b"]},
    ]
    assert list(graph.stream({"log": []})) == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    assert list(graph.stream({"log": []}, stream_mode="custom")) == [{"progress": 50}, "half"]
    modes = [m for m, _ in graph.stream({"log": []}, stream_mode=["updates", "custom"])]
    assert modes == ["custom", "custom", "updates", "updates"]


def test_stream_tasks_checkpoints_and_debug():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    graph = g.compile(checkpointer=InMemorySaver())
    chunks = list(graph.stream({"log": []}, cfg(), stream_mode=["tasks", "checkpoints", "debug"]))
    kinds = [m for m, _ in chunks]
    assert "tasks" in kinds and "checkpoints" in kinds and "debug" in kinds
    cps = [c for m, c in chunks if m == "checkpoints"]
    assert [c["metadata"]["source"] for c in cps] == ["input", "loop", "loop"]
    assert cps[-1]["next"] == []
    task_results = [c for m, c in chunks if m == "tasks" and "result" in c]
    assert task_results[0]["name"] == "a" and task_results[0]["result"] == {"log": ["a"]}
    debug_types = {c["type"] for m, c in chunks if m == "debug"}
    assert debug_types == {"checkpoint", "task", "task_result"}


def test_stream_updates_reports_interrupts():
    g = StateGraph(Log)
    g.add_node("ask", lambda s: {"log": [interrupt("ok?")]})
    g.add_edge(START, "ask")
    graph = g.compile(checkpointer=InMemorySaver())
    chunks = list(graph.stream({"log": []}, cfg()))
    assert "__interrupt__" in chunks[-1]
    assert chunks[-1]["__interrupt__"][0].value == "ok?"


async def test_async_nodes_and_sync_nodes_do_not_block_the_loop():
    ticks: list[int] = []

    def blocking(state):
        import time

        time.sleep(0.05)  # a blocking sync node runs on a worker thread
        return {"log": ["slow"]}

    async def ticker():
        for i in range(3):
            ticks.append(i)
            await asyncio.sleep(0)

    g = StateGraph(Log)
    g.add_node("blocking", blocking)
    g.add_edge(START, "blocking")
    graph = g.compile()
    run = asyncio.ensure_future(graph.ainvoke({"log": []}))
    await ticker()
    assert ticks == [0, 1, 2]  # the loop kept running while the node blocked its thread
    assert (await run)["log"] == ["slow"]


def test_runtime_context_is_passed():
    from dataclasses import dataclass

    @dataclass
    class Ctx:
        user: str

    def node(state, runtime: Runtime[Ctx]):
        return {"log": [runtime.context.user]}

    g = StateGraph(Log, context_schema=Ctx)
    g.add_node("node", node)
    g.add_edge(START, "node")
    assert g.compile().invoke({"log": []}, context=Ctx("ann"))["log"] == ["ann"]


def test_interrupt_outside_a_graph_is_an_error():
    with pytest.raises(RuntimeError, match="inside a node"):
        interrupt("x")


def test_resume_without_checkpointer_is_an_error():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    with pytest.raises(
        RuntimeError, match=r"Cannot use Command\(resume=\.\.\.\) without checkpointer"
    ):
        g.compile().invoke(Command(resume=1))


def test_get_graph_shape_and_mermaid():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {})
    g.add_node("b", lambda s: {})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "b", {"go": "b", "stop": END})
    dg = g.compile().get_graph()
    assert set(dg.nodes) == {START, "a", "b", END}
    cond = sorted((e.source, e.target, e.data) for e in dg.edges if e.conditional)
    assert cond == [("a", END, "stop"), ("a", "b", "go")]
    text = dg.draw_mermaid()
    assert "a -. &nbsp;go&nbsp; .-> b;" in text
    assert "__start__ --> a;" in text


def test_an_answer_a_failed_node_took_is_kept_for_its_retry() -> None:
    # as LangGraph: the resume values a node consumed are saved with its task even when it then
    # fails, so invoke(None) retries with them and a later Command(resume=...) does not replace
    # them (the interrupt was answered)
    class S(TypedDict):
        a: str

    fail = [True]
    seen: list[str] = []

    def ask(state: S) -> dict:
        answer = interrupt("approve?")
        seen.append(answer)
        if fail[0]:
            fail[0] = False
            raise ConnectionError("network down")
        return {"a": answer}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"a": ""}, cfg)
    with pytest.raises(ConnectionError):
        graph.invoke(Command(resume="first"), cfg)
    assert graph.invoke(Command(resume="second"), cfg) == {"a": "first"}
    assert seen == ["first", "first"]


def test_checkpoints_stream_interrupts_read_as_langgraphs() -> None:
    # value, id, response_schema: the order LangGraph's checkpoints / debug streams print (the
    # resumed checkpoint's chunk names the interrupts its task waited on)
    class S(TypedDict):
        a: str

    g = StateGraph(S)
    g.add_node("ask", lambda s: {"a": interrupt("ok?")})
    g.add_edge(START, "ask")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "c"}}
    graph.invoke({"a": ""}, cfg)
    chunks = list(graph.stream(Command(resume="yes"), cfg, stream_mode="checkpoints"))
    (waiting,) = [t["interrupts"] for c in chunks for t in c["tasks"] if t["interrupts"]]
    assert [list(i) for i in waiting] == [["value", "id", "response_schema"]]
