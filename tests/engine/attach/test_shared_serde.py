"""Attach mode's in-memory saver stores each message once (engine.attach.shared_serde), and
returns exactly what LangGraph's plain ``InMemorySaver`` returns."""

from __future__ import annotations

import gc
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from engine.attach.savers import open_saver
from engine.attach.shared_serde import MAX_DEPTH, TAG, SharedMessageSerde, _Chain, _entries


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    count: int


def _graph(saver: Any) -> Any:
    def reply(state: State) -> dict[str, Any]:
        n = state.get("count", 0) + 1
        return {"messages": [AIMessage(f"answer {n}", id=f"ai-{n}")], "count": n}

    b = StateGraph(State)
    b.add_node("reply", reply)
    b.add_edge(START, "reply")
    b.add_edge("reply", END)
    return b.compile(checkpointer=saver)


def _history(graph: Any, cfg: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
    return [
        (s.values, s.next, s.metadata.get("step") if s.metadata else None)
        for s in graph.get_state_history(cfg)
    ]


def _run(saver: Any, turns: int = 5) -> tuple[Any, dict[str, Any]]:
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    for i in range(turns):
        graph.invoke({"messages": [HumanMessage(f"question {i}", id=f"h-{i}")]}, cfg)
    return graph, cfg


def test_state_and_history_are_those_of_the_plain_in_memory_saver() -> None:
    plain, cfg = _run(InMemorySaver())
    shared, _ = _run(InMemorySaver(serde=SharedMessageSerde()))
    assert shared.get_state(cfg).values == plain.get_state(cfg).values
    assert _history(shared, cfg) == _history(plain, cfg)
    assert len(shared.get_state(cfg).values["messages"]) == 10


def test_each_message_is_encoded_once_and_shared_by_every_version() -> None:
    saver = InMemorySaver(serde=SharedMessageSerde())
    _run(saver)
    lists = [_entries(v[1]) for k, v in saver.blobs.items() if k[2] == "messages" and v[0] == TAG]
    assert len(lists) >= 5
    first = {}
    for entries in lists:
        for i, entry in enumerate(entries):
            assert first.setdefault(i, entry) is entry  # the same bytes object, not a copy


def test_a_message_changed_in_place_is_encoded_again_and_old_versions_keep_the_old_text() -> None:
    serde = SharedMessageSerde()
    m = AIMessage("before", id="a")
    old = serde.dumps_typed([m])
    m.content = "after"
    new = serde.dumps_typed([m])
    assert serde.loads_typed(old)[0].content == "before"
    assert serde.loads_typed(new)[0].content == "after"
    m.additional_kwargs["extra"] = {"deep": 1}  # a change inside a field, not of the field
    again = serde.loads_typed(serde.dumps_typed([m]))[0]
    assert again.additional_kwargs == {"extra": {"deep": 1}}


def test_other_values_are_encoded_as_the_plain_serializer_does() -> None:
    serde, plain = SharedMessageSerde(), InMemorySaver().serde
    for value in ([], [1, "two"], {"messages": [HumanMessage("x")]}, "text", 3):
        assert serde.dumps_typed(value) == plain.dumps_typed(value)
        assert serde.loads_typed(serde.dumps_typed(value)) == value


def test_a_message_nobody_holds_is_forgotten() -> None:
    serde = SharedMessageSerde()
    m = HumanMessage("gone soon")
    serde.dumps_typed([m])
    assert len(serde._encoded) == 1
    del m
    gc.collect()
    assert serde._encoded == {}


def test_attach_mode_memory_saver_uses_it() -> None:
    saver = open_saver("memory")
    assert isinstance(saver, InMemorySaver)
    assert isinstance(saver.serde, SharedMessageSerde)


def test_a_growing_list_is_stored_as_links_to_the_one_before_and_loads_whole() -> None:
    serde = SharedMessageSerde()
    messages: list[Any] = []
    stored = []
    for i in range(3 * MAX_DEPTH):
        messages = [*messages, HumanMessage(f"m{i}", id=f"m{i}")]
        stored.append(serde.dumps_typed(messages))
    links = [s for _, s in stored if isinstance(s, _Chain)]
    assert len(links) > 2 * MAX_DEPTH  # all but one in MAX_DEPTH + 1 are links
    assert max(s.depth for s in links) == MAX_DEPTH
    for n, data in enumerate(stored, start=1):
        assert [m.content for m in serde.loads_typed(data)] == [f"m{i}" for i in range(n)]


def test_replaced_and_removed_messages_load_as_with_the_plain_saver() -> None:
    from langchain_core.messages import RemoveMessage

    def edit(state: State) -> dict[str, Any]:
        n = state.get("count", 0) + 1
        first = state["messages"][0]
        updates: list[Any] = [AIMessage(f"answer {n}", id=f"ai-{n}")]
        if n % 2 == 0:  # replace the first message (same id, new text)
            updates.append(HumanMessage(f"edited {n}", id=first.id))
        if n % 3 == 0:  # and drop an answer
            updates.append(RemoveMessage(id=f"ai-{n - 1}"))
        return {"messages": updates, "count": n}

    def build(saver: Any) -> Any:
        b = StateGraph(State)
        b.add_node("edit", edit)
        b.add_edge(START, "edit")
        b.add_edge("edit", END)
        return b.compile(checkpointer=saver)

    cfg = {"configurable": {"thread_id": "t"}}
    graphs = [build(InMemorySaver()), build(InMemorySaver(serde=SharedMessageSerde()))]
    for g in graphs:
        for i in range(7):
            g.invoke({"messages": [HumanMessage(f"q{i}", id=f"q{i}")]}, cfg)
    assert _history(graphs[1], cfg) == _history(graphs[0], cfg)


def test_a_conversation_stays_linked_across_the_short_lists_written_between_its_versions() -> None:
    """LangGraph stores a node's write (a list of its new messages) between two versions of
    the ``messages`` channel: the next version still links to the one before."""
    serde = SharedMessageSerde()
    messages: list[Any] = [HumanMessage("go", id="go")]
    serde.dumps_typed(messages)
    stored = []
    for i in range(10):
        new = AIMessage(f"a{i}", id=f"a{i}")
        serde.dumps_typed([new])  # the node's write
        messages = [*messages, new]
        stored.append(serde.dumps_typed(messages))
    assert all(isinstance(s, _Chain) for _, s in stored)
    assert [m.content for m in serde.loads_typed(stored[-1])] == ["go"] + [
        f"a{i}" for i in range(10)
    ]
