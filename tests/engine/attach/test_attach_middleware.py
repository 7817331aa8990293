"""Attach mode sees into a real create_agent's ``wrap_model_call`` / ``wrap_tool_call``
middleware: every layer is a wrapper span, retries and fallbacks are attempts of the
middleware that made them, and the user's agent object is left exactly as it was."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelFallbackMiddleware,
    ToolRetryMiddleware,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from engine.attach import attach
from engine.events import EventBase
from tests.engine.attach.test_attach_langgraph import collect, weather


class Scripted(GenericFakeChatModel):
    """A fake chat model that binds tools and raises the exceptions found in its script."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        return super()._generate(*args, **kwargs)


class Down(GenericFakeChatModel):
    """A provider that is down."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("primary is down")


def ask_weather_then_answer(turns: int = 1) -> Scripted:
    call = {"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}
    script = [AIMessage("", tool_calls=[call]), AIMessage("Sunny.")] * turns
    return Scripted(messages=iter(script))


def by_span(events: list[EventBase]) -> dict[str, EventBase]:
    return {e.span_id: e for e in events if e.span_id and e.kind.endswith(".started")}


def chain_above(event: EventBase, spans: dict[str, EventBase]) -> list[str]:
    """The started events above ``event``, innermost first, as ``kind:middleware|node``."""
    out = []
    parent = spans.get(event.parent_span_id or "")
    while parent is not None:
        d = parent.__dict__
        out.append(f"{parent.kind}:{d.get('middleware') or d.get('node') or ''}")
        parent = spans.get(parent.parent_span_id or "")
    return out


@wrap_model_call
async def audit(request: Any, handler: Any) -> Any:
    return await handler(request)


def test_layers_nest_outermost_first_and_a_fallback_is_an_attempt_that_switches_model() -> None:
    agent = lc_create_agent(
        Down(messages=iter([])),
        tools=[weather],
        middleware=[audit, ModelFallbackMiddleware(ask_weather_then_answer())],
    )
    g = attach(agent)
    assert not g.sync and not g.instrumented.blind
    events = collect(g, {"messages": [("user", "weather?")]}, {})
    assert events[-1].__dict__["status"] == "done"
    spans = by_span(events)
    first_request = next(e for e in events if e.kind == "model.request")
    assert chain_above(first_request, spans)[:4] == [
        "attempt.started:ModelFallbackMiddleware",
        "wrapper.started:ModelFallbackMiddleware",
        "wrapper.started:audit",
        "node.started:model",
    ]
    failed = next(e for e in events if e.kind == "attempt.finished")
    assert failed.__dict__["outcome"] == "error" and failed.__dict__["will_retry"] is True
    assert failed.__dict__["model"] == "Down"
    assert failed.__dict__["fallback_model"] == "Scripted"
    assert failed.__dict__["max_attempts"] == 2
    assert failed.__dict__["error"].type == "ConnectionError"
    calls = [
        (e.__dict__["middleware"], e.__dict__["handler_calls"])
        for e in events
        if e.kind == "wrapper.finished"
    ]  # per model turn: the fallback layer calls twice (Down, then the fallback), audit once
    assert calls == [("ModelFallbackMiddleware", 2), ("audit", 1)] * 2
    started = [e for e in events if e.kind == "wrapper.started"]
    assert [e.__dict__["depth"] for e in started[:2]] == [0, 1]
    # the drawing knows the layers of the model node
    drawn = g.get_graph().nodes["model"].metadata
    assert drawn["wrappers"] == ["audit", "ModelFallbackMiddleware"]


def test_a_tool_retry_is_an_attempt_of_the_tool_retry_middleware() -> None:
    failures = iter([RuntimeError("flaky backend")])

    @wrap_tool_call
    def flaky(request: Any, handler: Any) -> Any:
        error = next(failures, None)
        if error is not None:
            raise error
        return handler(request)

    agent = lc_create_agent(
        ask_weather_then_answer(),
        tools=[weather],
        middleware=[ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False), flaky],
    )
    g = attach(agent)
    assert g.sync and g.instrumented.sync_only == ["flaky"]  # sync-only wrap_tool_call
    events = collect(g, {"messages": [("user", "weather?")]}, {})
    assert events[-1].__dict__["status"] == "done"
    attempts = [e for e in events if e.kind.startswith("attempt.")]
    assert [(e.kind, e.__dict__["attempt"], e.__dict__["tool"]) for e in attempts] == [
        ("attempt.started", 1, "weather"),
        ("attempt.finished", 1, "weather"),
        ("attempt.started", 2, "weather"),
        ("attempt.finished", 2, "weather"),
    ]
    assert attempts[1].__dict__["error"].message == "flaky backend"
    assert attempts[1].__dict__["will_retry"] is True
    # the flaky layer ran twice: once failing, once calling the tool
    flaky_ends = [
        e for e in events if e.kind == "wrapper.finished" and e.__dict__["middleware"] == "flaky"
    ]
    assert [(e.__dict__["outcome"], e.__dict__["handler_calls"]) for e in flaky_ends] == [
        ("error", 0),
        ("ok", 1),
    ]
    tool = next(e for e in events if e.kind == "tool.started")
    assert chain_above(tool, by_span(events))[:4] == [
        "wrapper.started:flaky",
        "attempt.started:ToolRetryMiddleware",
        "wrapper.started:ToolRetryMiddleware",
        "node.started:tools",
    ]


def test_a_home_made_retry_shows_its_second_call_as_attempt_two() -> None:
    class Twice(AgentMiddleware):
        """Calls the model, then again (not a retry middleware LangChain ships)."""

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            await handler(request)
            return await handler(request)

    model = Scripted(messages=iter([AIMessage("draft"), AIMessage("final")]))
    events = collect(attach(lc_create_agent(model, middleware=[Twice()])), {"messages": []}, {})
    requests = [e for e in events if e.kind == "model.request"]
    spans = by_span(events)
    assert chain_above(requests[0], spans)[0] == "wrapper.started:Twice"
    assert chain_above(requests[1], spans)[0] == "attempt.started:Twice"
    assert next(e for e in events if e.kind == "attempt.started").__dict__["attempt"] == 2


def test_exhausted_retries_close_the_last_attempt_without_a_retry() -> None:
    agent = lc_create_agent(
        Down(messages=iter([])),
        middleware=[ModelFallbackMiddleware(Down(messages=iter([])))],
    )
    g = attach(agent)
    events: list[EventBase] = []
    g.subscribe(events.append)
    with pytest.raises(ConnectionError, match="primary is down"):
        g.invoke({"messages": [("user", "hi")]})
    assert events[-1].__dict__["status"] == "error"
    ends = [e.__dict__ for e in events if e.kind == "attempt.finished"]
    assert [(d["attempt"], d["will_retry"]) for d in ends] == [(1, True), (2, False)]
    wrapper = next(e.__dict__ for e in events if e.kind == "wrapper.finished")
    assert wrapper["outcome"] == "error" and wrapper["error"].type == "ConnectionError"


def test_the_users_agent_is_never_modified() -> None:
    agent = lc_create_agent(
        ask_weather_then_answer(turns=2), tools=[weather], middleware=[audit, ToolRetryMiddleware()]
    )
    model_node = agent.nodes["model"].bound
    before = (model_node.afunc, model_node.afunc.__closure__, agent.nodes["tools"].bound)
    tool_wrapper = agent.nodes["tools"].bound._awrap_tool_call
    g = attach(agent)
    collect(g, {"messages": [("user", "weather?")]}, {})
    assert (model_node.afunc, model_node.afunc.__closure__, agent.nodes["tools"].bound) == before
    assert agent.nodes["tools"].bound._awrap_tool_call is tool_wrapper
    assert g.instrumented.graph is not agent
    # and the agent still runs on its own (async: ``audit`` is async only)
    out = asyncio.run(agent.ainvoke({"messages": [("user", "weather?")]}))
    assert out["messages"][-1].content == "Sunny."


def test_an_agent_added_as_a_subgraph_node_is_instrumented_too() -> None:
    from langgraph.graph import END, START, MessagesState, StateGraph

    agent = lc_create_agent(
        Down(messages=iter([])),
        middleware=[ModelFallbackMiddleware(Scripted(messages=iter([AIMessage("ok")])))],
    )
    outer = StateGraph(MessagesState).add_node("agent", agent)
    g = attach(outer.add_edge(START, "agent").add_edge("agent", END).compile())
    assert g.instrumented.wrappers == {"agent/model": ["ModelFallbackMiddleware"]}
    events = collect(g, {"messages": [("user", "hi")]}, {})
    assert events[-1].__dict__["status"] == "done"
    request = next(e for e in events if e.kind == "model.request")
    assert chain_above(request, by_span(events))[:5] == [
        "attempt.started:ModelFallbackMiddleware",
        "wrapper.started:ModelFallbackMiddleware",
        "node.started:model",
        "superstep.started:",
        "node.started:agent",
    ]


def test_a_composition_it_does_not_recognise_is_left_alone_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import engine.attach.wrappers as wrappers

    monkeypatch.setattr(wrappers, "_rebuild", lambda fn, walk: None)  # as if LangChain changed
    agent = lc_create_agent(
        ask_weather_then_answer(), tools=[weather], middleware=[ToolRetryMiddleware()]
    )
    g = attach(agent)
    assert g.instrumented.blind == ["tools"]  # the model node has no wrap_model_call layers
    # the node it could not see into runs exactly as built (the model node has Stepwise's
    # innermost layer, for faults and replay: engine.attach.innermost)
    assert g.instrumented.graph.nodes["tools"].bound is agent.nodes["tools"].bound
    assert any("'tools' could not be seen into" in n for n in g.notices())
    events = collect(g, {"messages": [("user", "weather?")]}, {})
    assert events[-1].__dict__["status"] == "done"
    nodes = {e.span_id: e.__dict__["node"] for e in events if e.kind == "node.started"}
    tool = next(e for e in events if e.kind == "tool.started")
    assert nodes[tool.parent_span_id] == "tools"  # still shown, directly under its node
