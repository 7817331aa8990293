"""Attach mode asks LangGraph for the stream modes it needs and no more: ``values`` only for a
graph without a checkpointer (there each ``values`` chunk ends a superstep and the last one is
the output), ``messages`` only when tokens are streamed.  What a user sees is the same as when
every mode was asked for: the same events, with the same content, in the same order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain.agents.middleware import before_model, wrap_model_call, wrap_tool_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.pregel import Pregel
from langgraph.types import interrupt

import engine.attach.run as attach_run
from engine.attach import attach
from engine.attach.run import stream_modes
from engine.events import EventBase
from engine.serde import to_jsonable
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import StreamsWords, collect, weather

_EVERY_MODE = ["values", "updates", "checkpoints", "custom"]
"""What attach asked for before it asked only for what it needs."""


class ToolModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@before_model
def look(state: Any, runtime: Any) -> None:
    return None


@wrap_model_call
def around_model(request: Any, handler: Any) -> Any:
    return handler(request)


@wrap_tool_call
def around_tool(request: Any, handler: Any) -> Any:
    return handler(request)


def agent(*, middleware: bool, saver: bool = True) -> Any:
    calls = [
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": c}, "id": f"c{i}"}])
        for i, c in enumerate(("Oslo", "Rome"))
    ]
    model = ToolModel(messages=iter([*calls, AIMessage("Sunny in both.")]))
    return lc_create_agent(
        model,
        tools=[weather],
        middleware=[look, around_model, around_tool] if middleware else [],
        checkpointer=InMemorySaver() if saver else None,
    )


class Review(TypedDict):
    n: int
    verdict: str


def review_graph(saver: bool = True) -> Any:
    def bump(state: Review) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    def review(state: Review) -> dict[str, Any]:
        return {"verdict": interrupt({"n": state["n"]})}

    return (
        StateGraph(Review)
        .add_node("bump", bump)
        .add_node("review", review)
        .add_edge(START, "bump")
        .add_edge("bump", "review")
        .add_edge("review", END)
        .compile(checkpointer=InMemorySaver() if saver else None)
    )


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The stream modes of every LangGraph stream an attached run starts."""
    seen: list[list[str]] = []
    real_stream, real_astream = Pregel.stream, Pregel.astream

    def stream(self: Any, *args: Any, **kw: Any) -> Any:
        seen.append(list(kw.get("stream_mode") or []))
        return real_stream(self, *args, **kw)

    def astream(self: Any, *args: Any, **kw: Any) -> Any:
        seen.append(list(kw.get("stream_mode") or []))
        return real_astream(self, *args, **kw)

    monkeypatch.setattr(Pregel, "stream", stream)
    monkeypatch.setattr(Pregel, "astream", astream)
    yield seen


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}[0-9a-f-]*|\b[0-9a-f]{32}\b")
"""UUIDs (also cut short by a summary) and 32-hex-digit ids."""
_VARYING = {"ts", "mono_ns", "seq", "run_id", "duration_ms", "latency_ms"}


def shown(events: list[EventBase]) -> list[str]:
    """The events as a user sees them, with what differs from run to run (ids, times)
    replaced by the order in which each id first appeared."""
    names: dict[str, str] = {}

    def ordinal(value: str) -> str:
        return names.setdefault(value, f"<id{len(names)}>")

    out = []
    for e in events:
        fields = {k: v for k, v in e.__dict__.items() if k not in _VARYING and v is not None}
        text = json.dumps(to_jsonable(fields), sort_keys=True)
        for key in ("span_id", "parent_span_id"):
            span = fields.get(key)
            if isinstance(span, str):
                text = text.replace(json.dumps(span), json.dumps(ordinal(span)))
        out.append(_UUID.sub(lambda m: ordinal(m.group(0)), text))
    return out


def run_both(
    monkeypatch: pytest.MonkeyPatch, make: Any, inputs: list[Any], **attach_kw: Any
) -> tuple[list[str], list[str]]:
    """The events of the same runs (one thread, ``inputs`` in turn) with the modes attach asks
    for now and with every mode, each on a fresh app from ``make``."""

    def runs() -> list[EventBase]:
        g = attach(make(), **attach_kw)
        events: list[EventBase] = []
        for inp in inputs:
            events += collect(g, inp, {"configurable": {"thread_id": "t"}})
        return events

    now = runs()
    with monkeypatch.context() as m:
        m.setattr(attach_run, "stream_modes", lambda **kw: list(_EVERY_MODE))
        before = runs()
    return shown(now), shown(before)


def test_values_are_asked_for_only_without_a_checkpointer() -> None:
    assert "values" not in stream_modes(checkpointer=True)
    assert "values" in stream_modes(checkpointer=False)
    assert "messages" not in stream_modes(checkpointer=True)
    assert stream_modes(checkpointer=True, tokens=True)[-1] == "messages"
    assert {"updates", "checkpoints", "custom"} <= set(stream_modes(checkpointer=True))


@pytest.mark.parametrize("middleware", [False, True], ids=["astream", "sync-middleware"])
def test_an_agent_with_a_checkpointer_shows_the_same_events_without_values(
    monkeypatch: pytest.MonkeyPatch, asked: list[list[str]], middleware: bool
) -> None:
    now, before = run_both(
        monkeypatch, lambda: agent(middleware=middleware), [{"messages": [("user", "hi")]}]
    )
    # sync or async, a run takes the app's stream writes where they are made
    # (``engine.attach.tapped``) instead of asking for LangGraph's ``custom`` mode
    assert asked[0] == ["updates", "checkpoints"]
    assert now == before
    kinds = {json.loads(e)["kind"] for e in now}
    wanted = {
        "node.started", "node.finished", "model.request", "model.response", "tool.started",
        "tool.finished", "checkpoint.saved", "state.updated", "route", "superstep.finished",
    }  # fmt: skip
    if middleware:
        wanted |= {"hook.started", "hook.finished", "wrapper.started", "wrapper.finished"}
    assert wanted <= kinds


def test_an_interrupt_and_its_resume_show_the_same_without_values(
    monkeypatch: pytest.MonkeyPatch, asked: list[list[str]]
) -> None:
    now, before = run_both(monkeypatch, review_graph, [{"n": 1}, Command(resume="ok")])
    assert "values" not in asked[0]
    assert now == before
    kinds = [json.loads(e)["kind"] for e in now]
    assert "interrupt.raised" in kinds and "interrupt.resumed" in kinds


def test_the_output_comes_from_the_saver_with_a_checkpointer(asked: list[list[str]]) -> None:
    g = attach(review_graph())
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"n": 1}, cfg)
    assert g.invoke(Command(resume="ok"), cfg) == {"n": 2, "verdict": "ok"}
    assert all("values" not in modes for modes in asked)


def test_without_a_checkpointer_values_end_the_supersteps_and_give_the_output(
    asked: list[list[str]],
) -> None:
    g = attach(agent(middleware=False, saver=False))
    events: list[EventBase] = []
    g.subscribe(events.append)
    out = g.invoke({"messages": [("user", "hi")]})
    assert asked[0][0] == "values"
    assert out["messages"][-1].content == "Sunny in both."
    changes = [e for e in events if e.kind == "state.updated"]
    steps = [e for e in events if e.kind == "superstep.finished"]
    assert len(changes) >= 6 and len(steps) == len(
        [e for e in events if e.kind == "superstep.started"]
    )


def test_tokens_still_stream_when_asked(asked: list[list[str]]) -> None:
    model = StreamsWords(messages=iter([AIMessage("sunny and warm")]))
    g = attach(lc_create_agent(model, checkpointer=InMemorySaver()), stream_tokens=True)
    events = collect(g, {"messages": [("user", "weather?")]}, {"configurable": {"thread_id": "t"}})
    assert asked[0] == ["updates", "checkpoints", "messages"]  # stream writes: tapped
    tokens = [e.__dict__["text"] for e in events if e.kind == "model.token"]
    assert "".join(tokens) == "sunny and warm"
