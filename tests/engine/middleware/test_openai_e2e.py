"""Middleware against a real HTTP model (a local OpenAI-compatible server), through create_agent."""

from __future__ import annotations

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import HumanMessage
from engine.middleware.builtins import (
    ModelFallbackMiddleware,
    ModelRetryMiddleware,
    PromptCachingMiddleware,
)
from engine.models import OpenAIChatModel, ScriptedChatModel
from engine.tools import tool
from tests.engine.middleware.helpers import actions
from tests.fixtures.openai_server import FakeOpenAIServer, openai_server

__all__ = ["openai_server"]


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: 21 C"


def model_for(server: FakeOpenAIServer) -> OpenAIChatModel:
    return OpenAIChatModel(
        "test-model", base_url=server.base_url, api_key="sk-test-key", timeout=5.0
    )


async def test_prompt_cache_key_reaches_the_server_on_every_call_and_retry(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.reply_error(500, "overloaded")
    openai_server.reply_tool_calls(("lookup", {"city": "Rome"}))
    openai_server.reply_text("It is 21 C in Rome.")
    model = model_for(openai_server)
    agent = create_agent(
        model,
        [lookup],
        system_prompt="You answer weather questions.",
        middleware=[
            ModelRetryMiddleware(max_retries=1, initial_delay=0.001),
            PromptCachingMiddleware(),
        ],
    )
    events: list[EventBase] = []
    try:
        with agent.subscribe(events.append):
            out = await agent.ainvoke({"messages": [HumanMessage(content="weather in Rome?")]})
    finally:
        await model.aclose()
    assert out["messages"][-1].text == "It is 21 C in Rome."
    keys = [r.get("prompt_cache_key") for r in openai_server.requests]
    assert len(keys) == 3 and keys[0] is not None and len(set(keys)) == 1
    failed = [e for e in events if e.kind == "attempt.finished" and e.outcome == "error"]  # type: ignore[attr-defined]
    assert [(e.error.type, e.will_retry) for e in failed] == [("ServerError", True)]  # type: ignore[attr-defined]
    assert {a.detail["key"] for a in actions(events, "prompt_cache_key")} == {keys[0]}


def test_fallback_from_a_failing_server_to_a_scripted_model(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.reply_error(429, "slow down")
    backup = ScriptedChatModel(["backup answer"], name="backup")
    agent = create_agent(model_for(openai_server), middleware=[ModelFallbackMiddleware(backup)])
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke({"messages": [HumanMessage(content="hi")]})
    assert out["messages"][-1].text == "backup answer"
    (switch,) = actions(events, "fallback_switch")
    assert switch.detail["from"] == "test-model" and switch.detail["to"] == "backup"
    assert switch.detail["error"]["type"] == "RateLimitError"
