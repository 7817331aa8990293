"""A model request read as ours converts only what the conversation's previous request did not
hold, and still gives exactly what converting every message gives."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

import engine.attach.converted as converted
from engine.attach.converted import ours_all, request_hash_of
from engine.interop import from_langchain
from engine.models.hashing import request_hash


def turn(i: int) -> list[Any]:
    call = {"name": "echo", "args": {"text": str(i)}, "id": f"c{i}", "type": "tool_call"}
    return [AIMessage("", tool_calls=[call]), ToolMessage(str(i), tool_call_id=f"c{i}")]


def plain(messages: list[Any]) -> list[Any]:
    return [from_langchain(m) for m in messages]


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every message ``ours`` is asked for."""
    asked: list[Any] = []
    real = converted.ours

    def counting(message: Any) -> Any:
        asked.append(message)
        return real(message)

    monkeypatch.setattr(converted, "ours", counting)
    return asked


def test_a_growing_conversation_converts_only_its_new_messages(conversions: list[Any]) -> None:
    history: list[Any] = [HumanMessage("go")]
    for i in range(5):
        sent = [SystemMessage("be brief"), *history]  # a system prompt made afresh every call
        conversions.clear()
        assert ours_all(sent) == plain(sent)
        assert request_hash_of(sent) == request_hash(plain(sent))
        if i:
            assert [type(m).__name__ for m in conversions[:3]] == [
                "SystemMessage", "AIMessage", "ToolMessage",
            ]  # fmt: skip
        history += turn(i)


def test_an_edited_or_rewritten_history_is_converted_again(conversions: list[Any]) -> None:
    history: list[Any] = [HumanMessage("go"), *turn(0), *turn(1)]
    ours_all(history)
    edited = history[1]
    edited.tool_calls = [
        {"name": "echo", "args": {"text": "edited"}, "id": "c0", "type": "tool_call"}
    ]
    assert ours_all(history) == plain(history)
    assert ours_all(history)[1].tool_calls[0]["args"] == {"text": "edited"}
    shorter = [history[0], *history[3:]]  # a message removed (a summary, RemoveMessage)
    assert ours_all(shorter) == plain(shorter)
    swapped = [history[0], HumanMessage("instead"), *history[2:]]
    assert ours_all(swapped) == plain(swapped)


def test_a_message_given_its_id_in_place_is_converted_again() -> None:
    reminder = HumanMessage("remember the budget")  # sent before it enters the state
    assert ours_all([HumanMessage("go"), reminder])[1].id is None
    reminder.id = "m-1"  # add_messages gives it an id, in place
    assert converted.ours(reminder).id == "m-1"


def test_a_langchain_message_is_told_by_its_class() -> None:
    from engine.attach.converted import is_lc_message
    from engine.interop import is_langchain_message

    values: list[Any] = [
        HumanMessage("hi"),
        *turn(1),
        SystemMessage("sys"),
        from_langchain(HumanMessage("ours")),
        {"type": "human", "content": "a dict"},
        "text",
        None,
    ]
    for value in values * 2:  # the second time from what was worked out per class
        assert is_lc_message(value) == is_langchain_message(value)
    assert is_lc_message(values[0]) and not is_lc_message(values[4])
