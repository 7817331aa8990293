"""An attached graph's ``astream_events`` (LangChain's ``v2``) gives what the app's
own graph gives, while the run goes through Stepwise: its subscribers get the run's events and
a debugger given to it stops the run.  Each case runs on the plain graph and attached, and
compares the two streams event by event (what stays the same from run to run: kind, name,
tags, the node and step of the metadata, the depth of nesting, the data's keys, messages as
their type and content)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent
from langchain_core.callbacks import adispatch_custom_event
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from engine.attach import attach
from engine.debug import Debugger
from engine.events import EventBase
from tests.engine.attach.test_attach_stream import _nested, _plain, get_weather

CFG = {"configurable": {"thread_id": "t"}}
INPUT = {"messages": [HumanMessage("weather?")]}


class _Scripted(BaseChatModel):
    """A chat model answering from a script, streaming each reply's words and then its tool
    calls, as a provider's model does."""

    replies: list[AIMessage]
    at: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self

    def _next(self) -> AIMessage:
        self.at += 1
        return self.replies[self.at - 1]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next())])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        reply = self._next()
        for word in str(reply.content).split(" "):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word + " "))
        chunks: list[Any] = [
            {
                "name": c["name"],
                "args": json.dumps(c["args"]),
                "id": c["id"],
                "index": i,
            }
            for i, c in enumerate(reply.tool_calls)
        ]
        yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))


def _agent() -> Any:
    calls = [{"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}]
    replies = [AIMessage("let me check", tool_calls=calls), AIMessage("It is sunny.")]
    model = _Scripted(replies=replies)
    return create_agent(model, tools=[get_weather], checkpointer=InMemorySaver())


def _data(value: Any) -> Any:
    if isinstance(value, Command):
        return ("Command", _data(value.update), value.goto)
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    return _plain(value)


def _shape(ev: dict[str, Any]) -> tuple[Any, ...]:
    meta = ev.get("metadata") or {}
    data = ev.get("data") or {}
    kept = {k: _data(v) for k, v in data.items() if k in ("output", "chunk")}
    return (
        ev["event"],
        ev["name"],
        tuple(ev.get("tags") or ()),
        meta.get("langgraph_node"),
        meta.get("langgraph_step"),
        len(ev.get("parent_ids") or ()),
        tuple(sorted(data)),
        repr(kept),
    )


async def _events(graph: Any, inp: Any, **kw: Any) -> list[tuple[Any, ...]]:
    return [_shape(e) async for e in graph.astream_events(inp, CFG, version="v2", **kw)]


def test_an_agent_gives_the_apps_events_and_stepwise_sees_the_run() -> None:
    plain = asyncio.run(_events(_agent(), INPUT))
    attached = attach(_agent())
    seen: list[EventBase] = []
    attached.subscribe(seen.append)
    assert asyncio.run(_events(attached, INPUT)) == plain
    kinds = [e.kind for e in seen]
    assert kinds[0] == "run.started" and kinds[-1] == "run.finished"
    assert "tool.started" in kinds and "model.response" in kinds
    # the chat model streamed for the event stream, as on LangGraph
    assert "on_chat_model_stream" in [s[0] for s in plain]
    assert sum(e.kind == "model.token" for e in seen) > 0


def test_the_stream_keeps_the_apps_run_id() -> None:
    import uuid

    run_id = uuid.uuid4()

    async def run() -> set[str]:
        attached = attach(_agent())
        cfg = {**CFG, "run_id": run_id}
        return {e["run_id"] async for e in attached.astream_events(INPUT, cfg, version="v2")}

    seen: list[EventBase] = []
    assert str(run_id) in asyncio.run(run())
    attached = attach(_agent())
    attached.subscribe(seen.append)
    asyncio.run(_events(attached, INPUT))
    assert seen and len({e.run_id for e in seen}) == 1


def test_a_subgraph_an_interrupt_and_a_resume() -> None:
    async def both(graph: Any) -> tuple[list[Any], list[Any]]:
        first = await _events(graph, {"log": []})
        again = await _events(graph, Command(resume="yes"))
        return first, again

    plain = asyncio.run(both(_nested()))
    assert asyncio.run(both(attach(_nested()))) == plain
    assert any(s[0] == "on_chain_start" and s[1] == "s1" for s in plain[0])


def test_custom_events_and_filters() -> None:
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict):
        n: int

    async def step(s: S) -> dict[str, int]:
        await adispatch_custom_event("progress", {"at": s["n"]})
        return {"n": s["n"] + 1}

    def make() -> Any:
        b = StateGraph(S)
        b.add_node("step", step)  # pyright: ignore[reportArgumentType]
        b.add_edge(START, "step")
        return b.compile()

    kw: dict[str, Any] = {"include_names": ["step", "progress"]}
    plain = asyncio.run(_events(make(), {"n": 1}, **kw))
    assert asyncio.run(_events(attach(make()), {"n": 1}, **kw)) == plain
    assert [s[:2] for s in plain] == [
        ("on_chain_start", "step"),
        ("on_custom_event", "progress"),
        ("on_chain_stream", "step"),
        ("on_chain_end", "step"),
    ]


def test_a_debugger_given_to_the_event_stream_stops_the_run() -> None:
    dbg = Debugger()
    dbg.break_on_tool("get_weather")
    paused: list[str] = []

    def on_pause(d: Debugger) -> None:
        assert d.current_event is not None
        paused.append(d.current_event.kind)
        d.continue_()

    dbg.on_pause.append(on_pause)
    plain = asyncio.run(_events(_agent(), INPUT))
    assert asyncio.run(_events(attach(_agent()), INPUT, debugger=dbg)) == plain
    assert paused == ["tool.started"]


def test_the_sync_event_stream_is_langgraphs() -> None:
    """LangGraph streams events synchronously in its "v3" only; "v2" raises as it does."""
    with pytest.raises(NotImplementedError):
        list(_agent().stream_events(INPUT, CFG, version="v2"))
    with pytest.raises(NotImplementedError):
        list(attach(_agent()).stream_events(INPUT, CFG, version="v2"))
