"""Messages validated from dicts (checkpoints, sessions, an attached app's state) take pydantic's
own construction path, not ``BaseMessage.__init__`` (which validated each one a second time:
issue 26, cold reads of long threads), and come out exactly as before."""

from __future__ import annotations

from typing import Any

import pytest

from engine import serde
from engine.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    message_from_dict,
    message_to_dict,
    messages_from_dicts,
)

SAMPLES: list[BaseMessage] = [
    HumanMessage("hi", id="h1", name="ann", additional_kwargs={"x": 1}),
    HumanMessage(content_blocks=[{"type": "text", "text": "blocks"}], id="h2"),
    SystemMessage("be brief", id="s1"),
    AIMessage(
        "calling",
        id="a1",
        tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "c1"}],
        invalid_tool_calls=[{"name": "bad", "args": "{", "id": "c2", "error": "json"}],
        usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        response_metadata={"model_name": "m"},
    ),
    AIMessageChunk("par", id="k1", tool_call_chunks=[{"name": "f", "args": "{", "index": 0}]),
    ToolMessage("42", tool_call_id="c1", id="t1", status="error", artifact={"raw": [1, 2]}),
    RemoveMessage(id="a1"),
    HumanMessage("with extra", id="h3", custom_field="kept"),
]


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: f"{m.type}-{m.id}")
def test_a_message_round_trips_through_dicts_and_the_serde_unchanged(msg: BaseMessage) -> None:
    again = message_from_dict(message_to_dict(msg))
    assert type(again) is type(msg)
    assert again == msg
    assert message_to_dict(again) == message_to_dict(msg)
    assert serde.loads(serde.dumps([msg])) == [msg]
    assert messages_from_dicts([message_to_dict(msg)]) == [msg]


def test_decoding_does_not_run_init(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    original = HumanMessage.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        calls.append(kwargs)
        original(self, *args, **kwargs)

    monkeypatch.setattr(HumanMessage, "__init__", counting)
    decoded = messages_from_dicts([{"type": "human", "content": f"m{i}"} for i in range(5)])
    assert [m.content for m in decoded] == [f"m{i}" for i in range(5)]
    assert calls == []  # validated once, by pydantic; not built again through __init__


def test_content_blocks_in_a_dict_are_the_content_as_with_init() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "image", "url": "http://x/i.png"}]
    from_dict = message_from_dict({"type": "human", "content_blocks": blocks, "id": "1"})
    assert from_dict == HumanMessage(content_blocks=blocks, id="1")
    assert from_dict.content == blocks
    assert "content_blocks" not in message_to_dict(from_dict)
    with pytest.raises(ValueError, match="either content or content_blocks"):
        message_from_dict({"type": "ai", "content": "x", "content_blocks": blocks})


def test_a_remove_message_from_a_dict_still_needs_its_id() -> None:
    with pytest.raises(TypeError, match="RemoveMessage requires id"):
        message_from_dict({"type": "remove"})
    assert message_from_dict({"type": "remove", "id": "m1"}) == RemoveMessage(id="m1")


def test_tool_calls_from_a_dict_get_their_defaults_as_before() -> None:
    msg = message_from_dict({"type": "ai", "tool_calls": [{"name": "f", "type": "other"}]})
    assert msg.tool_calls == [{"name": "f", "args": {}, "id": None, "type": "tool_call"}]  # type: ignore[attr-defined]
