"""``token_pieces``: the (text, tool-call pieces) of ``split_message``'s chunks, without the
chunks; a scripted model's token events are made from them."""

from __future__ import annotations

import json

import pytest

from engine.messages import AIMessage
from engine.models.streaming import split_message, token_pieces

MESSAGES = [
    AIMessage(""),
    AIMessage("hello"),
    AIMessage("  two  words, then\nmore\t text  "),
    AIMessage("", tool_calls=[{"name": "search", "args": {"q": "a long query text"}, "id": "c1"}]),
    AIMessage(
        "I will look",
        tool_calls=[
            {"name": "search", "args": {"q": "x" * 40, "n": 3}, "id": "c1"},
            {"name": "write_file", "args": {}, "id": None},
        ],
        invalid_tool_calls=[{"name": "bad", "args": '{"oops', "id": "c3", "error": "json"}],
    ),
    AIMessage([{"type": "text", "text": "block text"}, {"type": "image", "url": "u"}]),
]


@pytest.mark.parametrize("message", MESSAGES, ids=range(len(MESSAGES)))
def test_token_pieces_are_split_messages_pieces(message: AIMessage) -> None:
    want = [
        (c.text, c.tool_call_chunks)
        for c in split_message(message)
        if c.content or c.tool_call_chunks
    ]
    got = token_pieces(message)
    assert json.dumps(got) == json.dumps(want)  # the pieces' keys in the same order too
