"""The events an agent run emits: hooks, wrappers, model and tool calls, routes, nesting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import create_agent
from engine.debug import Debugger
from engine.events import EventBase
from engine.middleware import AgentMiddleware, before_model, wrap_model_call
from engine.models import ScriptedChatModel

from .helpers import Tracer, ai, ask, call, echo


def by_kind(events: list[EventBase], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def spans(events: list[EventBase]) -> dict[str, EventBase]:
    """span_id -> the event that opened it."""
    out: dict[str, EventBase] = {}
    for e in events:
        if e.span_id and e.span_id not in out:
            out[e.span_id] = e
    return out


def parent(events: list[EventBase], e: EventBase) -> EventBase:
    return spans(events)[e.parent_span_id]  # type: ignore[index]


async def collect(agent: Any, mode: str) -> list[EventBase]:
    if mode == "astream_events":
        return [e async for e in agent.astream_events(ask(), version="stepwise")]
    events: list[EventBase] = []
    sub = agent.subscribe(events.append)
    try:
        if mode == "sync":
            await asyncio.to_thread(agent.invoke, ask())
        else:
            await agent.ainvoke(ask())
    finally:
        sub.close()
    return events


@pytest.mark.parametrize("mode", ["async", "sync", "astream_events"])
async def test_events_nest_hook_wrapper_model_tool_route(mode: str):
    log: list[str] = []
    model = ScriptedChatModel(
        [ai(call("echo", "c1", text="a"), call("echo", "c2", text="b")), "done"]
    )
    agent = create_agent(model, [echo], middleware=[Tracer("Outer", log), Tracer("Inner", log)])
    events = await collect(agent, mode)
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

    # hooks: inside their node's span
    hook = next(e for e in by_kind(events, "hook.started") if e.node == "Inner.before_model")
    assert parent(events, hook).kind == "node.started"
    assert parent(events, hook).node == "Inner.before_model"  # type: ignore[attr-defined]
    done = next(e for e in by_kind(events, "hook.finished") if e.span_id == hook.span_id)
    assert (done.middleware, done.hook, done.error) == ("Inner", "before_model", None)

    # wrappers: outermost inside the model node, the inner one inside the outer one
    w = [e for e in by_kind(events, "wrapper.started") if e.wrapper == "wrap_model_call"]
    assert [(e.middleware, e.depth) for e in w] == [("Outer", 0), ("Inner", 1)] * 2
    assert parent(events, w[0]).node == "model"  # type: ignore[attr-defined]
    assert w[1].parent_span_id == w[0].span_id
    finished = [e for e in by_kind(events, "wrapper.finished") if e.wrapper == "wrap_model_call"]
    assert {(e.outcome, e.handler_calls) for e in finished} == {("ok", 1)}

    # the model call: request, tokens, response share one span inside the innermost wrapper
    req = by_kind(events, "model.request")[0]
    assert req.parent_span_id == w[1].span_id
    assert (req.model, req.messages_count, req.tools, req.streaming) == (
        "scripted",
        1,
        ["echo"],
        True,
    )
    assert req.request_hash and len(req.request_hash) == 64
    resp = by_kind(events, "model.response")[0]
    assert resp.span_id == req.span_id and resp.error is None
    assert resp.message["tool_calls"][0]["id"] == "c1"
    tokens = [e for e in by_kind(events, "model.token") if e.span_id == req.span_id]
    assert tokens and all(t.tool_call_chunks for t in tokens)
    text_tokens = [
        e
        for e in by_kind(events, "model.token")
        if e.span_id == by_kind(events, "model.request")[1].span_id
    ]
    assert "".join(t.text for t in text_tokens) == "done"

    # tools: one wrapper stack per call, tool events inside the innermost tool wrapper
    tw = [e for e in by_kind(events, "wrapper.started") if e.wrapper == "wrap_tool_call"]
    assert sorted((e.tool_call_id, e.middleware, e.depth) for e in tw) == [
        ("c1", "Inner", 1), ("c1", "Outer", 0), ("c2", "Inner", 1), ("c2", "Outer", 0),
    ]  # fmt: skip
    for started in by_kind(events, "tool.started"):
        wrapper = parent(events, started)
        assert (wrapper.kind, wrapper.middleware, wrapper.tool_call_id) == (  # type: ignore[attr-defined]
            "wrapper.started",
            "Inner",
            started.tool_call_id,
        )
    results = {
        e.tool_call_id: (e.status, e.result["content"]) for e in by_kind(events, "tool.finished")
    }
    assert results == {"c1": ("success", "echo:a"), "c2": ("success", "echo:b")}

    # routes with reasons
    routes = [
        (e.from_node, e.reason, e.detail) for e in by_kind(events, "route") if e.reason != "static"
    ]
    assert ("Outer.after_model", "tool_calls", "2 pending tool calls") in routes
    assert routes.count(("tools", "tool_calls", "tool results ready; back to the model")) == 2
    assert ("Outer.after_model", "no_tool_calls", "the model answered without tool calls") in routes
    sends = next(e for e in by_kind(events, "route") if e.reason == "tool_calls" and e.sends)
    assert [s["arg"]["id"] for s in sends.sends] == ["c1", "c2"]


async def test_retrying_wrapper_reports_handler_calls_and_failed_inner_attempts():
    @wrap_model_call
    async def retry(request: Any, handler: Any) -> Any:
        try:
            return await handler(request)
        except TimeoutError:
            return await handler(request)

    model = ScriptedChatModel([TimeoutError("slow"), "ok"])
    agent = create_agent(model, middleware=[retry, Tracer("Inner", [])])
    events = await collect(agent, "async")
    outer = next(e for e in by_kind(events, "wrapper.finished") if e.middleware == "retry")
    assert (outer.outcome, outer.handler_calls) == ("ok", 2)
    inner = [
        (e.outcome, e.error and e.error.type)
        for e in by_kind(events, "wrapper.finished")
        if e.middleware == "Inner"
    ]
    assert inner == [("error", "TimeoutError"), ("ok", None)]
    responses = by_kind(events, "model.response")
    assert [r.error and r.error.type for r in responses] == ["TimeoutError", None]


async def test_injected_faults_look_like_real_failures():
    dbg = Debugger()
    dbg.inject_model_error(times=1)
    dbg.inject_tool_error("echo", times=1)

    class Retry(AgentMiddleware):
        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            try:
                return await handler(request)
            except TimeoutError:
                return await handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            try:
                return await handler(request)
            except OSError:
                return await handler(request)

    model = ScriptedChatModel([ai(call("echo", "c1", text="x")), "done"])
    agent = create_agent(model, [echo], middleware=[Retry()])
    events: list[EventBase] = []
    agent.subscribe(events.append)
    out = await agent.ainvoke(ask(), debugger=dbg)
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert len(model.calls) == 2  # the injected timeout never reached the model
    failed_tool = [e for e in by_kind(events, "tool.finished") if e.status == "error"]
    assert failed_tool[0].error.type == "OSError"
    assert [e.detail["kind"] for e in by_kind(events, "middleware.action")] == ["model", "tool"]


async def test_hook_events_carry_update_and_jump():
    @before_model(can_jump_to=["end"])
    def stop(state: Any) -> dict[str, Any]:
        return {"jump_to": "end", "messages": []}

    events = await collect(create_agent(ScriptedChatModel([]), middleware=[stop]), "async")
    done = by_kind(events, "hook.finished")[0]
    assert (done.node, done.jump_to, done.update) == (
        "stop.before_model",
        "end",
        {"messages": [], "jump_to": "end"},
    )
    route = next(e for e in by_kind(events, "route") if e.from_node == "stop.before_model")
    assert (route.to, route.reason, route.detail) == (
        ["__end__"],
        "jump_to",
        "jump_to=end from stop.before_model",
    )


async def test_messages_stream_mode_streams_tokens_once():
    model = ScriptedChatModel(["hello there friend"])
    agent = create_agent(model)
    chunks = [c async for c in agent.astream(ask(), stream_mode="messages")]
    texts = [m.text for m, meta in chunks]
    assert "".join(texts) == "hello there friend"
    # three word-ish chunks and the empty closing one; the final message is not repeated
    assert len(chunks) == 4 and [m.chunk_position for m, _ in chunks][-1] == "last"
    assert all(meta["langgraph_node"] == "model" for _, meta in chunks)


def test_model_request_events_never_carry_credentials() -> None:
    from engine.agents.model_node import public_settings

    shown = public_settings(
        {
            "temperature": 0.2,
            "api_key": "sk-live-SECRET",
            "extra_headers": {"Authorization": "Bearer sk-live-SECRET"},
            "prompt_cache_key": "abc",
            "max_tokens": 100,
            "default_headers": {"X-Api-Key": "k"},
        }
    )
    assert shown["temperature"] == 0.2
    assert shown["prompt_cache_key"] == "abc" and shown["max_tokens"] == 100
    assert shown["default_headers"] == "[redacted]"
    assert "SECRET" not in str(shown)
    assert shown["api_key"] == shown["extra_headers"] == "[redacted]"
