"""The in-memory saver attach mode gives an app without one: grown lists stored as what they
gained, read back by LangGraph exactly as its own ``InMemorySaver`` reads them."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from engine.attach.memory_saver import AppendingMemorySaver


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]
    log: Annotated[list[str], operator.add]
    bag: list[int]


def _talk(state: State) -> dict[str, Any]:
    n = len(state["messages"])
    return {"messages": [AIMessage(f"reply {n}")], "log": [f"turn {n}"]}


def _mutate(state: State) -> dict[str, Any]:
    state["bag"].append(len(state["bag"]))  # changed in place, and written back
    return {"bag": state["bag"]}


def _graph(saver: Any) -> Any:
    return (
        StateGraph(State)
        .add_node("talk", _talk)
        .add_node("mutate", _mutate)
        .add_edge(START, "talk")
        .add_edge("talk", "mutate")
        .add_edge("mutate", END)
        .compile(checkpointer=saver)
    )


def _run(saver: Any, turns: int) -> list[Any]:
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [HumanMessage("hi")], "log": [], "bag": []}, cfg)
    for i in range(turns - 1):
        graph.invoke({"messages": [HumanMessage(f"more {i}")]}, cfg)
    return [(s.values, s.next, s.metadata["step"]) for s in graph.get_state_history(cfg)]


def _plain(history: list[Any]) -> list[Any]:
    return [
        (
            [(type(m).__name__, m.content) for m in v.get("messages", [])],
            v.get("log"),
            v.get("bag"),
            nxt,
            step,
        )
        for v, nxt, step in history
    ]


def test_every_checkpoint_reads_back_as_langgraphs_own_saver_reads_it() -> None:
    ours, theirs = AppendingMemorySaver(), InMemorySaver()
    assert _plain(_run(ours, 6)) == _plain(_run(theirs, 6))
    # grown lists are stored as their new items: far less than the full copies
    appended = [b for b in ours.blobs.values() if b[0] == "stepwise-appended"]
    assert appended
    assert sum(len(b[1][1][1]) for b in appended) > 0
    ours_bytes = sum(len(_blob_bytes(b)) for b in ours.blobs.values())
    theirs_bytes = sum(len(_blob_bytes(b)) for b in theirs.blobs.values())
    assert ours_bytes < theirs_bytes


def _blob_bytes(blob: Any) -> bytes:
    if blob[0] == "stepwise-appended":
        return blob[1][1][1]
    return blob[1]


def test_a_list_changed_in_place_is_saved_as_it_was_at_each_checkpoint() -> None:
    history = _plain(_run(AppendingMemorySaver(), 4))
    bags = [bag for _m, _l, bag, _n, _s in history if bag is not None]
    # newest first: each checkpoint keeps the bag it had, not the newest one
    assert bags[0] == [0, 1, 2, 3]
    assert [0, 1] in bags and [0] in bags


def test_a_fork_and_a_deleted_thread_read_back_whole() -> None:
    saver = AppendingMemorySaver()
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [HumanMessage("hi")], "log": [], "bag": []}, cfg)
    graph.invoke({"messages": [HumanMessage("again")]}, cfg)
    older = [s for s in graph.get_state_history(cfg) if s.next == ("mutate",)][-1]
    forked = graph.update_state(older.config, {"messages": [HumanMessage("edited")]})
    graph.invoke(None, forked)
    latest = graph.get_state(cfg).values
    assert [m.content for m in latest["messages"]] == ["hi", "reply 1", "edited"]

    saver.delete_thread("t")
    assert graph.get_state(cfg).values == {}
    graph.invoke({"messages": [HumanMessage("new")], "log": [], "bag": []}, cfg)
    graph.invoke({"messages": [HumanMessage("newer")]}, cfg)
    contents = [m.content for m in graph.get_state(cfg).values["messages"]]
    assert contents == ["new", "reply 1", "newer", "reply 3"]
