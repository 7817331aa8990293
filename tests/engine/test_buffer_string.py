"""``get_buffer_string`` (LangChain's) and ``transcript`` (what the summarization middleware
shows its model): messages as a one-line-a-message transcript."""

from __future__ import annotations

import pytest

from engine.message_pretty import transcript
from engine.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    get_buffer_string,
)


def test_each_message_is_a_role_and_its_text() -> None:
    messages = [
        SystemMessage("be brief"),
        HumanMessage("weather?"),
        AIMessage("checking", tool_calls=[{"name": "get", "args": {"city": "NYC"}, "id": "1"}]),
        ToolMessage("72F", tool_call_id="1"),
        AIMessage("72F and sunny"),
    ]
    assert transcript(messages) == (
        "System: be brief\nHuman: weather?\nAI: checking [tool calls: get({'city': 'NYC'})]\n"
        "Tool: 72F\nAI: 72F and sunny"
    )
    assert get_buffer_string(messages) == (  # LangChain's: the calls' list after the text
        "System: be brief\nHuman: weather?\nAI: checking[{'name': 'get', 'args': {'city': "
        "'NYC'}, 'id': '1', 'type': 'tool_call'}]\nTool: 72F\nAI: 72F and sunny"
    )


def test_prefixes() -> None:
    out = get_buffer_string(
        [HumanMessage("hi"), AIMessage("yo")], human_prefix="User", ai_prefix="Bot"
    )
    assert out == "User: hi\nBot: yo"
    assert get_buffer_string([]) == ""


def test_metadata_stays_out_of_the_transcript() -> None:
    m = AIMessage("done", response_metadata={"model": "m", "finish_reason": "stop"})
    assert get_buffer_string([m]) == "AI: done"
    with pytest.raises(ValueError, match="unsupported message type"):
        get_buffer_string([object()])
