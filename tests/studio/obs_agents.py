"""Agents for the cost, waterfall, request and loop tests (and their screenshots).

``priced_agent``: a scripted model named ``gpt-4o-mini`` (a model with a built-in price) that
reports usage like OpenAI does; its first call times out and is retried, then it asks for two
tools at once (run in parallel, one slower), then answers.  ``unpriced_agent``: the same with a
model name no price list knows.  ``looping_agent``: a model that keeps calling a tool the agent
does not have.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

REQUEST = "What is the weather in Oslo and the time in Lima?"
SYSTEM = "You answer questions about places. Use the tools."


def usage(inp: int, out: int, cached: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
    if cached:
        found["input_token_details"] = {"cache_read": cached}
    return found


@tool
async def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: the city's name
    """
    await asyncio.sleep(0.03)
    return f"Sunny in {city}, 21 °C"


@tool
async def local_time(city: str) -> str:
    """The local time in a city.

    Args:
        city: the city's name
    """
    await asyncio.sleep(0.01)
    return f"It is 14:05 in {city}"


def script(turns: int = 1) -> list[Any]:
    """Per turn: a timeout, two parallel tool calls, the answer (usage as OpenAI reports)."""
    calls = [
        ToolCall(name="weather", args={"city": "Oslo"}, id="call_w"),
        ToolCall(name="local_time", args={"city": "Lima"}, id="call_t"),
    ]
    return [
        TimeoutError("model call timed out after 30 s"),
        AIMessage(content="", tool_calls=calls, usage_metadata=usage(412, 38)),
        AIMessage(
            content="Oslo is sunny at 21 °C; in Lima it is 14:05.",
            usage_metadata=usage(518, 22, cached=384),
        ),
    ] * turns


def priced_agent(name: str = "gpt-4o-mini", delay: float = 0.02, turns: int = 1) -> Any:
    model = ScriptedChatModel(
        script(turns), name=name, temperature=0.2, api_key="sk-test-not-shown"
    )
    return create_agent(
        model,
        [weather, local_time],
        system_prompt=SYSTEM,
        middleware=[
            ModelRetryMiddleware(
                max_retries=2, retry_on=(TimeoutError,), initial_delay=delay, jitter=False
            )
        ],
        name="places",
    )


def unpriced_agent() -> Any:
    return priced_agent(name="house-model-7b")


def looping_agent(calls: int = 40) -> Any:
    script_items = [
        AIMessage(
            content="",
            tool_calls=[ToolCall(name="search_web", args={"q": f"oslo {i}"}, id=f"c{i}")],
            usage_metadata=usage(300 + 40 * i, 12),
        )
        for i in range(calls)
    ]
    model = ScriptedChatModel(script_items, name="gpt-4o-mini")
    return create_agent(model, [weather], system_prompt=SYSTEM, name="looper")


def first_input() -> dict[str, Any]:
    return {"messages": [HumanMessage(REQUEST)]}
