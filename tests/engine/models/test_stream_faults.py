"""Faults in the middle of a stream: a dropped connection is an error, never a short answer."""

from __future__ import annotations

import pytest

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import HumanMessage
from engine.middleware.builtins import ModelRetryMiddleware
from engine.models import ModelConnectionError, OpenAIChatModel
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
