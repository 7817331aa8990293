"""The history keeps what each step's tasks did (LangGraph keeps pending writes): results,
errors and interrupts per task, update_state results under the task that was due, and a
replay that asks a step's questions again."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.graph import Command, Send, StateUpdate, interrupt


class S(TypedDict):
    num: int
    text: str


def _double_graph():  # type: ignore[no-untyped-def]
    def double(state: S) -> dict[str, Any]:
        return {"num": state["num"] * 2, "text": state["text"] * 2}

    return (
        StateGraph(S)
        .add_node("double", double)
        .add_edge(START, "double")
        .compile(checkpointer=InMemorySaver())
    )


def _results(history: list[Any]) -> dict[str, Any]:
    return {t.name: t.result for snap in history for t in snap.tasks}


def test_every_past_step_shows_its_tasks_results() -> None:
    graph = _double_graph()
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"num": 1, "text": "one"}, cfg)
    history = list(graph.get_state_history(cfg))
    assert _results(history) == {
        "__start__": {"num": 1, "text": "one"},
        "double": {"num": 2, "text": "oneone"},
    }
    assert [t.path for snap in history for t in snap.tasks] == [
        ("__pregel_pull", "double"),
        ("__pregel_pull", "__start__"),
    ]


def test_bulk_updates_fill_the_results_of_the_tasks_that_were_due() -> None:
    graph = _double_graph()
    cfg = {"configurable": {"thread_id": "bulk"}}
    graph.bulk_update_state(
        cfg,
        [
            [StateUpdate(values={}, as_node="__input__")],
            [StateUpdate(values={"num": 1, "text": "one"}, as_node="__start__")],
            [StateUpdate(values={"num": 2, "text": "oneone"}, as_node="double")],
        ],
    )
    assert _results(list(graph.get_state_history(cfg))) == {
        "__start__": {"num": 1, "text": "one"},
        "double": {"num": 2, "text": "oneone"},
    }


def test_copy_with_updates_is_a_sibling_branch_that_runs_on() -> None:
    class Name(TypedDict):
        name: Annotated[str, lambda a, b: f"{a} > {b}" if a else b]

    graph = (
        StateGraph(Name)
        .add_node("one", lambda s: {"name": "one"})
        .add_edge(START, "one")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"name": "start"}, cfg)
    first = list(graph.get_state_history(cfg))[-1]  # the input checkpoint
    forked = graph.update_state(
        first.config, [StateUpdate({"name": "start*"}, "__start__")], as_node="__copy__"
    )
    assert graph.invoke(None, forked) == {"name": "start* > one"}
    history = list(graph.get_state_history(cfg))
    roots = [s for s in history if s.parent_config is None]
    assert len(roots) == 2 and {s.metadata["source"] for s in roots} == {"input", "fork"}
    fork = next(s for s in roots if s.metadata["source"] == "fork")
    assert [t.result for t in fork.tasks] == [{"name": "start*"}]


def test_a_task_writing_a_key_twice_shows_both_writes() -> None:
    class Joined(TypedDict):
        foo: Annotated[str, lambda a, b: ", ".join(x for x in (a, b) if x)]

    def twice(state: Joined) -> list[Command]:
        return [Command(update={"foo": "a"}), Command(update={"foo": "b"})]

    graph = (
        StateGraph(Joined)
        .add_node("twice", twice)
        .add_edge(START, "twice")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"foo": ""}, cfg) == {"foo": "a, b"}
    assert _results(list(graph.get_state_history(cfg)))["twice"] == {"foo": {"$writes": ["a", "b"]}}


def test_a_single_value_state_shows_the_value_as_result_and_sends_show_push_paths() -> None:
    graph = StateGraph(Annotated[list, operator.add])
    graph.add_node("fan", lambda s: ["fan"])
    graph.add_node("leaf", lambda s: [f"leaf{s}"])
    graph.add_edge(START, "fan")
    graph.add_conditional_edges("fan", lambda s: [Send("leaf", 1), Send("leaf", 2)])
    app = graph.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    assert app.invoke(["0"], cfg) == ["0", "fan", "leaf1", "leaf2"]
    leaf_step = next(s for s in app.get_state_history(cfg) if s.next == ("leaf", "leaf"))
    assert [(t.path, t.result) for t in leaf_step.tasks] == [
        (("__pregel_push", 0, False), ["leaf1"]),
        (("__pregel_push", 1, False), ["leaf2"]),
    ]


def test_a_past_interrupted_step_keeps_its_interrupts_after_the_resume() -> None:
    def ask(state: S) -> dict[str, Any]:
        return {"text": interrupt("name?")}

    graph = (
        StateGraph(S)
        .add_node("ask", ask)
        .add_edge(START, "ask")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"num": 1, "text": ""}, cfg)
    graph.invoke(Command(resume="bob"), cfg)
    assert graph.get_state(cfg).interrupts == ()
    asked = next(s for s in graph.get_state_history(cfg) if s.next == ("ask",))
    assert [i.value for i in asked.interrupts] == ["name?"]
    assert asked.tasks[0].result == {"text": "bob"}


class V(TypedDict):
    value: Annotated[list[str], operator.add]


def test_replaying_a_subgraph_checkpoint_asks_answered_questions_again() -> None:
    sub = (
        StateGraph(V)
        .add_node("a", lambda s: {"value": [f"a:{interrupt('a')}"]})
        .add_node("b", lambda s: {"value": [f"b:{interrupt('b')}"]})
        .add_edge(START, "a")
        .add_edge(START, "b")
        .compile(checkpointer=True)
    )
    graph = (
        StateGraph(V)
        .add_node("sub", sub)
        .add_edge(START, "sub")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "t"}}

    def head() -> Any:
        return graph.get_state(cfg, subgraphs=True).tasks[0].state.config

    graph.invoke({"value": []}, cfg)
    graph.update_state(head(), {"value": ["u"]}, as_node="__start__")
    asked = graph.invoke(None, cfg)["__interrupt__"]
    graph.invoke(Command(resume={next(i.id for i in asked if i.value == "a"): "yes"}), cfg)
    replay = graph.invoke(None, head())
    assert sorted(i.value for i in replay["__interrupt__"]) == ["a", "b"]


def test_a_node_shows_its_callable_as_langgraph_does() -> None:
    class Counter:
        ticks = 0

        def __call__(self, state: S) -> dict[str, Any]:
            self.ticks += 1
            return {}

    async def later(state: S) -> dict[str, Any]:
        return {}

    builder = StateGraph(S).add_node("count", Counter()).add_node("later", later)
    builder.add_edge(START, "count")
    builder.compile().invoke({"num": 0, "text": ""})
    assert builder.nodes["count"].runnable.func.ticks == 1
    assert builder.nodes["later"].runnable.afunc is later
    assert builder.nodes["later"].runnable.func is None


def test_after_an_update_and_a_run_the_last_writer_is_the_node_that_ran() -> None:
    class Chain(TypedDict):
        d: Annotated[list[str], operator.add]
        x: str

    graph = (
        StateGraph(Chain)
        .add_node("a", lambda s: {"d": ["a"]})
        .add_node("b", lambda s: {"x": "b"})
        .add_edge(START, "a")
        .add_edge("a", "b")
        .compile(checkpointer=InMemorySaver())
    )
    cfg = {"configurable": {"thread_id": "t"}}
    graph.update_state(cfg, {"d": ["u"]}, as_node="a")
    graph.invoke(None, cfg, interrupt_after=["b"])
    graph.update_state(cfg, {"x": "u"})  # as b, the node that wrote last
    assert graph.get_state(cfg).values == {"d": ["u"], "x": "u"}
    assert graph.get_state(cfg).next == ()
