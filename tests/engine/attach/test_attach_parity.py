"""What the debugger offers on the embedded engine, on a docs-style attached agent: faults
injected into its model and tool calls (seen by its retry middleware as real errors), a re-run
from a checkpoint served from the recorded model replies (the model is not called), a pause at
the start of a retry's backoff, model tokens, and a quiet fallback for a model that cannot
stream."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from engine.attach import attach
from engine.debug import Debugger
from engine.errors import RunStopped
from engine.events import EventBase
from engine.models.replay import ReplayChatModel
from engine.targets import STAY, AttachTarget, RunDriver, RunOutcome, RunRequest
from engine.types import Command
from tests.fixtures.docs_apps import APPROVE, AppFile, agent_app
from tests.fixtures.plain_langgraph import plain_module


def drive(
    graph: Any,
    request: RunRequest,
    answers: list[Any],
    dbg: Debugger | None = None,
) -> tuple[RunOutcome, list[EventBase]]:
    events: list[EventBase] = []
    todo = iter(answers)

    async def answer(_interrupts: Any) -> Any:
        value = next(todo, STAY)
        return value if value is STAY else Command(resume=value)

    async def go() -> RunOutcome:
        return await RunDriver(AttachTarget(graph), dbg or Debugger()).drive(
            request, events.append, answer
        )

    return asyncio.run(go()), events


def agent(tmp_path: Path, *, tokens: bool = False) -> tuple[Any, Any, AppFile]:
    app = agent_app(tmp_path, "sync", "memory")
    module = plain_module(app)
    module.model.timeouts = 0  # no timeout of its own: the faults are ours
    return attach(module.graph, stream_tokens=tokens), module, app


def test_a_model_fault_is_retried_by_the_apps_retry_middleware(tmp_path: Path) -> None:
    graph, module, _ = agent(tmp_path)
    dbg = Debugger()
    dbg.inject_model_error()
    outcome, events = drive(graph, RunRequest(module.INPUT, "t"), [APPROVE], dbg)
    assert outcome.status == "done", outcome.error
    injected = [e for e in events if e.kind == "middleware.action"]
    assert [e.__dict__["action"] for e in injected] == ["fault_injected"]
    attempts = [e for e in events if e.kind == "attempt.finished"]
    first = attempts[0].__dict__
    assert first["outcome"] == "error" and first["will_retry"] is True
    assert "Injected model timeout" in first["error"].message
    assert attempts[1].__dict__["outcome"] == "ok"


def test_a_tool_fault_fails_that_tool_call_without_running_it(tmp_path: Path) -> None:
    graph, module, _ = agent(tmp_path)
    calls: list[str] = []
    real = module.get_weather.func
    module.get_weather.func = lambda city: calls.append(city) or real(city)
    dbg = Debugger()
    dbg.inject_tool_error("get_weather")
    outcome, events = drive(graph, RunRequest(module.INPUT, "t"), [], dbg)
    assert calls == []  # the injected failure took its place
    assert outcome.status == "error"
    assert outcome.error is not None and "Injected failure of tool 'get_weather'" in outcome.error
    assert any(e.__dict__.get("action") == "fault_injected" for e in events)


def test_a_rerun_from_a_checkpoint_is_served_from_the_recording(tmp_path: Path) -> None:
    graph, module, _ = agent(tmp_path)
    first, events = drive(graph, RunRequest(module.INPUT, "t"), [APPROVE])
    assert first.status == "done"
    saved = [e for e in events if e.kind == "checkpoint.saved" and not e.ns]
    # the checkpoint right after the weather tool answered: the model is asked next
    fork = next(e for e in saved if e.__dict__["writer_nodes"] == ["tools"])
    after = events[events.index(fork) + 1 :]
    replay = ReplayChatModel.from_events(after)
    assert len(replay.recorded) == 2  # send_email, then the final answer
    module.model.messages = iter(())  # the model must not be called again
    request = RunRequest(None, "t", checkpoint_id=fork.checkpoint_id, model_override=replay)
    paused, replayed = drive(graph, request, [])
    assert paused.status == "interrupted"  # the approval of send_email, asked again
    resume = RunRequest(Command(resume=APPROVE), "t", model_override=replay)
    again, more = drive(graph, resume, [])
    replayed += more
    assert again.status == "done", again.error
    assert replay.served == 2 and replay.divergence is None
    answers = [
        e.__dict__["message"]["content"]
        for e in replayed
        if e.kind == "model.response" and e.__dict__.get("message")
    ]
    assert answers[-1] == "It is sunny in sf, and your boss knows."
    # each served reply says so, as the engine's do (the Timeline's replayed mark and the
    # Events dock's "(replayed)" read it)
    served = [e for e in replayed if e.kind == "model.response"]
    assert [e.__dict__["replayed"] for e in served] == [True, True]
    tip = graph.get_state({"configurable": {"thread_id": "t"}})
    assert tip.values["messages"][-1].content == "It is sunny in sf, and your boss knows."


def test_the_run_pauses_at_a_failed_attempt_before_the_retrys_backoff(tmp_path: Path) -> None:
    app = agent_app(tmp_path, "sync", "memory")
    app.path.write_text(
        app.path.read_text().replace(
            "ModelRetryMiddleware(max_retries=2, initial_delay=0)",
            "ModelRetryMiddleware(max_retries=2, initial_delay=45, jitter=False)",
        )
    )
    module = plain_module(app)  # its first model call times out: a 45 s backoff follows
    dbg = Debugger()
    dbg.break_on_failure()
    seen: list[dict[str, Any]] = []

    def at_pause(d: Debugger) -> None:
        assert d.current_event is not None
        seen.append({"kind": d.current_event.kind, **d.current_event.__dict__})
        if d.current_event.kind == "attempt.finished":
            d.stop()  # stopped in the backoff: no 45 s wait
        else:
            d.step_into()  # from the failed call to its attempt's end, before the backoff

    dbg.on_pause.append(at_pause)
    with pytest.raises(RunStopped):
        asyncio.run(_collect(attach(module.graph), module.INPUT, dbg))
    assert [p["kind"] for p in seen] == ["model.response", "attempt.finished"]
    paused = seen[-1]
    assert paused["will_retry"] is True and paused["delay_s"] == 45


async def _collect(graph: Any, inp: Any, dbg: Debugger) -> list[EventBase]:
    cfg = {"configurable": {"thread_id": "t"}}
    return [ev async for ev in graph.astream_events(inp, cfg, debugger=dbg, version="stepwise")]


def test_tokens_stream_and_a_model_that_cannot_stream_falls_back_quietly(tmp_path: Path) -> None:
    graph, module, _ = agent(tmp_path, tokens=True)
    outcome, events = drive(graph, RunRequest(module.INPUT, "t"), [APPROVE])
    assert outcome.status == "done"
    tokens = "".join(e.__dict__["text"] for e in events if e.kind == "model.token")
    assert "It is sunny in sf, and your boss knows." in tokens

    app = agent_app(tmp_path / "b", "sync", "memory") if (tmp_path / "b").mkdir() is None else None
    assert app is not None
    source = app.path.read_text().replace(
        '    def _stream(self, messages, stop=None, run_manager=None, **kwargs):\n        """',
        "    def _stream(self, messages, stop=None, run_manager=None, **kwargs):\n"
        "        raise NotImplementedError('no streaming here')\n"
        '        """',
    )
    app.path.write_text(source)
    unstreamable = plain_module(app)
    unstreamable.model.timeouts = 0
    graph = attach(unstreamable.graph, stream_tokens=True)
    outcome, events = drive(graph, RunRequest(unstreamable.INPUT, "t"), [APPROVE])
    assert outcome.status == "done", outcome.error
    fallbacks = [e for e in events if e.__dict__.get("action") == "stream_fallback"]
    assert len(fallbacks) == 1  # once: the model is not streamed again
    final = graph.get_state({"configurable": {"thread_id": "t"}}).values["messages"]
    assert final[-1].content == "It is sunny in sf, and your boss knows."


def test_capabilities_say_what_attach_mode_reaches(tmp_path: Path) -> None:
    from engine.targets import Capability
    from tests.fixtures.docs_app_sources import STATEGRAPH_APP
    from tests.fixtures.docs_apps import write_app

    graph, _module, _app = agent(tmp_path)
    caps = AttachTarget(graph).capabilities
    for cap in Capability:
        if cap is not Capability.TOKENS:
            assert cap in caps, cap
    assert caps.why_not("tokens") is not None  # stream_tokens is off
    assert Capability.TOKENS in AttachTarget(agent(tmp_path, tokens=True)[0]).capabilities

    plain = attach(plain_module(write_app(tmp_path, STATEGRAPH_APP)).graph)
    caps = AttachTarget(plain).capabilities
    assert Capability.FAULT_INJECTION in caps  # any model or tool call takes them
    assert "no create_agent model node" in str(caps.why_not("replay_model_calls"))
    assert Capability.PAUSE_IN_NODE in caps and Capability.EDIT_STATE in caps


INNER_AGENT_APP = '''
"""An agent invoked inside a node function (as the docs' handoffs do), with retry middleware."""
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRetryMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    CALLS.append(city)
    return f"sunny in {city}"


CALLS = []
inner = create_agent(
    Model(messages=iter([
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}]),
        AIMessage("It is sunny."),
    ])),
    tools=[get_weather],
    middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0)],
)


def ask(state: MessagesState):
    return {"messages": inner.invoke(state)["messages"][len(state["messages"]):]}


graph = (
    StateGraph(MessagesState).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    .compile(checkpointer=InMemorySaver())
)
'''


def test_faults_reach_an_agent_invoked_inside_a_node(tmp_path: Path) -> None:
    from tests.fixtures.docs_apps import write_app

    module = plain_module(write_app(tmp_path, INNER_AGENT_APP))
    graph = attach(module.graph)
    dbg = Debugger()
    dbg.inject_model_error()  # the inner agent's retry middleware sees it and tries again
    outcome, events = drive(graph, RunRequest({"messages": [("user", "weather?")]}, "t"), [], dbg)
    assert outcome.status == "done", outcome.error
    injected = [e for e in events if e.kind == "middleware.action"]
    assert [e.__dict__["detail"]["kind"] for e in injected] == ["model"]
    responses = [e.__dict__ for e in events if e.kind == "model.response"]
    assert "Injected model timeout" in responses[0]["error"].message
    assert [r["error"] is None for r in responses] == [False, True, True]
    assert module.CALLS == ["sf"]

    module = plain_module(write_app(tmp_path, INNER_AGENT_APP, "app2"))
    dbg = Debugger()
    dbg.inject_tool_error("get_weather")
    outcome, events = drive(
        attach(module.graph), RunRequest({"messages": [("user", "weather?")]}, "t"), [], dbg
    )
    assert module.CALLS == []  # the injected failure took the tool's place
    failed = [e.__dict__ for e in events if e.kind == "tool.finished"]
    assert failed and failed[0]["status"] == "error"
    assert "Injected failure of tool 'get_weather'" in (outcome.error or "")


def test_the_replay_hash_follows_a_message_changed_after_it_was_first_hashed() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from engine.attach.innermost import request_hash_of

    ai = AIMessage("", tool_calls=[{"name": "send_email", "args": {"to": "a"}, "id": "c"}])
    history = [HumanMessage("hi"), ai]
    before = request_hash_of(history)
    assert request_hash_of(history) == before  # converted once, same hash
    # HumanInTheLoopMiddleware sets an edited message's tool_calls on the message itself
    ai.tool_calls = [{"name": "send_email", "args": {"to": "b"}, "id": "c", "type": "tool_call"}]
    assert request_hash_of(history) != before


PLAIN_AGENT_APP = '''
"""The docs' first agent: no middleware, sync tools."""
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"It's always sunny in {city}!"


model = Model(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "sf"}, "id": "w1"}]),
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "la"}, "id": "w2"}]),
    AIMessage("Sunny in both."),
]))
graph = create_agent(model, tools=[get_weather], checkpointer=InMemorySaver())
'''


def test_served_replies_nest_under_their_model_node_as_live_ones_do(tmp_path: Path) -> None:
    """A reply served from the recording (re-run with replay) shows as a model call inside the
    model node that asked, as the live call did: not at the run's top level."""
    from tests.fixtures.docs_apps import write_app

    module = plain_module(write_app(tmp_path, PLAIN_AGENT_APP))
    graph = attach(module.graph)
    first, events = drive(graph, RunRequest({"messages": [("user", "weather?")]}, "t"), [])
    assert first.status == "done", first.error

    def parents_of_model_calls(evs: list[EventBase]) -> list[str]:
        nodes = {e.span_id: e.__dict__["node"] for e in evs if e.kind == "node.started"}
        return [
            nodes.get(e.parent_span_id or "", "not a node")
            for e in evs
            if e.kind in ("model.request", "model.response")
        ]

    assert parents_of_model_calls(events) == ["model"] * 6
    saved = [e for e in events if e.kind == "checkpoint.saved" and not e.ns]
    fork = next(e for e in saved if e.__dict__["writer_nodes"] == ["tools"])
    replay = ReplayChatModel.from_events(events[events.index(fork) + 1 :])
    module.model.messages = iter(())  # the model must not be called again
    request = RunRequest(None, "t", checkpoint_id=fork.checkpoint_id, model_override=replay)
    again, replayed = drive(graph, request, [])
    assert again.status == "done", again.error
    assert replay.served == 2 and replay.divergence is None
    assert parents_of_model_calls(replayed) == ["model"] * 4
