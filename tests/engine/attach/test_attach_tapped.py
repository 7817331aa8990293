"""A sync attached run takes its nested graphs' parts and the app's stream writes where they
are made (``engine.attach.tapped``) instead of asking LangGraph for ``subgraphs=True`` and the
``custom`` mode, which make it hand every task to its thread pool: the events are the very ones
the ``astream`` run (which asks for both) shows, for every shape that runs a graph inside a
graph, and a lone task runs on the stream's own thread, as in the app's own ``invoke``."""

from __future__ import annotations

import asyncio
import json
import operator
import threading
from collections import Counter
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.pregel import Pregel
from langgraph.types import interrupt

from engine.attach import attach
from engine.events import EventBase
from engine.serde import to_jsonable
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import weather
from tests.engine.attach.test_attach_stream_modes import _UUID, _VARYING, ToolModel


class S(TypedDict, total=False):
    n: int
    notes: Annotated[list[str], operator.add]
    answer: str


def _inner() -> StateGraph:
    def double(s: S) -> dict[str, Any]:
        get_stream_writer()({"inner": s["n"]})
        return {"n": s["n"] * 2, "notes": ["doubled"]}

    def more(s: S) -> dict[str, Any]:
        return {"n": s["n"] + 1, "notes": ["more"]}

    g = StateGraph(S)
    g.add_node("double", double).add_node("more", more)
    g.add_edge(START, "double").add_edge("double", "more").add_edge("more", END)
    return g


def _root(middle: Any, saver: bool = True) -> Any:
    def first(s: S) -> dict[str, Any]:
        get_stream_writer()({"root": s["n"]})
        return {"n": s["n"] + 1}

    g = StateGraph(S)
    g.add_node("first", first).add_node("middle", middle)
    g.add_edge(START, "first").add_edge("first", "middle").add_edge("middle", END)
    return g.compile(checkpointer=InMemorySaver() if saver else None)


def static_subgraph(saver: bool = True) -> Any:
    return _root(_inner().compile(), saver)


def graph_called_in_a_node() -> Any:
    def middle(s: S) -> dict[str, Any]:
        made = _inner().compile()  # made in the node: LangGraph cannot see it in advance
        out = made.invoke({"n": s["n"]})
        return {"n": out["n"], "notes": out["notes"]}

    return _root(middle)


def agent_in_a_node() -> Any:
    def middle(s: S) -> dict[str, Any]:
        model = ToolModel(
            messages=iter(
                [
                    AIMessage(
                        "", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c0"}]
                    ),
                    AIMessage("Sunny."),
                ]
            )
        )
        agent = lc_create_agent(model, tools=[weather])  # a sync tool
        out = agent.invoke({"messages": [("user", "weather?")]})
        return {"answer": str(out["messages"][-1].content)}

    return _root(middle)


def interrupted_subgraph() -> Any:
    def ask(s: S) -> dict[str, Any]:
        return {"answer": str(interrupt({"n": s["n"]}))}

    inner = StateGraph(S)
    inner.add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    return _root(inner.compile())


def _events(make: Any, inputs: list[Any], *, sync: bool) -> list[EventBase]:
    """The events of the runs, to a subscriber (a debugger or ``astream_events`` translates a
    sync run's stream on the loop instead: not tapped)."""
    g = attach(make(), sync=sync)
    events: list[EventBase] = []
    g.subscribe(events.append)
    for inp in inputs:
        g.invoke(inp, {"configurable": {"thread_id": "t"}})
    return events


_SHAPES = [
    (static_subgraph, [{"n": 1}]),
    (graph_called_in_a_node, [{"n": 1}]),
    (agent_in_a_node, [{"n": 1}]),
    (interrupted_subgraph, [{"n": 1}, Command(resume="yes")]),
]
_IDS = ["subgraph-node", "graph-made-in-a-node", "agent-in-a-node", "subgraph-interrupt-and-resume"]


def _content(
    events: list[EventBase], *, order_free: bool = False, custom_as_streamed: bool = False
) -> Counter[str]:
    """What the events say, whatever their order and ids (the supersteps' spans aside): a
    span named by the event that opened it, a request's base by its rank among the requests.
    ``order_free``: also whatever order parallel nodes wrote in.  ``custom_as_streamed``: an
    app's stream write said as LangGraph's ``custom`` stream can say it (its graph, not its
    node: what ``astream`` shows); a tapped write also names its node (``_custom_named``)."""
    requests = [e.seq for e in events if e.kind == "model.request"]
    opened: dict[str, str] = {}
    for e in events:
        span = getattr(e, "span_id", None)
        if isinstance(span, str) and span not in opened:
            name = getattr(e, "node", None) or getattr(e, "tool", None) or getattr(e, "model", "")
            opened[span] = f"{e.kind} {e.ns.split(':')[0]} {e.step} {name}"
    out: Counter[str] = Counter()
    for e in events:
        if e.kind.startswith("superstep."):
            continue
        fields = {k: v for k, v in e.__dict__.items() if k not in _VARYING and v is not None}
        fields.pop("span_id", None)
        parent = fields.pop("parent_span_id", None)
        fields["under"] = opened.get(parent, "the run") if parent != e.run_id else "the run"
        if fields.get("messages_base") in requests:
            fields["messages_base"] = f"request {requests.index(fields['messages_base'])}"
        if order_free and "writer_nodes" in fields:
            fields["writer_nodes"] = sorted(fields["writer_nodes"])
        if custom_as_streamed and e.kind == "custom":
            fields["node"], fields["under"] = "", "the run"
        out[_UUID.sub("<id>", json.dumps(to_jsonable(fields), sort_keys=True))] += 1
    return out


def _custom_named(events: list[EventBase]) -> None:
    """Each stream write of a tapped run names the node that wrote it and comes under it."""
    nodes = {e.span_id: e.__dict__["node"] for e in events if e.kind == "node.started"}
    for e in events:
        if e.kind == "custom":
            assert e.__dict__["node"] and nodes.get(e.parent_span_id or "") == e.__dict__["node"]


def _well_nested(events: list[EventBase]) -> None:
    """Each graph's supersteps open once and close once, in turn, and what a superstep holds
    (its nodes, its checkpoint) comes between its start and its end; a nested graph's events
    come while the node running it is open."""
    at: dict[tuple[str, str, str, int | None], list[int]] = {}
    for i, e in enumerate(events):
        at.setdefault((e.run_id, e.kind, e.ns, e.step), []).append(i)
    for (run, kind, ns, step), started in at.items():
        if kind != "superstep.started":
            continue
        finished = at.get((run, "superstep.finished", ns, step), [])
        assert len(started) == 1 and len(finished) == 1, (ns, step)
        inside = [
            i
            for k in ("node.started", "node.finished", "checkpoint.saved")
            for i in at.get((run, k, ns, step), [])
        ]
        assert all(started[0] < i < finished[0] for i in inside), (ns, step)
    for i, e in enumerate(events):
        if e.kind == "node.started" and not e.ns and e.node == "middle":
            end = next(j for j in range(i, len(events)) if events[j].kind == "node.finished"
                       and events[j].span_id == e.span_id)  # fmt: skip
            nested = [
                j
                for j, n in enumerate(events)
                if n.ns.startswith("middle:")
                and n.run_id == e.run_id
                and n.kind != "interrupt.resumed"  # said as the run starts
            ]
            assert nested and all(i < j < end for j in nested)


@pytest.mark.parametrize(("make", "inputs"), _SHAPES, ids=_IDS)
def test_a_tapped_sync_run_says_what_astream_says_each_in_its_place(
    make: Any, inputs: list[Any]
) -> None:
    """The same events as ``astream``, each where it happened: both are tapped (the sync
    stream on the thread that made each part, ``astream`` on the loop before anything
    after it), where ``subgraphs=True`` hands a nested graph's parts over only when the
    root's stream gets to them, after the nested graph went on."""
    on_thread = _events(make, inputs, sync=True)
    on_loop = _events(make, inputs, sync=False)
    assert _content(on_thread) == _content(on_loop)
    assert any(e.ns for e in on_thread)  # the nested graph's own events are there
    for events in (on_thread, on_loop):
        _well_nested(events)
        _custom_named(events)


def test_without_a_checkpointer_a_nested_superstep_shows_its_own_changes() -> None:
    """There each ``values`` part of the nested graph ends one of its supersteps, as it comes
    (``astream`` hands them over late: each change under the superstep after its own)."""
    events = _events(lambda: static_subgraph(saver=False), [{"n": 1}], sync=True)
    _well_nested(events)
    nested = [(e.step, e.changes[0]["value"]) for e in events if e.kind == "state.updated" and e.ns]
    assert nested == [(None, 2), (1, 4), (2, 5)]


def test_the_sync_stream_is_not_asked_for_subgraphs_nor_custom(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[tuple[Any, Any]] = []
    real = Pregel.stream

    def stream(self: Any, *args: Any, **kw: Any) -> Any:
        asked.append((kw.get("subgraphs"), kw.get("stream_mode")))
        return real(self, *args, **kw)

    monkeypatch.setattr(Pregel, "stream", stream)
    events = _events(static_subgraph, [{"n": 1}], sync=True)
    root_subgraphs, root_modes = asked[0]
    assert root_subgraphs is False and "custom" not in root_modes
    custom = [(e.ns, e.data) for e in events if e.kind == "custom"]
    assert custom == [("", {"root": 1}), (custom[1][0], {"inner": 2})]
    assert custom[1][0].startswith("middle:")  # the nested graph's write, in its scope


def test_a_lone_task_runs_on_the_stream_thread_as_in_the_apps_invoke() -> None:
    ran_on: list[str] = []

    def first(s: S) -> dict[str, Any]:
        ran_on.append(threading.current_thread().name)
        return {"n": s["n"] + 1}

    g = StateGraph(S)
    g.add_node("first", first).add_edge(START, "first").add_edge("first", END)
    attached = attach(g.compile(checkpointer=InMemorySaver()), sync=True)
    attached.invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
    assert ran_on == ["stepwise-attach"]  # not one of LangGraph's pool threads


def test_an_agent_in_a_node_shows_its_calls_under_that_node() -> None:
    events = _events(agent_in_a_node, [{"n": 1}], sync=True)
    by_span = {getattr(e, "span_id", None): e for e in events}
    (middle,) = [e for e in events if e.kind == "node.started" and e.node == "middle"]

    def under_middle(e: EventBase) -> bool:
        parent = e.parent_span_id
        while parent is not None and parent != middle.span_id:
            above = by_span.get(parent)
            parent = None if above is None else above.parent_span_id
        return parent == middle.span_id

    calls = [e for e in events if e.kind in ("model.request", "tool.started")]
    assert Counter(e.kind for e in calls) == {"model.request": 2, "tool.started": 1}
    assert all(under_middle(e) for e in calls)


class Notes(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def _noting() -> Any:
    g = StateGraph(Notes)
    g.add_node("a", lambda s: {"notes": ["a"]}).add_node("b", lambda s: {"notes": ["b"]})
    g.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    return g.compile()


def test_parallel_subgraphs_tapped_on_pool_threads_lose_nothing() -> None:
    g = StateGraph(S)
    g.add_node("left", _noting()).add_node("right", _noting())
    g.add_edge(START, "left").add_edge(START, "right")
    g.add_edge("left", END).add_edge("right", END)

    def make() -> Any:
        return g.compile(checkpointer=InMemorySaver())

    on_thread = _events(make, [{"n": 1}], sync=True)
    on_loop = _events(make, [{"n": 1}], sync=False)
    assert _content(on_thread, order_free=True) == _content(on_loop, order_free=True)
    for events in (on_thread, on_loop):
        _well_nested(events)
        _custom_named(events)
    _well_nested(on_thread)
    assert sum(1 for e in on_thread if e.kind == "checkpoint.saved" and e.ns) >= 6


def test_a_subgraph_with_a_sqlite_saver_shows_each_checkpoint_the_saver_holds(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LangGraph's ``SqliteSaver`` (sync only: a sync run, tapped) keeps the subgraph's own
    checkpoints: each one shown is read back from the app's database, and the events say what
    the stream LangGraph was asked for ``subgraphs=True`` says."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    import engine.attach.run_stream as attach_stream

    def run(db: str) -> tuple[list[EventBase], Any]:
        saver = SqliteSaver(sqlite3.connect(str(tmp_path / db), check_same_thread=False))
        graph = _root(_inner().compile())
        graph = graph.copy(update={"checkpointer": saver})
        g = attach(graph)
        assert g.sync
        events: list[EventBase] = []
        g.subscribe(events.append)
        g.invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
        return events, saver

    events, saver = run("tapped.db")
    nested = [e for e in events if e.kind == "checkpoint.saved" and e.ns]
    assert len(nested) == 4  # the input, its start, and a checkpoint per node
    for e in nested:
        conf = {
            "thread_id": "t",
            "checkpoint_ns": e.checkpoint_ns,
            "checkpoint_id": e.checkpoint_id,
        }
        assert saver.get_tuple({"configurable": conf}) is not None
    _well_nested(events)
    monkeypatch.setattr(attach_stream, "can_tap", lambda config: False)
    untapped, _ = run("untapped.db")
    assert _content(events, custom_as_streamed=True) == _content(untapped)
    _custom_named(events)
    # the nested graph's input checkpoint comes under the node that runs it, not the run
    nodes = {e.span_id: e for e in events if e.kind == "node.started"}
    [first] = [e for e in nested if e.__dict__["source"] == "input"]
    owner = nodes.get(first.parent_span_id or "")
    assert owner is not None and first.ns.startswith(owner.__dict__["node"] + ":")


def test_a_tapped_run_keeps_the_graphs_store() -> None:
    """LangGraph takes a run's store from the runtime it is given, when it is given one: the
    tapped runtime carries the graph's own (a node reading its store found None)."""
    from langgraph.store.base import BaseStore
    from langgraph.store.memory import InMemoryStore

    def remember(state: S, *, store: BaseStore) -> dict[str, Any]:
        store.put(("notes",), str(state["n"]), {"n": state["n"]})
        return {"n": len(store.search(("notes",)))}

    g = StateGraph(S).add_node("remember", remember)
    graph = g.add_edge(START, "remember").compile(
        checkpointer=InMemorySaver(), store=InMemoryStore()
    )
    attached = attach(graph)
    events: list[EventBase] = []
    attached.subscribe(events.append)
    out = attached.invoke({"n": 7}, {"configurable": {"thread_id": "t"}})
    assert out["n"] == 1
    out = asyncio.run(attached.ainvoke({"n": 8}, {"configurable": {"thread_id": "t"}}))
    assert out["n"] == 2
