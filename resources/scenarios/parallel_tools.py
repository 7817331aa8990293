"""Parallel tool calls: three tools run at once, reading the agent's state (InjectedState) and a shared store (InjectedStore).

Offline on the scripted model.  The user asks for the weather in two cities "for me".  The
model calls three tools in one turn, and the ``tools`` node runs them concurrently (watch them
in flight on the Graph dock):

    get_weather("Paris")   get_weather("Tokyo")   get_profile()     <- InjectedStore: reads the
                                                                        user's profile
    remember("asked for Paris and Tokyo")   count_messages()        <- InjectedStore: writes a
                                                                        note; InjectedState:
                                                                        counts the conversation

then answers with both forecasts in the user's preferred unit.  The injected arguments are filled
in by the runtime and never shown to the model (they are not in the tool schemas).  Set
``STEPWISE_MODEL`` (for example ``openai:gpt-4o-mini``) to run it on a real model instead.
"""

from __future__ import annotations

import asyncio
import os
from typing import Annotated, Any

from engine.agents import create_agent
from engine.checkpoint.memory import InMemorySaver
from engine.graph.compiled import CompiledStateGraph
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.models import ScriptedChatModel, init_chat_model
from engine.store import BaseStore, InMemoryStore
from engine.tools import BaseTool, InjectedState, InjectedStore, tool

__all__ = ["INPUT", "USER", "agent", "build_agent", "make_store", "make_tools", "reply"]

INPUT = "What's the weather in Paris and Tokyo for me today? And remember that I asked."
USER = "ada"
FORECASTS = {"paris": (18, "light rain"), "tokyo": (24, "sunny")}


def make_store() -> InMemoryStore:
    """The long-term memory the tools share: the user's profile, and notes they leave."""
    store = InMemoryStore()
    store.put(("users",), USER, {"name": "Ada", "unit": "fahrenheit", "home": "London"})
    return store


def make_tools(delay: float) -> list[BaseTool]:
    @tool
    async def get_weather(city: str) -> str:
        """Today's weather in a city, in Celsius.

        Args:
            city: the city's name, e.g. "Paris"
        """
        await asyncio.sleep(delay)
        temp, sky = FORECASTS.get(city.lower(), (20, "clear"))
        return f"{city}: {temp} °C, {sky}"

    @tool
    async def get_profile(store: Annotated[BaseStore, InjectedStore()]) -> dict[str, Any]:
        """The current user's profile (name, preferred temperature unit, home city)."""
        await asyncio.sleep(delay * 0.6)
        item = await store.aget(("users",), USER)
        return item.value if item is not None else {}

    @tool
    async def remember(note: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
        """Save a note about the user for later conversations.

        Args:
            note: what to remember
        """
        await asyncio.sleep(delay * 0.5)
        existing = await store.asearch(("notes", USER))
        await store.aput(("notes", USER), f"note-{len(existing) + 1}", {"text": note})
        return f"remembered: {note}"

    @tool
    def count_messages(state: Annotated[dict[str, Any], InjectedState]) -> str:
        """How long the conversation is so far."""
        return f"{len(state.get('messages', []))} messages so far"

    return [get_weather, get_profile, remember, count_messages]


def _call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid}


def _fahrenheit(celsius: int) -> int:
    return round(celsius * 9 / 5 + 32)


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    """The scripted model's policy: fan out three calls, then two, then answer."""
    results = {m.name: m.text for m in messages if isinstance(m, ToolMessage)}
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage):
        return AIMessage(
            content="Let me check both forecasts and your profile at once.",
            tool_calls=[
                _call("get_weather", {"city": "Paris"}, "call_paris"),
                _call("get_weather", {"city": "Tokyo"}, "call_tokyo"),
                _call("get_profile", {}, "call_profile"),
            ],
        )
    if "remember" not in results:
        return AIMessage(
            content="",
            tool_calls=[
                _call(
                    "remember", {"note": "asked for the weather in Paris and Tokyo"}, "call_note"
                ),
                _call("count_messages", {}, "call_count"),
            ],
        )
    unit_f = "fahrenheit" in results.get("get_profile", "")
    lines = []
    for city, (temp, sky) in (("Paris", FORECASTS["paris"]), ("Tokyo", FORECASTS["tokyo"])):
        shown = f"{_fahrenheit(temp)} °F" if unit_f else f"{temp} °C"
        lines.append(f"{city}: {shown}, {sky}")
    return AIMessage(
        content="Today, in your preferred unit:\n" + "\n".join(lines) + "\nI noted that you asked."
    )


def _model() -> Any:
    spec = os.environ.get("STEPWISE_MODEL")
    if spec:
        return init_chat_model(spec, base_url=os.environ.get("STEPWISE_BASE_URL") or None)
    return ScriptedChatModel([reply] * 50, name="scripted-planner")


def build_agent(
    *, delay: float = 0.8, model: Any = None, store: BaseStore | None = None
) -> CompiledStateGraph:
    """A fresh agent with its own store (``delay``: how long each tool takes, in seconds)."""
    return create_agent(
        model or _model(),
        make_tools(delay),
        system_prompt="You are a helpful assistant. Call independent tools in parallel.",
        store=store or make_store(),
        checkpointer=InMemorySaver(),
        name="parallel_tools",
    )


agent = build_agent()
