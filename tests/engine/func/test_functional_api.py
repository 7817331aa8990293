"""The functional API: @entrypoint workflows and @task calls on the Pregel runtime."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from engine import Command, entrypoint, interrupt, task
from engine.checkpoint import InMemorySaver
from engine.events import NodeFinished, NodeStarted


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def test_tasks_run_in_parallel_and_are_not_rerun_on_resume() -> None:
    calls: list[str] = []
    lock = threading.Lock()

    @task
    def shout(word: str) -> str:
        with lock:
            calls.append(word)
        return word.upper()

    @entrypoint(checkpointer=InMemorySaver())
    def greet(words: list[str]) -> str:
        loud = [f.result() for f in [shout(w) for w in words]]
        punct = interrupt("which punctuation?")
        return " ".join(loud) + punct

    cfg = _thread("greet")
    first = greet.invoke(["hey", "you"], cfg)
    assert first["__interrupt__"][0].value == "which punctuation?"
    assert sorted(calls) == ["hey", "you"]
    assert greet.invoke(Command(resume="!"), cfg) == "HEY YOU!"
    assert sorted(calls) == ["hey", "you"]  # checkpointed results were reused
    assert greet.get_state(cfg).values == "HEY YOU!"


def test_updates_stream_names_each_task_then_the_entrypoint() -> None:
    @task
    def inc(n: int) -> int:
        return n + 1

    @entrypoint()
    def chain(n: int) -> int:
        return inc(inc(n).result()).result()

    assert list(chain.stream(1)) == [{"inc": 2}, {"inc": 3}, {"chain": 3}]


def test_interrupt_inside_a_task_resumes_that_task_only() -> None:
    runs: list[str] = []

    @task
    def ask(q: str) -> str:
        runs.append(q)
        return interrupt(q)

    @entrypoint(checkpointer=InMemorySaver())
    def survey(n: int) -> list[str]:
        return [ask(f"q{i}").result() for i in range(n)]

    cfg = _thread("survey")
    out = survey.invoke(2, cfg)
    assert [i.value for i in out["__interrupt__"]] == ["q0"]
    out = survey.invoke(Command(resume="a0"), cfg)
    assert [i.value for i in out["__interrupt__"]] == ["q1"]
    assert survey.invoke(Command(resume="a1"), cfg) == ["a0", "a1"]


def test_interrupt_from_a_task_is_streamed_once() -> None:
    @task
    def gate() -> str:
        return interrupt("open?")

    @entrypoint(checkpointer=InMemorySaver())
    def flow(_: Any) -> str:
        return gate().result()

    chunks = list(flow.stream({}, _thread("once")))
    assert [c for c in chunks if "__interrupt__" in c] == chunks[-1:]


def test_previous_and_final_save_a_different_value() -> None:
    seen: list[Any] = []

    @entrypoint(checkpointer=InMemorySaver())
    def counter(step: int, *, previous: Any = None) -> entrypoint.final[int, int]:
        seen.append(previous)
        total = (previous or 0) + step
        return entrypoint.final(value=total * 10, save=total)

    cfg = _thread("counter")
    assert counter.invoke(1, cfg) == 10
    assert counter.invoke(2, cfg) == 30
    assert seen == [None, 1]


def test_update_state_sets_previous() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def echo(x: int, *, previous: Any = None) -> Any:
        return {"x": x, "before": previous}

    cfg = _thread("echo")
    echo.update_state(cfg, "seed")
    assert echo.invoke(1, cfg) == {"x": 1, "before": "seed"}


def test_async_tasks_are_awaitable_and_cancellable() -> None:
    started: list[int] = []

    @task
    async def slow(n: int) -> int:
        started.append(n)
        await asyncio.sleep(0 if n == 0 else 5)
        return n

    @entrypoint()
    async def pick(_: Any) -> int:
        fast, lagging = slow(0), slow(1)
        await asyncio.sleep(0.01)
        assert lagging.cancel()
        return await fast

    assert asyncio.run(pick.ainvoke({})) == 0
    assert sorted(started) == [0, 1]


def test_task_failure_reaches_the_caller() -> None:
    @task
    def boom() -> None:
        raise KeyError("nope")

    @entrypoint()
    def guarded(_: Any) -> str:
        try:
            boom().result()
        except KeyError:
            return "caught"
        return "missed"

    assert guarded.invoke({}) == "caught"


def test_every_task_call_is_a_node_span() -> None:
    @task
    def double(n: int) -> int:
        return n * 2

    @entrypoint()
    def twice(n: int) -> int:
        return double(double(n).result()).result()

    events = list(twice.stream_events(3, version="stepwise"))
    started = [e.node for e in events if isinstance(e, NodeStarted)]
    finished = [e for e in events if isinstance(e, NodeFinished)]
    assert started == ["twice", "double", "double"]
    assert all(e.status == "ok" for e in finished)
    spans = {e.span_id: e for e in events if isinstance(e, NodeStarted)}
    child = next(e for e in spans.values() if e.node == "double")
    assert spans[child.parent_span_id].node == "twice"


def test_injected_parameters_and_explicit_overrides() -> None:
    store_seen: list[Any] = []

    @task
    def note(value: Any, store: Any = "unset") -> None:
        store_seen.append(store)

    @entrypoint(store="the-store")
    def main(_: Any, *, config: dict[str, Any], store: Any) -> str:
        note(1).result()
        note(2, store=None).result()
        return config["configurable"]["checkpoint_ns"].split(":")[0]

    assert main.invoke({}) == "main"
    assert store_seen == ["the-store", None]


def test_calling_a_task_outside_a_graph_is_an_error() -> None:
    @task
    def lonely() -> int:
        return 1

    with pytest.raises(RuntimeError, match="outside of a running graph"):
        lonely()


def test_generators_are_rejected() -> None:
    with pytest.raises(NotImplementedError):

        @entrypoint()
        def gen(_: Any):  # pragma: no cover - never runs
            yield 1


def test_graph_shape_for_the_studio() -> None:
    @entrypoint()
    def shape(x: int) -> int:
        return x

    g = shape.get_graph()
    assert set(g.nodes) == {"__start__", "shape", "__end__"}
    assert {(e.source, e.target) for e in g.edges} == {
        ("__start__", "shape"),
        ("shape", "__end__"),
    }
    assert shape.get_input_jsonschema() == {"type": "integer", "title": "LangGraphInput"}


def test_graph_nodes_can_call_tasks_under_sync_invoke() -> None:
    from typing import TypedDict

    from engine import START, StateGraph

    class Counter(TypedDict):
        n: int

    @task
    def bump(n: int) -> int:
        return n + 1

    def node(state: Counter) -> Counter:
        return {"n": bump(state["n"]).result()}

    graph = StateGraph(Counter).add_node("node", node).add_edge(START, "node").compile()
    assert graph.invoke({"n": 1}) == {"n": 2}
    assert list(graph.stream({"n": 1})) == [{"bump": 2}, {"node": {"n": 2}}]


def test_an_interrupt_on_a_thread_that_finished_before_keeps_its_dict_result() -> None:
    # LangGraph's invoke returns the last values (the thread's previous result, when a dict)
    # with the interrupts, as its values stream shows them
    @entrypoint(checkpointer=InMemorySaver())
    def review(topic: str) -> Any:
        ok = interrupt(f"approve {topic}?")
        return {"topic": topic, "ok": ok} if ok else len(topic)

    cfg = _thread("review")
    first = review.invoke("cat", cfg)
    assert list(first) == ["__interrupt__"]
    assert review.invoke(Command(resume=True), cfg) == {"topic": "cat", "ok": True}
    second = review.invoke("dog", cfg)
    assert second["topic"] == "cat" and second["ok"] is True
    assert [i.value for i in second["__interrupt__"]] == ["approve dog?"]
    assert review.invoke(Command(resume=False), cfg) == 3
    third = review.invoke("bird", cfg)  # the last result is not a dict: the interrupts alone
    assert list(third) == ["__interrupt__"]
