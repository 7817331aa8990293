"""Spec section 10, scenarios 1-12: the Pregel runtime's observable behaviour."""

from __future__ import annotations

import itertools
import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    Command,
    GraphRecursionError,
    InvalidUpdateError,
    RetryPolicy,
    Send,
    StateGraph,
    interrupt,
)
from engine.checkpoint import InMemorySaver


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _appender(name: str, calls: list[str] | None = None):
    def fn(state: Log) -> dict:
        if calls is not None:
            calls.append(name)
        return {"log": [name]}

    fn.__name__ = name
    return fn


def chain(names: str = "xyz", checkpointer=None, **compile_kw):
    b = StateGraph(Log)
    for n in names:
        b.add_node(n, _appender(n))
    b.add_edge(START, names[0])
    for a, c in itertools.pairwise(names):
        b.add_edge(a, c)
    b.add_edge(names[-1], END)
    return b.compile(checkpointer=checkpointer, **compile_kw)


def cfg(thread: str = "t", **extra) -> dict:
    return {"configurable": {"thread_id": thread, **extra}}


def history(graph, thread: str = "t") -> list[tuple[str, int, tuple[str, ...]]]:
    return [
        (s.metadata["source"], s.metadata["step"], s.next)
        for s in graph.get_state_history(cfg(thread))
    ]


# 1 ---------------------------------------------------------------------------------------


def test_1_linear_history_newest_first():
    g = chain(checkpointer=InMemorySaver())
    assert g.invoke({"log": []}, cfg()) == {"log": ["x", "y", "z"]}
    assert history(g) == [
        ("loop", 3, ()),
        ("loop", 2, ("z",)),
        ("loop", 1, ("y",)),
        ("loop", 0, ("x",)),
        ("input", -1, ("__start__",)),
    ]


# 2 ---------------------------------------------------------------------------------------


def test_2_recursion_limit_boundary():
    g = chain(checkpointer=InMemorySaver())
    assert g.invoke({"log": []}, {**cfg("ok"), "recursion_limit": 4})["log"] == ["x", "y", "z"]
    with pytest.raises(GraphRecursionError) as ei:
        g.invoke({"log": []}, {**cfg("bad"), "recursion_limit": 3})
    assert str(ei.value) == (  # LangGraph's words, with its docs' page for the error
        "Recursion limit of 3 reached without hitting a stop condition. "
        "You can increase the limit by setting the `recursion_limit` config key.\n"
        "For troubleshooting, visit: "
        "https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"
    )
    # it executed N+1 = 4 supersteps: input + __start__, x, y, z checkpoints
    assert len(history(g, "bad")) == 5


def test_2b_recursion_limit_must_be_positive():
    g = chain()
    with pytest.raises(ValueError):
        g.invoke({"log": []}, {"recursion_limit": 0})


# 3 ---------------------------------------------------------------------------------------


def test_3_barrier_order_pull_before_push_sends_by_index():
    b = StateGraph(Log)

    def a(state):
        return Command(
            update={"log": ["a"]},
            goto=["c", Send("b", {"log": ["b1"]}), Send("b", {"log": ["b2"]})],
        )

    b.add_node("a", a)
    b.add_node("b", lambda s: {"log": s["log"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(START, "a")
    g = b.compile()
    out = g.invoke({"log": []})
    assert out["log"] == ["a", "c", "b1", "b2"]


def test_3b_completion_order_never_matters():
    import asyncio

    b = StateGraph(Log)

    async def slow(state):
        await asyncio.sleep(0.01)
        return {"log": ["slow"]}

    async def fast(state):
        return {"log": ["fast"]}

    b.add_node("a_slow", slow)
    b.add_node("b_fast", fast)
    b.add_edge(START, "a_slow")
    b.add_edge(START, "b_fast")
    g = b.compile()
    # b_fast finishes first, but writes are applied in node-name order
    assert g.invoke({"log": []})["log"] == ["slow", "fast"]


# 4 ---------------------------------------------------------------------------------------


class KV(TypedDict):
    k: str


def test_4_two_writers_one_last_value_key():
    b = StateGraph(KV)
    b.add_node("p", lambda s: {"k": "p"})
    b.add_node("q", lambda s: {"k": "q"})
    b.add_edge(START, "p")
    b.add_edge(START, "q")
    g = b.compile()
    with pytest.raises(InvalidUpdateError) as ei:
        g.invoke({"k": ""})
    assert str(ei.value) == (  # LangGraph's words, with its docs' page for the error
        "At key 'k': Can receive only one value per step. Use an Annotated key to handle multiple "
        "values.\nFor troubleshooting, visit: "
        "https://docs.langchain.com/oss/python/langgraph/errors/INVALID_CONCURRENT_GRAPH_UPDATE"
    )


# 6 ---------------------------------------------------------------------------------------


def test_6_parallel_failure_resumes_only_the_failed_task():
    calls: list[str] = []
    attempts = {"two": 0}

    def one(state):
        calls.append("one")
        return {"log": ["one"]}

    def two(state):
        calls.append("two")
        attempts["two"] += 1
        raise ConnectionError("boom")

    b = StateGraph(Log)
    b.add_node("one", one)
    b.add_node(
        "two", two, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    )
    b.add_edge(START, "one")
    b.add_edge(START, "two")
    g = b.compile(checkpointer=InMemorySaver())
    with pytest.raises(ConnectionError):
        g.invoke({"log": []}, cfg())
    assert attempts["two"] == 2  # the retry policy was honoured
    snap = g.get_state(cfg())
    assert snap.values["log"] == ["one"]  # one's writes applied in the live view
    assert snap.next == ("two",)
    assert (
        snap.tasks[1].error is not None
        if snap.tasks[0].name == "one"
        else snap.tasks[0].error is not None
    )

    def two_ok(state):
        calls.append("two")
        return {"log": ["two"]}

    g.builder.nodes["two"].fn = two_ok
    g2 = g.builder.compile(checkpointer=g.checkpointer)
    calls.clear()
    assert g2.invoke(None, cfg())["log"] == ["one", "two"]
    assert calls == ["two"]


# 7 ---------------------------------------------------------------------------------------


def test_7_two_interrupts_in_one_node_and_a_sibling():
    runs = {"asker": 0, "sibling": 0}

    def asker(state):
        runs["asker"] += 1
        a = interrupt("first?")
        b = interrupt("second?")
        return {"log": [f"{a}+{b}"]}

    def sibling(state):
        runs["sibling"] += 1
        return {"log": ["sib"]}

    b = StateGraph(Log)
    b.add_node("asker", asker)
    b.add_node("sibling", sibling)
    b.add_edge(START, "asker")
    b.add_edge(START, "sibling")
    g = b.compile(checkpointer=InMemorySaver())
    out1 = g.invoke({"log": []}, cfg())
    (i1,) = out1["__interrupt__"]
    assert i1.value == "first?"
    out2 = g.invoke(Command(resume="A"), cfg())
    (i2,) = out2["__interrupt__"]
    assert i2.value == "second?"
    assert i1.id != i2.id
    out3 = g.invoke(Command(resume="B"), cfg())
    assert "__interrupt__" not in out3
    assert sorted(out3["log"]) == ["A+B", "sib"]
    assert runs == {"asker": 3, "sibling": 1}


# 8 ---------------------------------------------------------------------------------------


def test_8_parallel_interrupts_need_ids():
    def ask(name):
        def fn(state):
            return {"log": [f"{name}={interrupt(name)}"]}

        return fn

    b = StateGraph(Log)
    b.add_node("p", ask("p"))
    b.add_node("q", ask("q"))
    b.add_edge(START, "p")
    b.add_edge(START, "q")
    g = b.compile(checkpointer=InMemorySaver())
    out = g.invoke({"log": []}, cfg())
    intrs = out["__interrupt__"]
    assert [i.value for i in intrs] == ["p", "q"]
    assert len(g.get_state(cfg()).interrupts) == 2
    with pytest.raises(RuntimeError) as ei:
        g.invoke(Command(resume="x"), cfg())
    assert str(ei.value) == (  # LangGraph's words, with its docs' page
        "When there are multiple pending interrupts, you must specify the interrupt id when "
        "resuming. Docs: https://docs.langchain.com/oss/python/langgraph/"
        "interrupts#handling-multiple-interrupts."
    )
    out = g.invoke(Command(resume={intrs[0].id: "1", intrs[1].id: "2"}), cfg())
    assert out["log"] == ["p=1", "q=2"]


# 9 ---------------------------------------------------------------------------------------


def test_9_interrupt_after_star():
    g = chain(checkpointer=InMemorySaver(), interrupt_after="*")
    g.invoke({"log": []}, cfg())
    assert len(history(g)) == 3
    assert g.get_state(cfg()).next == ("y",)
    g.invoke(None, cfg())
    assert len(history(g)) == 4
    g.invoke(None, cfg())
    assert len(history(g)) == 5
    assert g.get_state(cfg()).values["log"] == ["x", "y", "z"]


def test_9b_interrupt_before_per_call_replaces_compiled():
    g = chain(checkpointer=InMemorySaver(), interrupt_before=["y"])
    out = g.invoke({"log": []}, cfg(), interrupt_before=["z"])
    assert out == {"log": ["x", "y"]}  # static breakpoints add nothing to the output
    assert g.get_state(cfg()).next == ("z",)
    assert g.invoke(None, cfg())["log"] == ["x", "y", "z"]


# 10 --------------------------------------------------------------------------------------


def test_10_new_input_while_paused_discards_pending_task():
    calls: list[str] = []
    b = StateGraph(Log)
    for n in "xyz":
        b.add_node(n, _appender(n, calls))
    b.add_edge(START, "x")
    b.add_edge("x", "y")
    b.add_edge("y", "z")
    g = b.compile(checkpointer=InMemorySaver(), interrupt_before=["y"])
    g.invoke({"log": []}, cfg())
    assert g.get_state(cfg()).next == ("y",)
    out = g.invoke({"log": ["new"]}, cfg())
    assert g.get_state(cfg()).next == ("y",)
    assert out["log"] == ["x", "new", "x"]  # the reducer keeps the old log; y never ran
    assert calls == ["x", "x"]


# 11 --------------------------------------------------------------------------------------


def test_11_update_state_as_node_recomputes_next():
    b = StateGraph(Log)
    b.add_node("x", _appender("x"))
    b.add_node("yes", _appender("yes"))
    b.add_node("no", _appender("no"))
    b.add_edge(START, "x")
    b.add_conditional_edges("x", lambda s: "yes" if "go" in s["log"] else "no", ["yes", "no"])
    g = b.compile(checkpointer=InMemorySaver(), interrupt_after=["x"])
    g.invoke({"log": []}, cfg())
    assert g.get_state(cfg()).next == ("no",)
    new_cfg = g.update_state(cfg(), {"log": ["go"]}, as_node="x")
    snap = g.get_state(cfg())
    assert snap.next == ("yes",)
    assert snap.metadata["source"] == "update"
    assert snap.config["configurable"]["checkpoint_id"] == new_cfg["configurable"]["checkpoint_id"]
    assert g.invoke(None, cfg())["log"] == ["x", "go", "yes"]


def test_11b_update_state_errors():
    b = StateGraph(Log)
    b.add_node("p", _appender("p"))
    b.add_node("q", _appender("q"))
    b.add_edge(START, "p")
    b.add_edge(START, "q")
    g = b.compile(checkpointer=InMemorySaver())
    g.invoke({"log": []}, cfg())
    with pytest.raises(InvalidUpdateError, match="Ambiguous update, specify as_node"):
        g.update_state(cfg(), {"log": ["u"]})
    with pytest.raises(InvalidUpdateError, match="Node nope does not exist"):
        g.update_state(cfg(), {"log": ["u"]}, as_node="nope")


# 12 --------------------------------------------------------------------------------------


def test_12_replay_from_past_checkpoint_forks():
    calls: list[str] = []
    b = StateGraph(Log)
    for n in "xyz":
        b.add_node(n, _appender(n, calls))
    b.add_edge(START, "x")
    b.add_edge("x", "y")
    b.add_edge("y", "z")
    g = b.compile(checkpointer=InMemorySaver())
    g.invoke({"log": []}, cfg())
    before = list(g.get_state_history(cfg()))
    past = next(s for s in before if s.next == ("y",))
    calls.clear()
    out = g.invoke(None, past.config)
    assert out["log"] == ["x", "y", "z"]
    assert calls == ["y", "z"]
    after = list(g.get_state_history(cfg()))
    assert len(after) == len(before) + 3  # fork + y + z
    new = [
        s
        for s in after
        if s.config["configurable"]["checkpoint_id"]
        not in {b.config["configurable"]["checkpoint_id"] for b in before}
    ]
    assert [s.metadata["source"] for s in new] == ["loop", "loop", "fork"]
    fork = new[-1]
    assert fork.metadata["step"] == past.metadata["step"] + 1
    assert (
        fork.parent_config["configurable"]["checkpoint_id"]
        == past.config["configurable"]["checkpoint_id"]
    )
    # the old branch is preserved
    old_ids = {s.config["configurable"]["checkpoint_id"] for s in before}
    assert old_ids <= {s.config["configurable"]["checkpoint_id"] for s in after}
    # the thread's tip is the new branch
    assert (
        g.get_state(cfg()).config["configurable"]["checkpoint_id"]
        == new[0].config["configurable"]["checkpoint_id"]
    )


def test_12b_replaying_a_finished_checkpoint_is_a_noop():
    g = chain(checkpointer=InMemorySaver())
    g.invoke({"log": []}, cfg())
    final = g.get_state(cfg())
    n = len(history(g))
    assert g.invoke(None, final.config)["log"] == ["x", "y", "z"]
    assert len(history(g)) == n
