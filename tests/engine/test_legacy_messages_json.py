"""LangChain's older message kinds and the other streamed pieces (``engine.message_legacy``)
round-trip through the engine's JSON form (checkpoints, sessions) as the common kinds do:
alone, in a list of common messages (the list is validated in one call until a rare kind is
in it), and through ``serde``; the common kinds' JSON is what it was."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine import serde
from engine.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    SystemMessageChunk,
    ToolMessageChunk,
    message_from_dict,
    message_to_dict,
    messages_from_dicts,
)

RARE: list[BaseMessage] = [
    ChatMessage("c", role="critic", id="c1"),
    FunctionMessage("42", name="calc", id="f1"),
    HumanMessageChunk("h", id="h1"),
    SystemMessageChunk("s", id="s1"),
    ToolMessageChunk("t", tool_call_id="call", artifact={"a": 1}, status="error", id="t1"),
    ChatMessageChunk("cc", role="critic", id="c2"),
    FunctionMessageChunk("fc", name="calc", id="f2"),
]


@pytest.mark.parametrize("message", RARE, ids=lambda m: m.type)
def test_a_rare_kind_round_trips(message: BaseMessage) -> None:
    data = message_to_dict(message)
    assert data["type"] == message.type
    back = message_from_dict(data)
    assert type(back) is type(message) and back == message


def test_a_list_with_rare_kinds_among_common_ones() -> None:
    items = [HumanMessage("hi", id="1"), *RARE, AIMessage("yo", id="2")]
    back = messages_from_dicts([message_to_dict(m) for m in items])
    assert [type(m) for m in back] == [type(m) for m in items] and back == items
    assert serde.loads(serde.dumps({"messages": items}))["messages"] == items


def test_an_unknown_kind_is_still_refused() -> None:
    with pytest.raises(ValidationError):
        messages_from_dicts([message_to_dict(HumanMessage("hi")), {"type": "nope"}])
    with pytest.raises(ValidationError):
        message_from_dict({"type": "chat", "content": "no role"})
