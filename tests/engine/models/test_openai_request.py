"""What OpenAIChatModel sends: messages, tools, tool_choice, response_format, settings."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from engine.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from engine.models import OpenAIChatModel
from engine.models.openai_format import to_openai_message, to_openai_tool_choice
from engine.tools import InjectedToolCallId, tool
from tests.fixtures.openai_server import FakeOpenAIServer


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId] = "") -> str:
    """Weather for a city.

    Args:
        city: the city name
    """
    return f"sunny in {city}"


async def test_conversation_is_sent_in_chat_completions_form(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("done")
    conversation = [
        SystemMessage("be brief"),
        HumanMessage("weather in Paris and Rome?", name="ann"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
                {"name": "get_weather", "args": {"city": "Rome"}, "id": "c2"},
            ],
            invalid_tool_calls=[
                {"name": "get_weather", "args": '{"city": ', "id": "c3", "error": "bad"}
            ],
        ),
        ToolMessage("sunny", tool_call_id="c1"),
        ToolMessage("rainy", tool_call_id="c2"),
        ToolMessage("invalid arguments", tool_call_id="c3", status="error"),
    ]
    await model.ainvoke(conversation)

    sent = openai_server.requests[0]["messages"]
    assert sent[0] == {"role": "system", "content": "be brief"}
    assert sent[1] == {"role": "user", "content": "weather in Paris and Rome?", "name": "ann"}
    assert sent[2]["role"] == "assistant"
    assert sent[2]["content"] is None
    assert sent[2]["tool_calls"] == [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        },
        {
            "id": "c2",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
        },
        {
            "id": "c3",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": '},
        },
    ]
    assert sent[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "rainy"},
        {"role": "tool", "tool_call_id": "c3", "content": "invalid arguments"},
    ]
    assert openai_server.requests[0]["model"] == "test-model"
    assert "stream" not in openai_server.requests[0] or not openai_server.requests[0]["stream"]


def test_developer_chat_and_function_messages_as_langchain_openai_sends_them() -> None:
    developer, system = convert_to_messages([("developer", "d"), ("system", "s")])
    assert to_openai_message(developer) == {"role": "developer", "content": "d"}
    assert to_openai_message(system) == {"role": "system", "content": "s"}
    assert to_openai_message(ChatMessage("c", role="critic", name="ann")) == {
        "role": "critic",
        "content": "c",
        "name": "ann",
    }
    assert to_openai_message(FunctionMessage("42", name="calc")) == {
        "role": "function",
        "name": "calc",
        "content": "42",
    }
    assert to_openai_message(HumanMessageChunk("h")) == {"role": "user", "content": "h"}


def test_content_blocks_and_plain_assistant_text() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    assert to_openai_message(HumanMessage(["look:", image])) == {
        "role": "user",
        "content": [{"type": "text", "text": "look:"}, image],
    }
    assert to_openai_message(AIMessage("plain answer")) == {
        "role": "assistant",
        "content": "plain answer",
    }
    assert to_openai_message(
        ToolMessage([{"type": "text", "text": "a"}, "b"], tool_call_id="t")
    ) == {
        "role": "tool",
        "tool_call_id": "t",
        "content": "ab",
    }


async def test_tools_are_function_schemas_without_injected_params(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("ok")
    plain = {
        "name": "lookup",
        "description": "Look up a word",
        "parameters": {"type": "object", "properties": {"w": {"type": "string"}}},
    }
    await model.ainvoke(["hi"], tools=[get_weather, plain])

    tools = openai_server.requests[0]["tools"]
    assert [t["type"] for t in tools] == ["function", "function"]
    weather = tools[0]["function"]
    assert weather["name"] == "get_weather"
    assert weather["description"].startswith("Weather for a city")
    assert list(weather["parameters"]["properties"]) == ["city"]
    assert weather["parameters"]["required"] == ["city"]
    assert tools[1]["function"] == plain
    assert "tool_choice" not in openai_server.requests[0]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("any", "required"),
        ("get_weather", {"type": "function", "function": {"name": "get_weather"}}),
    ],
)
async def test_tool_choice_mapping(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, choice: str, wire: Any
) -> None:
    openai_server.reply_text("ok")
    await model.ainvoke(["hi"], tools=[get_weather], tool_choice=choice)
    assert openai_server.requests[0]["tool_choice"] == wire
    assert to_openai_tool_choice(choice) == wire


async def test_tool_choice_must_name_a_given_tool(model: OpenAIChatModel) -> None:
    with pytest.raises(ValueError, match="not one of the tools"):
        await model.ainvoke(["hi"], tools=[get_weather], tool_choice="search")
    with pytest.raises(ValueError, match="needs tools"):
        await model.ainvoke(["hi"], tool_choice="any")


async def test_response_format_is_passed_through_unchanged(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    fmt = {
        "type": "json_schema",
        "json_schema": {
            "name": "Weather",
            "schema": {
                "type": "object",
                "properties": {"temp": {"type": "number"}},
                "required": ["temp"],
            },
            "strict": True,
        },
    }
    openai_server.reply_text('{"temp": 21}')
    reply = await model.ainvoke(["weather?"], response_format=fmt)
    assert openai_server.requests[0]["response_format"] == fmt
    assert reply.text == '{"temp": 21}'


async def test_settings_known_and_unknown_reach_the_body(openai_server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel(
        "m",
        base_url=openai_server.base_url,
        api_key="k-1234",
        temperature=0.3,
        prompt_cache_key="abc",
    )
    openai_server.reply_text("ok")
    openai_server.reply_text("ok")
    await model.ainvoke(["hi"], max_tokens=50, top_k=5)  # top_k: not an SDK argument -> extra_body
    await model.ainvoke(["hi"], temperature=None)  # None means "leave the model's setting"
    await model.aclose()
    first, second = openai_server.requests
    assert (
        first["temperature"],
        first["prompt_cache_key"],
        first["max_tokens"],
        first["top_k"],
    ) == (
        0.3,
        "abc",
        50,
        5,
    )
    assert second["temperature"] == 0.3


async def test_reserved_settings_are_rejected(model: OpenAIChatModel) -> None:
    with pytest.raises(ValueError, match="'stream' cannot be a model setting"):
        await model.ainvoke(["hi"], stream=True)


async def test_streaming_request_asks_for_usage(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("hi")
    _ = [item async for item in model.astream(["hi"])]
    body = openai_server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
