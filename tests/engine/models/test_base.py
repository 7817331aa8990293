"""BaseChatModel: request normalization, stream <-> whole reply, sync wrappers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.messages import AIMessage, AIMessageChunk, HumanMessage, ToolCallChunk
from engine.models import (
    BaseChatModel,
    ChatModel,
    ChatRequest,
    ModelProfile,
    ModelResponseError,
    collect,
    split_message,
    tool_schema,
)
from engine.models.streaming import split_text
from engine.tools import tool


class StreamOnly(BaseChatModel):
    """Implements only ``_astream`` (chunks, no final message): ainvoke must add them up."""

    def __init__(self, chunks: list[AIMessageChunk]) -> None:
        super().__init__("stream-only", temperature=0.5)
        self.chunks = chunks
        self.requests: list[ChatRequest] = []

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        self.requests.append(request)
        for chunk in self.chunks:
            yield chunk


class WholeOnly(BaseChatModel):
    """Implements only ``_agenerate``: astream must split its reply."""

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        return AIMessage(
            "one two three",
            tool_calls=[
                {"name": "f", "args": {"text": "a fairly long argument value"}, "id": "t1"}
            ],
            usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        )


def _tc(index: int, args: str, name: str | None = None, id: str | None = None) -> ToolCallChunk:
    return ToolCallChunk(name=name, args=args, id=id, index=index, type="tool_call_chunk")


async def test_ainvoke_is_derived_from_a_chunk_stream() -> None:
    model = StreamOnly(
        [
            AIMessageChunk("Hel"),
            AIMessageChunk("lo", tool_call_chunks=[_tc(0, '{"a"', "f", "c1")]),
            AIMessageChunk("", tool_call_chunks=[_tc(1, "{}", "g", "c2"), _tc(0, ": 1}")]),
        ]
    )
    reply = await model.ainvoke([HumanMessage("hi")])
    assert type(reply) is AIMessage and reply.id
    assert reply.text == "Hello"
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [
        ("f", {"a": 1}, "c1"),
        ("g", {}, "c2"),
    ]


async def test_empty_stream_is_a_response_error() -> None:
    with pytest.raises(ModelResponseError, match="without any output"):
        await StreamOnly([]).ainvoke(["hi"])
    with pytest.raises(ModelResponseError):
        _ = [item async for item in StreamOnly([]).astream(["hi"])]


async def test_astream_is_derived_from_a_whole_reply() -> None:
    items = [item async for item in WholeOnly("whole").astream(["hi"])]
    *chunks, final = items
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert type(final) is AIMessage
    assert [c.text for c in chunks if c.text] == ["one", " two", " three"]
    assert sum(1 for c in chunks if c.tool_call_chunks) > 1  # arguments were split
    assert {c.id for c in chunks} == {final.id}
    assert collect(chunks) == final


def test_split_and_collect_round_trip_keeps_invalid_calls() -> None:
    message = AIMessage(
        "  leading and trailing  ",
        id="m1",
        tool_calls=[{"name": "f", "args": {"x": [1, 2, 3]}, "id": "a"}],
        invalid_tool_calls=[{"name": "g", "args": '{"broken', "id": "b", "error": "x"}],
        usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        response_metadata={"finish_reason": "tool_calls"},
    )
    chunks = split_message(message)
    back = collect(chunks)
    assert back is not None
    assert back.text == message.text and back.id == "m1"
    assert back.tool_calls == message.tool_calls
    assert [(c["name"], c["args"], c["id"]) for c in back.invalid_tool_calls] == [
        ("g", '{"broken', "b")
    ]
    assert back.usage_metadata == message.usage_metadata
    assert back.response_metadata == {"finish_reason": "tool_calls"}
    assert "".join(split_text("a  b\n c ")) == "a  b\n c "
    assert collect([]) is None


def test_sync_invoke_and_stream() -> None:
    model = WholeOnly("whole")
    assert model.invoke(["hi"]).text == "one two three"
    assert list(model.stream(["hi"]))[-1].text == "one two three"


def test_request_normalization() -> None:
    @tool
    def search(query: str) -> str:
        """Search."""
        return query

    model = StreamOnly([AIMessageChunk("x")])
    request = model.make_request(
        ["hi", ("ai", "hello")],
        tools=[search, {"type": "function", "function": {"name": "calc"}}],
        tool_choice="calc",
        response_format={"type": "json_object"},
        settings={"max_tokens": 5, "temperature": None},
    )
    assert [m.type for m in request.messages] == ["human", "ai"]
    assert request.tool_names == ["search", "calc"]
    assert request.tools[1] == {
        "name": "calc",
        "description": "",
        "parameters": {"type": "object", "properties": {}},
    }
    assert request.settings == {"temperature": 0.5, "max_tokens": 5}
    assert request.response_format == {"type": "json_object"}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"tool_choice": 3}, TypeError),
        ({"tool_choice": "required"}, ValueError),
        ({"tools": [{"description": "no name"}]}, ValueError),
        ({"tools": [42]}, TypeError),
        ({"response_format": "json"}, TypeError),
        ({"response_format": {"json_schema": {}}}, TypeError),
    ],
)
def test_bad_arguments_are_rejected(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        StreamOnly([]).make_request(["hi"], **kwargs)


def test_tool_choice_none_and_auto_need_no_tools() -> None:
    model = StreamOnly([])
    assert model.make_request(["hi"], tool_choice="none").tool_choice == "none"
    assert model.make_request(["hi"], tool_choice="auto").tool_choice == "auto"


def test_a_subclass_must_implement_one_hook() -> None:
    with pytest.raises(TypeError, match="must implement"):

        class Nothing(BaseChatModel):  # pyright: ignore[reportUnusedClass]
            pass


def test_protocol_and_profile() -> None:
    model = WholeOnly("whole", profile=ModelProfile(structured_output=False, max_input_tokens=8000))
    assert isinstance(model, ChatModel)
    assert not isinstance(object(), ChatModel)
    assert model.profile.tool_calling and not model.profile.structured_output
    assert model.profile.max_input_tokens == 8000
    assert ModelProfile() == ModelProfile(tool_calling=True, structured_output=None, streaming=True)
    assert repr(model) == "WholeOnly(model_name='whole')"


def test_tool_schema_of_a_base_tool_hides_nothing_it_should_show() -> None:
    @tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    schema = tool_schema(add)
    assert schema["name"] == "add" and schema["description"] == "Add two numbers."
    assert set(schema["parameters"]["properties"]) == {"a", "b"}
