"""Faults in the middle of a stream: a dropped connection is an error, never a short answer."""

from __future__ import annotations

import pytest

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import HumanMessage
from engine.middleware.builtins import ModelRetryMiddleware
from engine.models import (
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
    OpenAIChatModel,
)
from tests.fixtures.openai_server import FakeOpenAIServer, Reply


async def test_stream_cut_before_the_finish_is_a_connection_error(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(Reply(content="the first half of a long answer", cut_after=3))
    received = []
    with pytest.raises(ModelConnectionError) as info:
        async for item in model.astream(["hi"]):
            received.append(item)
    assert received, "some deltas arrive before the cut"
    assert "ended before the reply was complete" in str(info.value)
    assert isinstance(info.value, ConnectionError)


async def test_cut_stream_is_retried_by_model_retry_middleware(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(Reply(content="half an ans", cut_after=2))
    openai_server.reply_text("a whole answer")
    agent = create_agent(
        model,
        middleware=[
            ModelRetryMiddleware(max_retries=1, initial_delay=0.0, retry_on=(ConnectionError,))
        ],
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = None
        async for mode, chunk in agent.astream(
            {"messages": [HumanMessage(content="hi")]}, stream_mode=["messages", "values"]
        ):
            if mode == "values":
                out = chunk
    assert all(r.get("stream") for r in openai_server.requests)
    assert out is not None and out["messages"][-1].text == "a whole answer"
    outcomes = [e.outcome for e in events if e.kind == "attempt.finished"]  # type: ignore[attr-defined]
    assert outcomes == ["error", "ok"]


async def test_complete_stream_still_passes(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("fine")
    parts = [c async for c in model.astream(["hi"])]
    assert parts[-1].text == "fine"


@pytest.mark.parametrize("stream", [False, True])
async def test_deadline_bounds_the_whole_call(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    # each read is well inside the per-read timeout, but the reply never completes
    openai_server.enqueue(Reply(content="drip drip drip drip", delay=30.0, stall_after=2))
    model = OpenAIChatModel(
        "slow", base_url=openai_server.base_url, api_key="sk-x-123456", timeout=60.0, deadline=0.3
    )
    with pytest.raises(ModelTimeoutError) as info:
        if stream:
            _ = [c async for c in model.astream(["hi"])]
        else:
            openai_server.requests.clear()
            await model.ainvoke(["hi"], deadline=0.2)
    assert "deadline" in str(info.value)
    await model.aclose()


async def test_deadline_setting_is_not_sent_to_the_server(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("quick")
    assert (await model.ainvoke(["hi"], deadline=30)).text == "quick"
    assert "deadline" not in openai_server.requests[0]
    assert "deadline" not in openai_server.requests[0].get("extra_body", {})


@pytest.mark.parametrize("stream", [False, True])
async def test_html_page_instead_of_json_names_model_and_url(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, stream: bool
) -> None:
    page = "<html><body><h1>502 Bad Gateway</h1></body></html>"
    openai_server.enqueue(Reply(raw_body=page, content_type="text/html"))
    with pytest.raises(ModelResponseError) as info:
        if stream:
            _ = [c async for c in model.astream(["hi"])]
        else:
            await model.ainvoke(["hi"])
    text = str(info.value)
    assert "'test-model'" in text and openai_server.base_url in text
    assert "502 Bad Gateway" in text and "\n" not in text
