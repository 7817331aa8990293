"""Trace policies (what hook events and run tracers record about a hook) and run callbacks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import pytest

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.graph import START, StateGraph, interrupt
from engine.graph.runtime import Runtime
from engine.messages import AIMessage, HumanMessage
from engine.middleware import AgentMiddleware, TracePolicy, configure_trace_policy, omit_payload
from engine.models import ScriptedChatModel
from engine.observe.callbacks import BaseCallbackHandler, BaseTracer, Run


@pytest.fixture(autouse=True)
def _no_default() -> Iterator[None]:
    configure_trace_policy(None)
    yield
    configure_trace_policy(None)


class Fuel(TypedDict):
    level: int


class Counter(AgentMiddleware):
    """Adds a note before each model call."""

    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return {"messages": [HumanMessage(content="note", id="n1")]}


def hook_events(mw: AgentMiddleware) -> tuple[Any, Any]:
    events: list[EventBase] = []
    agent = create_agent(ScriptedChatModel([AIMessage(content="hi")]), middleware=[mw])
    with agent.subscribe(events.append):
        agent.invoke({"messages": [HumanMessage(content="start", id="h1")]})
    started = next(e for e in events if e.kind == "hook.started" and e.hook == "before_model")
    finished = next(e for e in events if e.kind == "hook.finished" and e.hook == "before_model")
    return started, finished


def test_no_policy_records_the_update_and_no_input() -> None:
    started, finished = hook_events(Counter())
    assert started.input is None
    assert finished.update["messages"][0]["content"] == "note"


def test_middleware_policy_shapes_both_sides() -> None:
    seen: list[Any] = []

    def summarize(state: Any) -> dict[str, Any]:
        seen.append(state)
        return {"messages": len(state["messages"])}

    mw = Counter()
    mw.trace_policy = TracePolicy(process_inputs=summarize, process_outputs=omit_payload)
    started, finished = hook_events(mw)
    assert started.input == {"messages": 1}
    assert finished.update == {}
    assert [m.content for m in seen[0]["messages"]] == ["start"]  # the real state went in


def test_default_policy_applies_to_agents_built_before_it_and_is_replaced_wholesale() -> None:
    mw = Counter()
    configure_trace_policy(TracePolicy(process_inputs=omit_payload, process_outputs=omit_payload))
    started, finished = hook_events(mw)
    assert (started.input, finished.update) == ({}, {})

    own = Counter()
    own.trace_policy = TracePolicy(process_outputs=lambda u: {"n": len(u["messages"])})
    started, finished = hook_events(own)
    assert started.input is None  # the default's process_inputs is not merged in
    assert finished.update == {"n": 1}


def test_a_failing_processor_records_the_real_value() -> None:
    def boom(_value: Any) -> Any:
        raise RuntimeError("processor broke")

    mw = Counter()
    mw.trace_policy = TracePolicy(process_outputs=boom)
    _, finished = hook_events(mw)
    assert finished.update["messages"][0]["content"] == "note"


class Recorder(BaseTracer):
    """Keeps every ended run, by name (node runs are children of the graph's run)."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: dict[str, Run] = {}

    def _on_chain_end(self, run: Run) -> None:
        self.ended[run.name] = run

    def _on_chain_error(self, run: Run) -> None:
        self.ended[run.name] = run


class PlainHandler(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[tuple[str, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.starts.append((kw["name"], inputs))


def test_run_callbacks_see_hook_runs_through_the_policy() -> None:
    mw = Counter()
    agent = create_agent(ScriptedChatModel([AIMessage(content="hi")]), middleware=[mw])
    configure_trace_policy(TracePolicy(process_inputs=omit_payload))  # after building: applies
    tracer, plain = Recorder(), PlainHandler()
    agent.invoke({"messages": [HumanMessage(content="start")]}, {"callbacks": [tracer, plain]})
    hook = tracer.ended["Counter.before_model"]
    assert hook.inputs == {}
    assert [m.content for m in hook.outputs["messages"]] == ["note"]
    assert tracer.ended["model"].inputs["messages"][0].content == "start"  # plain node: as is
    plain_inputs = dict(plain.starts)["Counter.before_model"]
    assert [m.content for m in plain_inputs["messages"]] == ["start"]  # handlers: real values


def test_failing_callbacks_do_not_break_the_run() -> None:
    class Broken(BaseCallbackHandler):
        def on_chain_start(self, *a: Any, **kw: Any) -> None:
            raise RuntimeError("handler broke")

    agent = create_agent(ScriptedChatModel([AIMessage(content="hi")]))
    out = agent.invoke({"messages": [HumanMessage(content="x")]}, {"callbacks": [Broken()]})
    assert out["messages"][-1].content == "hi"


def test_node_errors_reach_the_tracer() -> None:
    def explode(state: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("no fuel")

    graph = StateGraph(Fuel).add_node("explode", explode)
    graph.add_edge(START, "explode")
    tracer = Recorder()
    with pytest.raises(ValueError, match="no fuel"):
        graph.compile().invoke({"level": 1}, {"callbacks": [tracer]})
    run = tracer.ended["explode"]
    assert (run.inputs, run.error) == ({"level": 1}, "ValueError: no fuel")


def test_an_interrupted_node_run_is_closed() -> None:
    def ask(state: dict[str, Any]) -> dict[str, Any]:
        return {"level": interrupt("how much?")}

    graph = StateGraph(Fuel).add_node("ask", ask)
    graph.add_edge(START, "ask")
    tracer = Recorder()
    app = graph.compile(checkpointer=InMemorySaver())
    app.invoke({"level": 0}, {"callbacks": [tracer], "configurable": {"thread_id": "i"}})
    assert tracer.ended["ask"].error is not None and not tracer.run_map
