"""``astream_events(version="v2")`` yields LangChain's event dicts (the docs' pattern of
printing ``on_chat_model_stream`` tokens works); without a version, the engine's own events."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from engine import START, StateGraph
from engine.events import EventBase
from engine.graph import MessagesState
from engine.models import ScriptedChatModel


def _graph() -> Any:
    model = ScriptedChatModel(["hello there friend"])

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    return StateGraph(MessagesState).add_node("chat", chat).add_edge(START, "chat").compile()


async def _events(graph: Any, **kw: Any) -> list[Any]:
    return [e async for e in graph.astream_events({"messages": [("user", "hi")]}, **kw)]


def test_v2_events_are_langchain_dicts_with_a_run_tree_and_model_tokens() -> None:
    events = asyncio.run(_events(_graph(), version="v2"))
    kinds = [(e["event"], e["name"]) for e in events]
    assert kinds[0] == ("on_chain_start", "LangGraph") and kinds[-1] == (
        "on_chain_end",
        "LangGraph",
    )
    assert ("on_chain_start", "chat") in kinds and ("on_chain_end", "chat") in kinds
    tokens = [e["data"]["chunk"].text for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(tokens) == "hello there friend" and len(tokens) > 1
    root = events[0]["run_id"]
    chat_start = next(e for e in events if e["event"] == "on_chain_start" and e["name"] == "chat")
    assert chat_start["parent_ids"] == [root] and events[0]["parent_ids"] == []
    assert chat_start["metadata"]["langgraph_node"] == "chat"
    model_events = [e for e in events if e["event"].startswith("on_chat_model")]
    assert model_events[0]["event"] == "on_chat_model_start"
    assert model_events[-1]["event"] == "on_chat_model_end"
    assert model_events[-1]["data"]["output"].text == "hello there friend"
    assert all(e["parent_ids"] == [root, chat_start["run_id"]] for e in model_events)
    end = events[-1]["data"]["output"]
    assert end["messages"][-1].text == "hello there friend"
    root_chunks = [
        e["data"]["chunk"]
        for e in events
        if e["event"] == "on_chain_stream" and not e["parent_ids"]
    ]
    assert list(root_chunks[-1]) == ["chat"]  # the graph streams its updates


def test_a_consumer_that_stops_early_cancels_the_run() -> None:
    started: list[str] = []
    cancelled: list[str] = []
    running: list[asyncio.Event] = []

    async def slow(state: MessagesState) -> dict[str, Any]:
        started.append("slow")
        running[0].set()
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise
        return {}

    graph = (
        StateGraph(MessagesState)
        .add_node("fast", lambda s: {"messages": [("ai", "x")]})
        .add_node("slow", slow)
        .add_edge(START, "fast")
        .add_edge("fast", "slow")
        .compile()
    )

    async def consume() -> None:
        running.append(asyncio.Event())
        stream = graph.astream_events({"messages": []}, version="v2")
        async with contextlib.aclosing(stream):
            async for e in stream:
                if e["event"] == "on_chain_start" and e["name"] == "slow":
                    await running[0].wait()
                    break

    asyncio.run(consume())
    assert started == ["slow"] and cancelled == ["slow"]


def test_include_and_exclude_filters_pick_events_as_langchain_does() -> None:
    only_graph = asyncio.run(_events(_graph(), version="v2", include_names=["LangGraph"]))
    assert {e["name"] for e in only_graph} == {"LangGraph"}
    models = asyncio.run(_events(_graph(), version="v2", include_types=["chat_model"]))
    assert models and all(e["event"].startswith("on_chat_model") for e in models)
    no_chat = asyncio.run(
        _events(_graph(), version="v2", include_types=["chain"], exclude_names=["chat"])
    )
    assert no_chat and all(e["name"] != "chat" for e in no_chat)
    assert all(e["event"].startswith("on_chain") for e in no_chat)


def test_without_a_version_the_events_are_langchains_v2_dicts_as_in_langgraph() -> None:
    default = asyncio.run(_events(_graph()))
    v2 = asyncio.run(_events(_graph(), version="v2"))
    assert default and all(isinstance(e, dict) for e in default)
    assert [(e["event"], e["name"]) for e in default] == [(e["event"], e["name"]) for e in v2]
    sync = list(_graph().stream_events({"messages": [("user", "hi")]}))
    assert [(e["event"], e["name"]) for e in sync] == [(e["event"], e["name"]) for e in v2]


def test_stepwise_events_are_asked_for_by_name() -> None:
    ours = asyncio.run(_events(_graph(), version="stepwise"))
    assert ours[0].kind == "run.started" and all(isinstance(e, EventBase) for e in ours)
    with pytest.raises(ValueError, match="unknown version 'v9'"):
        asyncio.run(_events(_graph(), version="v9"))
