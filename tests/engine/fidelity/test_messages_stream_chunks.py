"""The ``messages`` stream's chunks as LangGraph streams a langchain_core model's.

A chunk made of tool-call pieces shows them as ``tool_call_chunk`` content blocks, and a
stream whose model did not mark its last chunk ends with an empty chunk marked
``chunk_position="last"`` (langchain_core adds that chunk itself).
"""

from __future__ import annotations

from engine.agents import create_agent
from engine.messages import AIMessage, AIMessageChunk
from engine.models import ScriptedChatModel
from engine.tools import tool


@tool
def ping(x: int) -> str:
    """Ping."""
    return "pong"


def _model_chunks() -> list[AIMessageChunk]:
    calls = AIMessage(content="", tool_calls=[{"name": "ping", "args": {"x": 1}, "id": "c1"}])
    agent = create_agent(ScriptedChatModel([calls, "all done"]), [ping])
    return [
        chunk
        for chunk, meta in agent.stream({"messages": [("user", "hi")]}, stream_mode="messages")
        if meta["langgraph_node"] == "model" and isinstance(chunk, AIMessageChunk)
    ]


def test_tool_call_pieces_are_tool_call_chunk_blocks() -> None:
    first = _model_chunks()[0]
    assert first.content_blocks == [
        {"type": "tool_call_chunk", "id": "c1", "name": "ping", "args": '{"x": 1}', "index": 0}
    ]


def test_each_streamed_reply_ends_with_an_empty_chunk_marked_last() -> None:
    chunks = _model_chunks()
    ends = [i for i, c in enumerate(chunks) if c.chunk_position == "last"]
    assert len(ends) == 2  # one per model call
    for i in ends:
        assert chunks[i].content == "" and not chunks[i].tool_call_chunks
        assert chunks[i].id == chunks[i - 1].id  # the same message as the chunks before it
    assert "".join(c.text for c in chunks[ends[0] + 1 :]) == "all done"


def test_the_last_mark_survives_adding_chunks() -> None:
    total = AIMessageChunk(content="a") + AIMessageChunk(content="", chunk_position="last")
    assert total.chunk_position == "last" and total.text == "a"


def test_text_and_tool_call_pieces_together_show_the_calls_they_add_up_to() -> None:
    chunk = AIMessageChunk(
        content="hi",
        tool_call_chunks=[{"name": "ping", "args": '{"x": 1}', "id": "c1", "index": 0}],
    )
    assert chunk.content_blocks == [
        {"type": "text", "text": "hi"},
        {"type": "tool_call", "id": "c1", "name": "ping", "args": {"x": 1}},
    ]
