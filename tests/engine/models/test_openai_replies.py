"""What OpenAIChatModel makes of the server's replies, whole and streamed."""

from __future__ import annotations

import json

import pytest

from engine.messages import AIMessage, AIMessageChunk, add_messages
from engine.models import ChatModel, OpenAIChatModel, collect
from tests.fixtures.openai_server import FakeOpenAIServer, Reply

TOOLS = [
    {"name": "get_weather", "description": "", "parameters": {"type": "object"}},
    {"name": "get_time", "description": "", "parameters": {"type": "object"}},
]


async def _stream(model: OpenAIChatModel) -> list[AIMessage]:
    return [item async for item in model.astream(["go"], tools=TOOLS)]


def test_openai_model_satisfies_the_protocol(model: OpenAIChatModel) -> None:
    assert isinstance(model, ChatModel)
    assert model.model_name == "test-model"
    assert model.profile.tool_calling
    assert model.profile.structured_output is None  # not declared: the name decides


async def test_text_reply_with_usage(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text(
        "Hello there", usage={"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    )
    reply = await model.ainvoke(["hi"])
    assert type(reply) is AIMessage
    assert reply.text == "Hello there"
    assert reply.tool_calls == [] and reply.invalid_tool_calls == []
    assert reply.usage_metadata == {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.response_metadata["id"] == "chatcmpl-1"


async def test_message_ids_are_fresh_even_if_the_server_repeats_its_completion_id(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("one")
    openai_server.reply_text("two")
    first = await model.ainvoke(["hi"])
    second = await model.ainvoke(["hi"])
    assert first.id and second.id and first.id != second.id
    assert [m.text for m in add_messages([first], [second])] == ["one", "two"]


async def test_parallel_tool_calls(model: OpenAIChatModel, openai_server: FakeOpenAIServer) -> None:
    openai_server.reply_tool_calls(
        ("get_weather", {"city": "Paris"}, "c1"), ("get_time", {"tz": "CET"}, "c2")
    )
    reply = await model.ainvoke(["go"], tools=TOOLS)
    assert reply.text == ""
    assert reply.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"},
        {"name": "get_time", "args": {"tz": "CET"}, "id": "c2", "type": "tool_call"},
    ]
    assert reply.response_metadata["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("raw", "error_part"),
    [
        ('{"city": "Par', "Unterminated string"),
        ('["Paris"]', "JSON object"),
        ("not json", "Expecting value"),
    ],
)
async def test_malformed_arguments_become_invalid_tool_calls(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, stream: bool, raw: str, error_part: str
) -> None:
    openai_server.reply_tool_calls(("get_time", {}, "ok1"), ("get_weather", raw, "bad1"))
    reply = (await _stream(model))[-1] if stream else await model.ainvoke(["go"], tools=TOOLS)
    assert reply.tool_calls == [{"name": "get_time", "args": {}, "id": "ok1", "type": "tool_call"}]
    [invalid] = reply.invalid_tool_calls
    assert (invalid["name"], invalid["args"], invalid["id"]) == ("get_weather", raw, "bad1")
    assert error_part in (invalid["error"] or "")


async def test_streamed_text_arrives_in_deltas_then_the_full_message(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("The quick brown fox")
    items = await _stream(model)
    *chunks, final = items
    assert len(chunks) >= 4 and all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(c.text for c in chunks) == "The quick brown fox"
    assert type(final) is AIMessage
    assert final.text == "The quick brown fox"
    assert final.usage_metadata == {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18}
    assert {c.id for c in chunks} == {final.id}


@pytest.mark.parametrize("interleave", [False, True])
async def test_streamed_parallel_tool_calls_are_assembled_by_index(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, interleave: bool
) -> None:
    args_a = {"city": "Paris", "units": "metric", "days": 3}
    args_b = {"tz": "Europe/Rome"}
    openai_server.reply_tool_calls(
        ("get_weather", args_a, "c1"),
        ("get_time", args_b, "c2"),
        content="Checking.",
        interleave=interleave,
    )
    *chunks, final = await _stream(model)
    tool_chunks = [tc for c in chunks for tc in c.tool_call_chunks]
    assert {tc["index"] for tc in tool_chunks} == {0, 1}
    assert len(tool_chunks) > 4  # arguments really arrived in pieces
    assert final.text == "Checking."
    assert final.tool_calls == [
        {"name": "get_weather", "args": args_a, "id": "c1", "type": "tool_call"},
        {"name": "get_time", "args": args_b, "id": "c2", "type": "tool_call"},
    ]
    assert collect(chunks) is not None and collect(chunks).tool_calls == final.tool_calls  # type: ignore[union-attr]
    assert final.response_metadata["finish_reason"] == "tool_calls"


async def test_stream_without_usage_option(openai_server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel("m", base_url=openai_server.base_url, stream_usage=False)
    openai_server.reply_text("hi")
    items = [item async for item in model.astream(["hi"])]
    await model.aclose()
    assert "stream_options" not in openai_server.requests[0]
    assert items[-1].text == "hi" and items[-1].usage_metadata is None


def test_sync_invoke_and_stream_wrap_the_async_path(openai_server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel("m", base_url=openai_server.base_url)
    openai_server.reply_text("sync hello")
    openai_server.reply_tool_calls(("get_time", {"tz": "UTC"}, "c9"))
    assert model.invoke(["hi"]).text == "sync hello"
    items = list(model.stream(["hi"], tools=TOOLS))
    assert items[-1].tool_calls[0]["args"] == {"tz": "UTC"}
    assert [b.get("stream", False) for b in openai_server.requests] == [False, True]


async def test_sync_invoke_inside_a_running_loop(openai_server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel("m", base_url=openai_server.base_url)
    openai_server.reply_text("from a helper thread")
    assert model.invoke(["hi"]).text == "from a helper thread"


async def test_refusal_is_kept_in_additional_kwargs(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    body = {
        "id": "chatcmpl-r",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": None, "refusal": "I can't help."},
            }
        ],
    }
    openai_server.enqueue(Reply(raw_body=json.dumps(body)))
    reply = await model.ainvoke(["something bad"])
    assert reply.text == "" and reply.usage_metadata is None
    assert reply.additional_kwargs == {"refusal": "I can't help."}
