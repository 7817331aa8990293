"""A docs-style agent on a LangChain model runs the same whether or not the engine's own
listeners (the recorder, the studio) watch it: watching must not make a model that cannot
stream fail (``engine.agents.unstreamed``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.chat_models import BaseChatModel as LCChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool

from engine.agents import create_agent
from engine.checkpoint.memory import InMemorySaver
from engine.events import EventBase


class ToolFake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


class NoChunks(LCChatModel):
    """A model whose stream gives nothing (as some providers' do for a tool call)."""

    replies: list[Any]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "no-chunks"

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

    def _stream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        self.calls += 1
        return iter(())


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"It's always sunny in {city}!"


def replies() -> list[Any]:
    return [
        LCAIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "sf"}, "id": "w1"}]),
        LCAIMessage("It is sunny in sf."),
    ]


def run(model: Any, *, listen: bool) -> tuple[list[str], list[EventBase]]:
    agent = create_agent(model, tools=[get_weather], checkpointer=InMemorySaver())
    events: list[EventBase] = []
    if listen:
        agent.subscribe(events.append)
    out = agent.invoke(
        {"messages": [("user", "weather in sf?")]}, {"configurable": {"thread_id": "t"}}
    )
    return [f"{m.type}:{m.text}" for m in out["messages"]], events


def test_a_langchain_fake_answering_with_tool_calls_runs_while_watched() -> None:
    plain, _ = run(ToolFake(messages=iter(replies())), listen=False)
    watched, events = run(ToolFake(messages=iter(replies())), listen=True)
    assert watched == plain
    assert plain[-1] == "ai:It is sunny in sf."
    tokens = [e.__dict__ for e in events if e.kind == "model.token"]
    assert "".join(t["text"] for t in tokens) == "It is sunny in sf."  # the text reply's tokens
    assert not [e for e in events if e.kind == "middleware.action"]  # nothing was asked twice


def test_a_model_that_streams_nothing_is_asked_again_without_streaming() -> None:
    plain, _ = run(NoChunks(replies=replies()), listen=False)
    model = NoChunks(replies=replies())
    watched, events = run(model, listen=True)
    assert watched == plain
    fallbacks = [e.__dict__ for e in events if e.kind == "middleware.action"]
    assert [(f["middleware"], f["action"]) for f in fallbacks] == [
        ("Stepwise", "stream_fallback")
    ] * 2
    assert model.calls == 4  # each call: a stream with nothing in it, then the plain call


def test_a_messages_stream_the_app_asked_for_fails_as_langchain_does() -> None:
    agent = create_agent(NoChunks(replies=replies()), tools=[get_weather])
    with pytest.raises(ValueError, match="No generations found in stream"):
        list(agent.stream({"messages": [("user", "hi")]}, stream_mode="messages"))
