"""Subgraph mechanics: namespaces, nested streams and state, interrupts through a node that
calls a graph, checkpointer=True subgraphs, detection, DeltaChannel, and the events the
studio uses to drill into a subgraph."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.events import CheckpointSaved, EventBase, NodeStarted
from engine.graph import (
    END,
    START,
    Command,
    DeltaChannel,
    MessagesState,
    StateGraph,
    interrupt,
)
from engine.graph.subgraph import stable_ns, strip_task_ids
from engine.graph.subgraph_detect import find_subgraph
from engine.messages import HumanMessage


class Trail(TypedDict):
    trail: Annotated[list[str], operator.add]


def _cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _leaf(tag: str, *, checkpointer: Any = None) -> Any:
    b = StateGraph(Trail)
    b.add_node(tag, lambda s: {"trail": [tag]})
    b.add_edge(START, tag)
    return b.compile(checkpointer=checkpointer)


def test_namespace_helpers() -> None:
    assert stable_ns("outer:1a|inner:2b") == "outer|inner"
    assert stable_ns("outer:1a|3") == "outer|3"
    assert strip_task_ids("outer:1a|3|inner:9") == "outer|inner"
    assert stable_ns("") == ""


def test_stream_tags_chunks_of_a_graph_a_node_calls() -> None:
    kid = _leaf("kid_step")

    def caller(state: Trail) -> dict[str, Any]:
        out = kid.invoke({"trail": []})
        return {"trail": [f"kid said {out['trail']}"]}

    g = StateGraph(Trail).add_node("caller", caller).add_edge(START, "caller").compile()
    chunks = list(g.stream({"trail": []}, subgraphs=True))
    assert chunks[0][0][0].startswith("caller:")
    assert chunks[0][1] == {"kid_step": {"trail": ["kid_step"]}}
    assert chunks[-1] == ((), {"caller": {"trail": ["kid said ['kid_step']"]}})
    # without subgraphs=True only the root's chunks come out
    assert list(g.stream({"trail": []})) == [{"caller": {"trail": ["kid said ['kid_step']"]}}]


def test_second_call_from_one_task_nests_under_a_counter() -> None:
    first, second = _leaf("first"), _leaf("second")

    def both(state: Trail) -> dict[str, Any]:
        a = first.invoke({"trail": []})
        b = second.invoke({"trail": []})
        return {"trail": a["trail"] + b["trail"]}

    g = StateGraph(Trail).add_node("both", both).add_edge(START, "both").compile()
    namespaces = [ns for ns, _chunk in g.stream({"trail": []}, subgraphs=True) if ns]
    assert len(namespaces) == 2
    assert len(namespaces[0]) == 1 and namespaces[1][1:] == ("1",)
    assert namespaces[0][0] == namespaces[1][0]


def test_interrupt_in_a_called_graph_surfaces_and_resumes() -> None:
    asks = StateGraph(Trail)
    asks.add_node("ask", lambda s: {"trail": [f"got {interrupt('colour?')}"]})
    asks.add_edge(START, "ask")
    inner = asks.compile()

    def wrapper(state: Trail) -> dict[str, Any]:
        return {"trail": inner.invoke({"trail": []})["trail"]}

    g = (
        StateGraph(Trail)
        .add_node("wrapper", wrapper)
        .add_edge(START, "wrapper")
        .compile(checkpointer=InMemorySaver())
    )
    first = g.invoke({"trail": []}, _cfg())
    assert first["__interrupt__"][0].value == "colour?"
    snap = g.get_state(_cfg(), subgraphs=True)
    nested = snap.tasks[0].state
    assert nested.next == ("ask",)
    assert nested.config["configurable"]["checkpoint_ns"].startswith("wrapper:")
    assert g.invoke(Command(resume="teal"), _cfg()) == {"trail": ["got teal"]}


def test_checkpointer_true_subgraph_keeps_its_state_between_runs() -> None:
    counter = _leaf("tick", checkpointer=True)
    g = (
        StateGraph(Trail)
        .add_node("counter", counter)
        .add_edge(START, "counter")
        .compile(checkpointer=InMemorySaver())
    )
    g.invoke({"trail": []}, _cfg())
    chunks = list(g.stream({"trail": []}, _cfg(), subgraphs=True))
    # the stable namespace has no task id, and the subgraph remembers its first run
    assert chunks[0] == (("counter",), {"tick": {"trail": ["tick"]}})
    # its remembered ["tick"] + the parent's ["tick"] as new input + this run's "tick"
    assert chunks[-1] == ((), {"counter": {"trail": ["tick", "tick", "tick"]}})


def test_get_state_nests_snapshots_and_routes_namespaced_configs() -> None:
    b = StateGraph(Trail)
    b.add_node("pause", lambda s: {"trail": [interrupt("wait")]})
    b.add_edge(START, "pause")
    g = (
        StateGraph(Trail)
        .add_node("inner", b.compile())
        .add_edge(START, "inner")
        .compile(checkpointer=InMemorySaver())
    )
    g.invoke({"trail": ["x"]}, _cfg())
    flat = g.get_state(_cfg())
    sub_config = flat.tasks[0].state
    assert sub_config["configurable"]["checkpoint_ns"].startswith("inner:")
    nested = g.get_state(_cfg(), subgraphs=True).tasks[0].state
    assert nested.values == {"trail": ["x"]}
    # the parent answers for its subgraph's namespace
    assert g.get_state(sub_config).values == {"trail": ["x"]}
    assert (
        nested.config["configurable"]["checkpoint_map"][""]
        == flat.config["configurable"]["checkpoint_id"]
    )
    assert nested.metadata["parents"] == {"": flat.config["configurable"]["checkpoint_id"]}


def test_detects_graphs_a_node_reaches() -> None:
    held = _leaf("held")

    def calls_closure(state: Trail) -> Any:
        return held.invoke(state)

    def calls_nothing(state: Trail) -> Any:
        return {"trail": []}

    assert find_subgraph(calls_closure) is held
    assert find_subgraph(calls_nothing) is None
    assert find_subgraph(held) is held
    assert find_subgraph(_leaf("off", checkpointer=False)) is None
    g = StateGraph(Trail).add_node("n", calls_closure).add_edge(START, "n").compile()
    assert g.nodes["n"].subgraphs == [held]
    assert [name for name, _ in g.get_subgraphs()] == ["n"]


_BATCHES: list[list[str]] = []


def _fold(state: list[str], writes: list[Any]) -> list[str]:
    _BATCHES.append(list(writes))
    return [*state, *writes]


class _Folded(TypedDict):
    items: Annotated[list[str], DeltaChannel(_fold)]


def test_delta_channel_folds_a_batch_per_step() -> None:
    _BATCHES.clear()
    g = StateGraph(_Folded)
    g.add_node("a", lambda s: {"items": "a"})
    g.add_node("b", lambda s: {"items": "b"})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], END)
    out = g.compile(checkpointer=InMemorySaver()).invoke({"items": "seed"}, _cfg())
    assert out == {"items": ["seed", "a", "b"]}
    assert ["a", "b"] in _BATCHES  # both writes of the step in one reducer call
    with pytest.raises(ValueError):
        DeltaChannel(_fold, snapshot_frequency=0)


def test_messages_state_merges_messages() -> None:
    g = StateGraph(MessagesState)
    g.add_node("reply", lambda s: {"messages": [("ai", "hello")]})
    g.add_edge(START, "reply")
    out = g.compile().invoke({"messages": [HumanMessage("hi")]})
    assert [m.text for m in out["messages"]] == ["hi", "hello"]


def test_subgraph_events_nest_under_the_parent_task_and_name_their_namespace() -> None:
    sub = _leaf("deep")

    def shell(state: Trail) -> dict[str, Any]:
        return sub.invoke({"trail": []})

    g = (
        StateGraph(Trail)
        .add_node("shell", shell)
        .add_node("direct", _leaf("direct_leaf"))
        .add_edge(START, "shell")
        .add_edge("shell", "direct")
        .compile(checkpointer=InMemorySaver())
    )
    events: list[EventBase] = []
    with g.subscribe(events.append):
        g.invoke({"trail": []}, _cfg())
    starts = {e.node: e for e in events if isinstance(e, NodeStarted)}
    for outer, inner in (("shell", "deep"), ("direct", "direct_leaf")):
        assert starts[inner].ns.startswith(f"{outer}:")
        # the inner node's span sits inside the outer task's span
        spans = {e.span_id: e.parent_span_id for e in events if e.span_id}
        parent = starts[inner].parent_span_id
        chain = []
        while parent is not None:
            chain.append(parent)
            parent = spans.get(parent)
        assert starts[outer].span_id in chain
    saved = [e for e in events if isinstance(e, CheckpointSaved)]
    inner_saved = [e for e in saved if e.checkpoint_ns]
    assert inner_saved and all(e.checkpoint_ns == e.ns for e in inner_saved)
    assert all("" in e.parents for e in inner_saved)
    assert all(e.checkpoint_ns == "" and not e.parents for e in saved if not e.ns)


_SEEN_ONLY_IN_A_COMPREHENSION = object()


def test_globals_named_only_inside_a_comprehension_are_reachable() -> None:
    from engine.graph.subgraph_detect import reachable_values

    def node(items: list[int]) -> list[Any]:
        return [_SEEN_ONLY_IN_A_COMPREHENSION for _ in items]

    assert _SEEN_ONLY_IN_A_COMPREHENSION in reachable_values(node)


def test_a_subgraph_node_with_keys_of_its_own_does_not_warn() -> None:
    # LangGraph's shared-schema subgraph: 'bar' is the subgraph's own key, dropped silently
    class Sub(TypedDict):
        foo: str
        bar: str

    class Parent(TypedDict):
        foo: str

    sub = StateGraph(Sub)
    sub.add_node("s", lambda s: {"bar": "b", "foo": s["foo"] + "!"})
    sub.add_edge(START, "s")
    parent = StateGraph(Parent)
    parent.add_node("child", sub.compile())
    parent.add_edge(START, "child")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parent.compile().invoke({"foo": "f"}) == {"foo": "f!"}
