"""``content_blocks`` is langchain_core's when it is installed (its provider translators), and
the engine's own reading without it (``_own_blocks``)."""

from __future__ import annotations

import pytest

from engine.messages import AIMessage, HumanMessage


def test_provider_blocks_are_translated_as_langchain_core_translates_them() -> None:
    pytest.importorskip("langchain_core")
    msg = AIMessage(
        content=[
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "hi"},
        ],
        response_metadata={"model_provider": "anthropic"},
    )
    assert msg.content_blocks == [
        {"type": "reasoning", "reasoning": "hmm", "extras": {"signature": "s"}},
        {"type": "text", "text": "hi"},
    ]


def test_the_engines_own_reading() -> None:
    msg = AIMessage(
        content=[{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}],
        tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
    )
    assert msg._own_blocks() == [
        {"type": "text", "text": "a"},
        {"type": "non_standard", "value": {"type": "thinking", "thinking": "t"}},
        {"type": "tool_call", "id": "c1", "name": "f", "args": {}},
    ]
    assert HumanMessage(content="x")._own_blocks() == [{"type": "text", "text": "x"}]
