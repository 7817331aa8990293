"""Attach mode: a user's real LangGraph / LangChain v1 app, run unchanged on the installed
libraries, seen through our event protocol, debugger and recorder.

Skipped when langgraph / langchain are not installed (the ``langgraph`` extra).
"""

from __future__ import annotations

import asyncio
import operator
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain.agents.middleware import ModelRetryMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from engine.attach import attach, is_langgraph
from engine.debug import Debugger
from engine.events import EventBase
from engine.recording import SessionRecorder
from engine.types import Command


class FirstCallFails(GenericFakeChatModel):
    """langchain_core's fake chat model that can bind tools and whose first call fails."""

    calls: int = 0

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise TimeoutError("the provider timed out")
        return super()._generate(*args, **kwargs)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def collect(graph: Any, inp: Any, config: dict[str, Any], **kw: Any) -> list[EventBase]:
    async def go() -> list[EventBase]:
        return [ev async for ev in graph.astream_events(inp, config, version="stepwise", **kw)]

    return asyncio.run(go())


def kinds(events: list[EventBase], *wanted: str) -> list[str]:
    return [e.kind for e in events if e.kind in wanted]


def test_a_retried_model_call_shows_as_two_attempts_of_the_retry_middleware() -> None:
    model = FirstCallFails(
        messages=iter(
            [
                AIMessage(
                    "", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}]
                ),
                AIMessage("It is sunny in Oslo."),
            ]
        )
    )
    agent = lc_create_agent(
        model, tools=[weather], middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0)]
    )
    assert is_langgraph(agent)
    g = attach(agent)
    events = collect(g, {"messages": [("user", "weather in Oslo?")]}, {})
    assert events[0].kind == "run.started" and events[-1].kind == "run.finished"
    assert events[-1].__dict__["status"] == "done"
    attempts = [e for e in events if e.kind.startswith("attempt.")]
    first = [e for e in attempts if e.__dict__.get("model")]
    assert [(e.kind, e.__dict__["attempt"]) for e in first[:4]] == [
        ("attempt.started", 1),
        ("attempt.finished", 1),
        ("attempt.started", 2),
        ("attempt.finished", 2),
    ]
    failed, ok = first[1].__dict__, first[3].__dict__
    assert failed["outcome"] == "error" and failed["will_retry"] is True
    assert failed["error"].type == "TimeoutError"
    assert ok["outcome"] == "ok"
    assert {e.__dict__["middleware"] for e in attempts} == {"ModelRetryMiddleware"}
    assert first[0].__dict__["max_attempts"] == 3
    # each model call nests in its attempt, each attempt in the middleware's wrapper span,
    # the wrapper in the "model" node
    nodes = {e.span_id: e.__dict__["node"] for e in events if e.kind == "node.started"}
    wrappers = {e.span_id: e for e in events if e.kind == "wrapper.started"}
    requests = [e for e in events if e.kind == "model.request"]
    assert len(requests) == 3  # failed call, its retry, the answer after the tool
    assert requests[0].parent_span_id == first[0].span_id
    wrapper = wrappers[first[0].parent_span_id]
    assert wrapper.__dict__["middleware"] == "ModelRetryMiddleware"
    assert wrapper.__dict__["wrapper"] == "wrap_model_call"
    assert nodes[wrapper.parent_span_id] == "model"
    tools = [e for e in events if e.kind == "tool.finished"]
    assert tools and tools[0].__dict__["tool"] == "weather"
    assert "sunny in Oslo" in str(tools[0].__dict__["result"])
    # no wrap_tool_call middleware: the tool call nests directly in the "tools" node
    tool_started = next(e for e in events if e.kind == "tool.started")
    assert nodes[tool_started.parent_span_id] == "tools"
    assert not any(a.__dict__.get("tool") for a in attempts)


class Counter(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def add_one(s: Counter) -> dict[str, Any]:
    return {"n": s["n"] + 1, "log": ["add"]}


def ask(s: Counter) -> dict[str, Any]:
    answer = interrupt({"question": "double it?"})
    return {"n": s["n"] * 2 if answer == "yes" else s["n"], "log": [f"ask:{answer}"]}


def counter_graph() -> Any:
    b = StateGraph(Counter)
    b.add_node("add", add_one).add_node("ask", ask)
    b.add_edge(START, "add").add_edge("add", "ask").add_edge("ask", END)
    return b.compile(checkpointer=InMemorySaver())


def test_an_interrupt_is_raised_and_resumed_with_our_command() -> None:
    g = attach(counter_graph())
    cfg = {"configurable": {"thread_id": "t1"}}
    first = collect(g, {"n": 1, "log": []}, cfg)
    assert first[-1].__dict__["status"] == "interrupted"
    raised = [e for e in first if e.kind == "interrupt.raised"]
    assert raised[0].__dict__["value"] == {"question": "double it?"}
    assert raised[0].__dict__["node"] == "ask"
    assert kinds(first, "node.started") == ["node.started", "node.started"]
    again = collect(g, Command(resume="yes"), cfg)
    assert again[0].__dict__["resumed"] is True
    assert kinds(again, "interrupt.resumed") == ["interrupt.resumed"]
    assert again[-1].__dict__["status"] == "done"
    assert again[-1].__dict__["output"]["n"] == 4
    assert g.get_state(cfg).values["n"] == 4


def test_a_breakpoint_pauses_before_the_node_runs() -> None:
    ran: list[str] = []

    def noted(s: Counter) -> dict[str, Any]:
        ran.append("add")
        return add_one(s)

    b = StateGraph(Counter)
    b.add_node("add", noted).add_edge(START, "add").add_edge("add", END)
    g = attach(b.compile())
    dbg = Debugger()
    dbg.break_before("add")
    seen_at_pause: list[list[str]] = []

    def on_pause(d: Debugger) -> None:
        seen_at_pause.append(list(ran))
        d.continue_()

    dbg.on_pause.append(on_pause)
    events = collect(g, {"n": 1, "log": []}, {}, debugger=dbg)
    assert seen_at_pause == [[]]  # paused before the node's body ran
    paused = [e for e in events if e.kind == "debug.paused"]
    assert paused and paused[0].__dict__["at_kind"] == "node.started"
    assert ran == ["add"] and events[-1].__dict__["status"] == "done"


def test_a_fork_from_a_past_checkpoint_runs_on_from_there() -> None:
    g = attach(counter_graph())
    cfg = {"configurable": {"thread_id": "t2"}}
    collect(g, {"n": 1, "log": []}, cfg)
    collect(g, Command(resume="yes"), cfg)
    history = list(g.get_state_history(cfg))
    before_ask = next(s for s in history if s.next == ("ask",))
    forked = g.update_state(before_ask.config, {"n": 10}, as_node="add")
    events = collect(g, None, forked)
    assert events[-1].__dict__["status"] == "interrupted"
    done = collect(g, Command(resume="no"), cfg)
    assert done[-1].__dict__["output"]["n"] == 10
    assert g.get_state(cfg).values["log"] == ["add", "ask:no"]


def test_the_recorder_records_an_attached_run(tmp_path: Path) -> None:
    from engine.recording import Session

    g = attach(counter_graph())
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(g)
    collect(g, {"n": 1, "log": []}, {"configurable": {"thread_id": "t3"}})
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:
        runs = session.runs()
        assert [(r.thread_id, r.status) for r in runs] == [("t3", "interrupted")]
        recorded = [e.kind for e in session.events(runs[0].run_id)]
    assert recorded[0] == "run.started" and recorded[-1] == "run.finished"
    assert "interrupt.raised" in recorded and "checkpoint.saved" in recorded


def test_the_engine_never_imports_langgraph_at_start_up() -> None:
    code = (
        "import sys, engine, engine.cli, engine.cli.run, engine.loader, engine.attach\n"
        "assert not [m for m in sys.modules if m.startswith(('langgraph', 'langchain'))]\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_subgraph_nests_in_the_node_that_runs_it_without_a_checkpointer() -> None:
    class Num(TypedDict):
        x: int

    inner = StateGraph(Num).add_node("times_ten", lambda s: {"x": s["x"] * 10})
    sub = inner.add_edge(START, "times_ten").compile()
    outer = StateGraph(Num).add_node("plus_one", lambda s: {"x": s["x"] + 1})
    outer.add_node("sub", sub).add_edge(START, "plus_one").add_edge("plus_one", "sub")
    events = collect(attach(outer.compile()), {"x": 1}, {})
    assert events[-1].__dict__["output"] == {"x": 20}
    started = {e.__dict__["node"]: e for e in events if e.kind == "node.started"}
    inner_step = next(e for e in events if e.kind == "superstep.started" and e.ns)
    assert inner_step.ns.startswith("sub:") and started["times_ten"].ns == inner_step.ns
    assert inner_step.parent_span_id == started["sub"].span_id
    # every span closes, each before its parent does
    order = [(e.kind, e.span_id) for e in events]
    opened: list[str] = []
    for kind, span in order:
        if kind.endswith(".started") or kind == "model.request":
            opened.append(str(span))
        elif kind.endswith(".finished") or kind == "model.response":
            assert opened and opened[-1] == span, (kind, span)
            opened.pop()
    assert opened == []


def test_middleware_hook_nodes_show_as_hooks_of_their_middleware() -> None:
    from langchain.agents.middleware import before_model

    @before_model
    def count_calls(state: Any, runtime: Any) -> dict[str, Any] | None:
        return None

    model = FirstCallFails(messages=iter([AIMessage("hello")]))
    model.calls = 1  # no failure here
    events = collect(
        attach(lc_create_agent(model, middleware=[count_calls])),
        {"messages": [("user", "hi")]},
        {},
    )
    hooks = [e for e in events if e.kind.startswith("hook.")]
    assert [(e.kind, e.__dict__["middleware"], e.__dict__["hook"]) for e in hooks] == [
        ("hook.started", "count_calls", "before_model"),
        ("hook.finished", "count_calls", "before_model"),
    ]
    node = next(
        e for e in events if e.kind == "node.started" and e.span_id == hooks[0].parent_span_id
    )
    assert node.__dict__["node"] == "count_calls.before_model"


def test_a_failing_node_retried_by_its_retry_policy_then_failing_the_run() -> None:
    from langgraph.types import RetryPolicy

    def broken(s: Counter) -> dict[str, Any]:
        raise ValueError("bad input")

    b = StateGraph(Counter)
    b.add_node(
        "broken",
        broken,
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, retry_on=ValueError),
    )
    g = attach(b.add_edge(START, "broken").compile())
    dbg = Debugger()
    dbg.break_on_failure()
    paused: list[str] = []

    def on_pause(d: Debugger) -> None:
        assert d.current_event is not None
        paused.append(d.current_event.kind)
        d.continue_()

    dbg.on_pause.append(on_pause)
    seen: list[EventBase] = []
    g.subscribe(seen.append)
    with pytest.raises(ValueError, match="bad input"):
        collect(g, {"n": 1, "log": []}, {}, debugger=dbg)
    finished = [e.__dict__ for e in seen if e.kind == "node.finished"]
    assert [(f["attempt"], f["status"], f["error"].type) for f in finished] == [
        (1, "error", "ValueError"),
        (2, "error", "ValueError"),
    ]
    assert seen[-1].kind == "run.finished" and seen[-1].__dict__["status"] == "error"
    assert paused and paused[0] == "node.finished"


class StreamsWords(GenericFakeChatModel):
    """A model with a stream of its own (LangChain's fake models are not streamed: their
    stream is only their reply cut up, ``test_attach_fake_model``)."""

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        from langchain_core.messages import AIMessageChunk
        from langchain_core.outputs import ChatGenerationChunk

        reply = next(self.messages)
        for word in re.split(r"(\s)", str(reply.content)):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word))
            if run_manager is not None:
                run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk


def test_model_tokens_are_streamed_into_model_token_events_when_asked() -> None:
    model = StreamsWords(messages=iter([AIMessage("sunny and warm")]))
    g = attach(lc_create_agent(model), stream_tokens=True)
    events = collect(g, {"messages": [("user", "weather?")]}, {})
    request = next(e for e in events if e.kind == "model.request")
    tokens = [e for e in events if e.kind == "model.token"]
    assert "".join(t.__dict__["text"] for t in tokens) == "sunny and warm"
    assert {t.parent_span_id for t in tokens} == {request.span_id}
