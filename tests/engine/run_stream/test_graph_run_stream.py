"""``stream_events(version="v3")`` on a plain graph: the event log, values, output, transformers."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from engine.graph import END, START, StateGraph, StreamChannel, StreamTransformer
from engine.graph.run_stream import ProtocolEvent


class S(TypedDict):
    x: int


def _graph(fail: bool = False, transformers: tuple[Any, ...] = ()) -> Any:
    def add(s: S) -> dict[str, int]:
        if fail:
            raise ValueError("broken node")
        return {"x": s["x"] + 1}

    g = StateGraph(S)
    g.add_node("add", add)
    g.add_edge(START, "add")
    g.add_edge("add", END)
    return g.compile(transformers=transformers)


class _Counter(StreamTransformer):
    """Counts the ``updates`` events it sees into a projection; drops ``custom`` ones."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.log: StreamChannel[int] = StreamChannel()
        self.n = 0

    def init(self) -> dict[str, Any]:
        return {"counts": self.log}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == "updates":
            self.n += 1
            self.log.push(self.n)
        return event["method"] != "custom"


def test_the_event_log_holds_every_mode_in_order() -> None:
    run = _graph().stream_events({"x": 1}, version="v3")
    events = list(run)
    assert [e["method"] for e in events] == ["values", "tasks", "updates", "tasks", "values"]
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert events[2]["params"]["data"] == {"add": {"x": 2}}
    assert all(e["type"] == "event" and e["params"]["namespace"] == [] for e in events)


def test_projections_can_be_read_one_after_another() -> None:
    run = _graph().stream_events({"x": 1}, version="v3")
    assert list(run.values) == [{"x": 1}, {"x": 2}]
    assert len(list(run)) == 5  # the log is still readable from its start
    assert run.output == {"x": 2}


def test_a_graphs_own_transformers_register_after_the_builtins() -> None:
    run = _graph(transformers=(_Counter,)).stream_events({"x": 1}, version="v3")
    assert list(run.counts) == [1]
    assert "counts" in run.extensions
    names = [type(t).__name__ for t in run._mux.transformers]
    assert names.index("MessagesTransformer") < names.index("_Counter")


def test_transformers_given_at_call_time_join_the_graphs() -> None:
    run = _graph().stream_events({"x": 1}, version="v3", transformers=[_Counter])
    assert list(run.counts) == [1]


def test_a_failing_run_fails_every_projection_after_what_arrived() -> None:
    run = _graph(fail=True).stream_events({"x": 1}, version="v3")
    seen: list[Any] = []
    with pytest.raises(ValueError, match="broken node"):
        for v in run.values:
            seen.append(v)
    assert seen == [{"x": 1}]
    with pytest.raises(ValueError, match="broken node"):
        list(run)


def test_an_unknown_projection_is_an_attribute_error() -> None:
    run = _graph().stream_events({"x": 1}, version="v3")
    with pytest.raises(AttributeError, match="no_such"):
        _ = run.no_such


def test_interleave_yields_each_projection_as_it_arrives() -> None:
    run = _graph(transformers=(_Counter,)).stream_events({"x": 1}, version="v3")
    got = list(run.interleave("values", "counts"))
    assert sorted(n for n, _ in got) == ["counts", "values", "values"]


async def test_the_async_run_stream_reads_with_async_for() -> None:
    run = await _graph().astream_events({"x": 1}, version="v3")
    assert [v async for v in run.values] == [{"x": 1}, {"x": 2}]
    assert await run.output() == {"x": 2}
    fresh = await _graph().astream_events({"x": 1}, version="v3")
    with pytest.raises(TypeError, match="async for"):
        list(fresh.values)  # nothing arrived yet: a sync read cannot move an async run


def test_other_versions_still_stream_langchain_event_dicts() -> None:
    events = list(_graph().stream_events({"x": 1}, version="v2"))
    assert events[0]["event"] == "on_chain_start"


def _interrupting() -> Any:
    from engine.checkpoint import InMemorySaver
    from engine.graph import interrupt

    def ask(s: S) -> dict[str, int]:
        return {"x": int(interrupt("how many?"))}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=InMemorySaver())


def test_a_run_stopped_at_an_interrupt_says_so() -> None:
    graph = _interrupting()
    cfg = {"configurable": {"thread_id": "t1"}}
    run = graph.stream_events({"x": 1}, cfg, version="v3")
    assert run.interrupted is True
    assert [i.value for i in run.interrupts] == ["how many?"]
    assert run.output == {"x": 1}
    done = _graph().stream_events({"x": 1}, version="v3")
    assert done.interrupted is False and done.interrupts == []


def test_abort_ends_every_projection() -> None:
    run = _graph().stream_events({"x": 1}, version="v3")
    first = next(iter(run.values))
    run.abort()
    assert first == {"x": 1}
    assert list(run.values) == [{"x": 1}]  # what arrived stays; nothing more comes
    with _graph().stream_events({"x": 1}, version="v3") as run2:
        next(iter(run2))


async def test_async_interrupts_and_abort() -> None:
    graph = _interrupting()
    run = await graph.astream_events({"x": 1}, {"configurable": {"thread_id": "t2"}}, version="v3")
    assert await run.interrupted() is True
    assert [i.value for i in await run.interrupts()] == ["how many?"]
    async with await _graph().astream_events({"x": 1}, version="v3") as run2:
        async for v in run2.values:
            assert v == {"x": 1}
            break  # leaving early: the context manager aborts the rest


def test_a_subgraph_node_is_a_handle_with_its_own_projections() -> None:
    inner = _graph()
    g = StateGraph(S)
    g.add_node("child", inner)
    g.add_edge(START, "child")
    g.add_edge("child", END)
    run = g.compile().stream_events({"x": 1}, version="v3")
    handles = list(run.subgraphs)
    assert [(h.graph_name, h.status) for h in handles] == [("child", "completed")]
    assert handles[0].namespace[0].startswith("child:")
    assert list(handles[0].values) == [{"x": 1}, {"x": 2}]  # its input values included
    assert all(e["params"]["namespace"][:1] == handles[0].namespace for e in handles[0])
    assert run.output == {"x": 2}
