"""Scenario 5 (add_messages) and reducer / channel edge cases."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel

from engine import END, START, EphemeralValue, StateGraph, UntrackedValue
from engine.checkpoint import InMemorySaver
from engine.message_log import MessageList, preview_merged
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    add_messages,
    message_from_dict,
    message_to_dict,
)


def test_5_replace_by_id_keeps_position():
    left = [HumanMessage("a", id="1"), AIMessage("b", id="2"), HumanMessage("c", id="3")]
    out = add_messages(left, [AIMessage("B", id="2")])
    assert [m.text for m in out] == ["a", "B", "c"]
    assert [m.text for m in left] == ["a", "b", "c"]  # inputs unchanged


def test_5_remove_unknown_id_raises():
    with pytest.raises(ValueError) as ei:
        add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="nope")])
    assert str(ei.value) == "Attempting to delete a message with an ID that doesn't exist ('nope')"


def test_5_remove_all_keeps_what_follows_last_marker():
    left = [HumanMessage("a", id="1"), AIMessage("b", id="2")]
    out = add_messages(
        left,
        [
            HumanMessage("x"),
            RemoveMessage(id=REMOVE_ALL_MESSAGES),
            HumanMessage("summary", id="s"),
            AIMessage("kept", id="k"),
        ],
    )
    assert [m.text for m in out] == ["summary", "kept"]


def test_add_messages_assigns_ids_and_coerces():
    out = add_messages([], ["hello", ("ai", "hi"), {"role": "system", "content": "sys"}])
    assert [type(m) for m in out] == [HumanMessage, AIMessage, SystemMessage]
    assert all(m.id for m in out)


def test_remove_by_id():
    out = add_messages([HumanMessage("a", id="1"), AIMessage("b", id="2")], [RemoveMessage(id="1")])
    assert [m.id for m in out] == ["2"]


def test_messages_round_trip_json():
    msgs = [
        HumanMessage("hi", id="1", name="alice"),
        AIMessage(
            "",
            id="2",
            tool_calls=[{"name": "f", "args": {"x": [1, 2]}, "id": "c1"}],
            invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "bad json"}],
            usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        ),
        ToolMessage("ok", tool_call_id="c1", name="f", status="error", artifact={"k": 1}, id="3"),
        SystemMessage("sys", id="4"),
        RemoveMessage(id="1"),
    ]
    for m in msgs:
        back = message_from_dict(message_to_dict(m))
        assert back == m
        assert type(back) is type(m)


def test_message_list_is_persistent():
    a = MessageList([HumanMessage("1", id="1")])
    b = a.merged([AIMessage("2", id="2")])
    c = b.merged([HumanMessage("3", id="3")])
    assert len(a) == 1 and len(b) == 2 and len(c) == 3
    assert b.extends(a) and c.extends(b)
    assert [m.id for m in c.delta_since(a)] == ["2", "3"]
    # branching from b copies on write and leaves c intact
    d = b.merged([HumanMessage("other", id="x")])
    assert [m.id for m in c] == ["1", "2", "3"]
    assert [m.id for m in d] == ["1", "2", "x"]
    # replacement copies too
    e = c.merged([AIMessage("2'", id="2")])
    assert [m.text for m in e] == ["1", "2'", "3"]
    assert [m.text for m in c] == ["1", "2", "3"]
    assert c == [HumanMessage("1", id="1"), AIMessage("2", id="2"), HumanMessage("3", id="3")]
    assert c[-1].id == "3" and c[0:2][1].id == "2"
    assert c + [] == list(c)  # noqa: RUF005 - exercises MessageList.__add__


def test_preview_does_not_grow_the_buffer():
    a = MessageList([HumanMessage("1", id="1")])
    p = preview_merged(a, [AIMessage("2", id="2")])
    assert [m.id for m in p] == ["1", "2"]
    b = a.merged([AIMessage("2", id="2")])
    assert b.extends(a)  # no copy happened: the preview left the buffer alone


class S(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    count: Annotated[int, operator.add]
    note: str
    scratch: Annotated[str, EphemeralValue]
    secret: Annotated[str, UntrackedValue]


def test_reducers_ephemeral_and_untracked():
    seen: dict[str, Any] = {}

    def a(state):
        return {"messages": [AIMessage("a")], "count": 1, "scratch": "tmp", "secret": "s"}

    def b(state):
        seen.update(state)
        return {"count": 2, "note": "done"}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out = graph.invoke({"messages": ["hi"], "count": 10}, cfg)
    assert out["count"] == 13
    assert [m.text for m in out["messages"]] == ["hi", "a"]
    assert seen["scratch"] == "tmp"  # visible in the next step
    assert "scratch" not in out  # then cleared
    snap = graph.get_state(cfg)
    assert "secret" not in snap.values  # untracked: never checkpointed
    assert snap.values["note"] == "done"


class PState(BaseModel):
    items: Annotated[list[int], operator.add] = []
    label: str = "none"


def test_pydantic_state_schema():
    def add(state: PState) -> dict:
        assert isinstance(state, PState)
        return {"items": [len(state.items)], "label": "added"}

    g = StateGraph(PState)
    g.add_node("add", add)
    g.add_edge(START, "add")
    out = g.compile().invoke({"items": [5]})
    assert out == {"items": [5, 1], "label": "added"}
    with pytest.raises(Exception):  # noqa: B017 - pydantic validates graph input
        g.compile().invoke({"items": "not a list"})


def test_node_returning_wrong_type_is_an_invalid_update():
    from engine import InvalidUpdateError

    g = StateGraph(S)
    g.add_node("bad", lambda s: 42)
    g.add_edge(START, "bad")
    with pytest.raises(InvalidUpdateError, match="Expected dict, got 42"):
        g.compile().invoke({"messages": []})


def test_builder_validation_errors():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    with pytest.raises(ValueError, match="already present"):
        g.add_node("a", lambda s: {})
    with pytest.raises(ValueError, match="reserved"):
        g.add_node(END, lambda s: {})
    with pytest.raises(ValueError, match="entrypoint"):
        g.compile()
    g.add_edge(START, "a")
    g.add_edge("a", "ghost")
    with pytest.raises(ValueError, match="unknown node `ghost`"):
        g.compile()


def test_messages_list_only_ever_holds_messages():
    from engine.messages import Messages, coerce_messages

    ms = Messages(["hi", ("ai", "hello")])
    assert [type(m) for m in ms] == [HumanMessage, AIMessage]
    ms.append({"role": "user", "content": "more"})
    ms.insert(0, ("system", "be brief"))
    ms[1] = "replaced"
    ms += ["last"]
    ms.extend([("ai", "ok")])
    assert [type(m).__name__ for m in ms] == [
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
        "HumanMessage",
        "AIMessage",
    ]
    copy = coerce_messages(ms)
    assert copy == list(ms) and copy is not ms  # accepted as-is, returned as a copy
    with pytest.raises(TypeError):
        ms.append(42)


def test_messages_of_a_message_log_copies_its_view_only() -> None:
    from engine.message_log import MessageList
    from engine.messages import Messages

    log = MessageList([HumanMessage("a"), AIMessage("b")])
    longer = log.extended([HumanMessage("c")])
    copied = Messages.of(log)  # the shorter, older view of a grown buffer
    assert [m.text for m in copied] == ["a", "b"] and not copied.edited
    assert [m.text for m in Messages.of(longer)] == ["a", "b", "c"]


def test_messages_of_a_message_log_does_not_recheck_its_items(monkeypatch) -> None:
    """The log holds messages by construction: a model call copies a long history without a
    pass over its items (``Messages.extend`` is not called)."""
    import engine.messages as messages_mod
    from engine.message_log import MessageList
    from engine.messages import Messages

    log = MessageList([HumanMessage("a"), AIMessage("b")])

    def no_check(value: Any) -> Any:
        raise AssertionError("the history was re-checked")

    monkeypatch.setattr(messages_mod, "coerce_messages", no_check)
    copied = Messages.of(log)
    assert [m.text for m in copied] == ["a", "b"] and copied[0] is log[0]
