"""ScriptedChatModel: every item kind, .calls, running out, streaming, fault injection."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from engine.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from engine.models import (
    ChatModel,
    ModelTimeoutError,
    ScriptedChatModel,
    ScriptExhaustedError,
)

TOOLS = [{"name": "lookup", "description": "Look up", "parameters": {"type": "object"}}]


async def test_items_are_consumed_in_order() -> None:
    scripted_call = AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "x"}}])

    def echo(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
        return f"{len(messages)} messages, tools={[t['name'] for t in tools]}"

    async def async_reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
        await asyncio.sleep(0)
        return AIMessage(f"async saw {messages[-1].text}")

    model = ScriptedChatModel(["plain text", scripted_call, echo, async_reply])
    assert isinstance(model, ChatModel)

    first = await model.ainvoke(["hi"])
    assert type(first) is AIMessage and first.text == "plain text" and first.id

    second = await model.ainvoke(["hi"], tools=TOOLS)
    assert second is not scripted_call and second.id != scripted_call.id
    [call] = second.tool_calls
    assert call["name"] == "lookup" and call["args"] == {"q": "x"} and call["id"]
    assert scripted_call.tool_calls[0]["id"] is None  # the script itself is not changed

    assert (await model.ainvoke(["a", "b"], tools=TOOLS)).text == "2 messages, tools=['lookup']"
    assert (await model.ainvoke(["last"])).text == "async saw last"
    assert model.remaining == 0


async def test_reusing_a_message_gives_fresh_ids_each_time() -> None:
    msg = AIMessage("same", id="fixed", tool_calls=[{"name": "lookup", "args": {}, "id": "keep"}])
    model = ScriptedChatModel([msg, msg])
    a, b = await model.ainvoke(["x"]), await model.ainvoke(["x"])
    assert len({a.id, b.id, "fixed"}) == 3
    assert a.tool_calls[0]["id"] == b.tool_calls[0]["id"] == "keep"  # given ids are kept


async def test_exceptions_are_raised_and_calls_still_recorded() -> None:
    model = ScriptedChatModel([ModelTimeoutError("scripted timeout"), ConnectionError, "recovered"])
    with pytest.raises(TimeoutError, match="scripted timeout"):
        await model.ainvoke(["one"])
    with pytest.raises(ConnectionError, match="call #2"):
        await model.ainvoke(["two"])
    assert (await model.ainvoke(["three"])).text == "recovered"
    assert [c.messages[-1].text for c in model.calls] == ["one", "two", "three"]


async def test_calls_record_the_whole_request() -> None:
    model = ScriptedChatModel(["ok"], name="demo", temperature=0.1)
    fmt = {"type": "json_schema", "json_schema": {"name": "X", "schema": {}, "strict": True}}
    await model.ainvoke(
        [HumanMessage("hi")],
        tools=TOOLS,
        tool_choice="lookup",
        response_format=fmt,
        max_tokens=9,
    )
    [request] = model.calls
    assert [m.text for m in request.messages] == ["hi"]
    assert request.tools == TOOLS
    assert request.tool_choice == "lookup"
    assert request.response_format == fmt
    assert request.settings == {"temperature": 0.1, "max_tokens": 9}
    assert model.model_name == "demo"


async def test_running_out_says_which_call() -> None:
    model = ScriptedChatModel(["only one"], name="demo")
    await model.ainvoke(["first"])
    with pytest.raises(ScriptExhaustedError) as info:
        await model.ainvoke([HumanMessage("what now?")])
    message = str(info.value)
    assert "call #2" in message and "1 response" in message and "what now?" in message
    assert len(model.calls) == 2


async def test_bad_item_type_is_reported() -> None:
    model = ScriptedChatModel([lambda messages, tools: 42])
    with pytest.raises(TypeError, match="call #1 got a int"):
        await model.ainvoke(["x"])


async def test_streaming_splits_text_and_tool_calls() -> None:
    reply = AIMessage(
        "Let me look that up for you",
        tool_calls=[{"name": "lookup", "args": {"query": "the meaning of life"}}],
    )
    model = ScriptedChatModel([reply])
    *chunks, final = [item async for item in model.astream(["q"], tools=TOOLS)]
    texts = [c.text for c in chunks if c.text]
    assert texts == ["Let", " me", " look", " that", " up", " for", " you"]
    tool_chunks = [tc for c in chunks for tc in c.tool_call_chunks]
    assert len(tool_chunks) > 1 and tool_chunks[0]["name"] == "lookup"
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert final.text == reply.text
    assert final.tool_calls[0]["args"] == {"query": "the meaning of life"}
    assert final.tool_calls[0]["id"] == tool_chunks[0]["id"]


def test_sync_stream_and_invoke() -> None:
    model = ScriptedChatModel(["a b c", "done"])
    # the chunks, the empty closing chunk (marked last), then the whole reply
    assert [i.text for i in model.stream(["x"])] == ["a", " b", " c", "", "a b c"]
    assert model.invoke(["x"]).text == "done"


async def test_inject_error_and_push_go_to_the_front() -> None:
    model = ScriptedChatModel(["first", "second"])
    model.inject_error(ModelTimeoutError("flaky"), times=2)
    model.push("pushed-a", "pushed-b")
    results: list[str] = []
    for _ in range(6):
        try:
            results.append((await model.ainvoke(["x"])).text)
        except ModelTimeoutError as exc:
            results.append(f"error:{exc}")
    assert results == ["pushed-a", "pushed-b", "error:flaky", "error:flaky", "first", "second"]
    with pytest.raises(ValueError):
        model.inject_error(TimeoutError(), times=0)


def test_consumption_is_thread_safe() -> None:
    n = 200
    model = ScriptedChatModel([str(i) for i in range(n)])
    seen: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(n // 8):
            text = model.invoke(["x"]).text
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen, key=int) == [str(i) for i in range(n)]
    assert len(model.calls) == n and model.remaining == 0
