"""A run on a real ``langgraph dev`` server, translated into our events."""

from __future__ import annotations

import pytest

from engine.events import SPAN_CLOSERS, SPAN_OPENERS, event_from_json, event_to_json
from engine.messages import HumanMessage
from engine.targets import Capability, Target
from tests.engine.remote.helpers import kinds, new_thread, open_target, run_events

pytestmark = pytest.mark.timeout(120)


async def test_a_run_streams_as_our_events(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    try:
        assert isinstance(target, Target)
        events, outcome = await run_events(
            target, {"messages": [HumanMessage(content="hi")]}, new_thread()
        )
    finally:
        await target.aclose()
    assert outcome.status == "interrupted"
    assert [i.__dict__["value"] for i in outcome.interrupts] == [{"question": "approve the plan?"}]
    assert events[0].kind == "run.started" and events[-1].kind == "run.finished"
    assert events[-1].__dict__["status"] == "interrupted"
    root_nodes = [e.__dict__["node"] for e in kinds(events, "node.started", ns="")]
    assert root_nodes == ["plan", "work", "think", "review"]
    inner = [e for e in kinds(events, "node.started") if e.ns]
    assert [e.__dict__["node"] for e in inner] == ["inner"]
    assert inner[0].ns.startswith("work:")
    assert kinds(events, "custom")[0].__dict__["data"] == {"progress": "planning"}
    assert kinds(events, "custom")[0].__dict__["node"] == "plan"
    tokens = "".join(e.__dict__["text"] for e in kinds(events, "model.token"))
    assert tokens == "hello there friend"
    response = kinds(events, "model.response")[0]
    assert response.__dict__["message"]["content"] == "hello there friend"
    think = kinds(events, "node.started", node="think")[0]
    assert kinds(events, "model.request")[0].parent_span_id == think.span_id
    assert kinds(events, "interrupt.raised")[0].__dict__["node"] == "review"
    assert len(kinds(events, "checkpoint.saved", ns="")) >= 4
    # every span that opened closed, inside its run; seq strictly increases
    opened = {e.span_id for e in events if e.kind in SPAN_OPENERS}
    closed = {e.span_id for e in events if e.kind in SPAN_CLOSERS}
    assert opened == closed
    assert [e.seq for e in events] == sorted({e.seq for e in events})
    for ev in events:  # every event is plain JSON
        assert event_from_json(event_to_json(ev)).kind == ev.kind


async def test_shape_state_and_capabilities(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    try:
        plain = target.shape()
        xray = target.shape(xray=True)
        assert plain.nodes["work"].kind == "subgraph"
        assert "work:inner" in xray.nodes and xray.nodes["work:inner"].name == "inner"
        assert {"messages", "steps", "approved"} <= set(target.state_keys())
        caps = target.capabilities
        assert Capability.THREADS in caps and Capability.FORK in caps
        for missing in ("pause_in_node", "wrapper_spans", "fault_injection", "replay_model_calls",
                        "conditional_breakpoints", "live_breakpoint_changes"):  # fmt: skip
            assert missing not in caps
            assert caps.why_not(missing)
    finally:
        await target.aclose()


async def test_a_subgraph_stopped_at_an_interrupt_nests_its_superstep(langgraph_server) -> None:
    """A ``Send`` fan-out, then a subgraph whose node calls ``interrupt()``: the subgraph's
    superstep (no checkpoint follows it) closes before the node running the subgraph, and the
    answer resumes the run on the server."""
    from engine.types import Command

    target = await open_target(langgraph_server, "pipeline")
    thread = new_thread()
    try:
        events, outcome = await run_events(target, {"topics": ["x", "y"]}, thread)
        assert outcome.status == "interrupted"
        assert [e.__dict__["node"] for e in kinds(events, "node.started", ns="")] == [
            "research", "research", "publish"
        ]  # fmt: skip
        publish = kinds(events, "node.started", node="publish")[0]
        inner_steps = [e for e in kinds(events, "superstep.started") if e.ns]
        assert {e.parent_span_id for e in inner_steps} == {publish.span_id}
        finished = kinds(events, "node.finished", node="publish")[0]
        before = [e.span_id for e in events[: events.index(finished)]
                  if e.kind == "superstep.finished"]  # fmt: skip
        assert all(e.span_id in before for e in inner_steps)  # closed inside, not after
        check = kinds(events, "superstep.finished", status="interrupted")
        assert check and check[0].ns.startswith("publish:")
        events, outcome = await run_events(target, Command(resume="yes"), thread)
        assert outcome.status == "done"
        snap = await target.state(thread)
        assert snap is not None and snap.values["approved"] == "yes"
    finally:
        await target.aclose()


async def test_without_the_servers_schemas_the_input_and_context_are_asked_as_json(
    langgraph_server,
) -> None:
    """The server answers 500 for the schemas of a graph whose context schema pydantic cannot
    read; runs still work, so the target still asks for an input (a run with none is refused)
    and offers a context, both as JSON."""
    target = await open_target(langgraph_server, "opaque")
    try:
        assert not target.schemas  # the server could not give them
        schema = target.input_schema()
        assert schema is not None and schema["type"] == "object" and "JSON" in schema["description"]
        context = target.context_schema()
        assert context is not None and context["type"] == "object"
        assert "properties" not in context
        _events, outcome = await run_events(target, {}, new_thread(), context={"user": "ada"})
        assert outcome.status == "done", outcome.error
        assert outcome.output == {"greeting": "hello ada"}
    finally:
        await target.aclose()


async def test_a_failed_tool_call_retried_by_middleware_says_what_failed(langgraph_server) -> None:
    """``ToolRetryMiddleware`` calls a tool again after it raised: the failed call's error is
    the exception's type and message (the server sends them as a mapping), not ``dict: {...}``."""
    target = await open_target(langgraph_server, "retrying")
    try:
        events, outcome = await run_events(
            target, {"messages": [HumanMessage(content="rain?")]}, new_thread()
        )
    finally:
        await target.aclose()
    assert outcome.status == "done", outcome.error
    calls = kinds(events, "tool.finished", tool="forecast")
    assert [c.__dict__["status"] for c in calls] == ["error", "success"]
    error = calls[0].__dict__["error"]
    assert error.type == "ConnectionError" and error.message and "{" not in error.message


async def test_a_call_to_a_tool_the_agent_lacks_is_a_failed_tool_call(langgraph_server) -> None:
    """LangChain's ``ToolNode`` answers a call to a tool it does not have without calling
    anything (the server sends no tool event): the call shows as a failed tool call with the
    answer the model read, under its node, as on the engine's own agent and attached."""
    target = await open_target(langgraph_server, "lacking")
    try:
        events, outcome = await run_events(
            target, {"messages": [HumanMessage(content="weather?")]}, new_thread()
        )
    finally:
        await target.aclose()
    assert outcome.status == "done", outcome.error
    (started,) = kinds(events, "tool.started")
    (finished,) = kinds(events, "tool.finished")
    assert (started.tool, started.tool_call_id, started.args) == (
        "no_such_tool",
        "call_x",
        {"q": "Oslo"},
    )
    assert finished.span_id == started.span_id and finished.status == "error"
    assert str(finished.result["content"]).startswith("Error: no_such_tool is not a valid tool")
    node = next(
        e for e in events if e.kind == "node.started" and e.span_id == started.parent_span_id
    )
    assert node.node == "tools"


def test_the_tool_calls_a_task_is_given_in_each_shape_the_server_sends() -> None:
    from engine.remote.translate_calls import tool_calls_in

    call = {"name": "lookup", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}
    ai = {"type": "ai", "content": "", "tool_calls": [call]}
    assert tool_calls_in([call]) == {"c1": call}  # an agent's Send, as the server sends it
    assert tool_calls_in(call) == {"c1": call}
    assert tool_calls_in({"tool_call": call, "state": {}}) == {"c1": call}
    assert tool_calls_in({"messages": [{"type": "human", "content": "hi"}, ai]}) == {"c1": call}
    assert tool_calls_in({"messages": [ai, {"type": "tool", "tool_call_id": "c1"}]}) == {"c1": call}
    assert tool_calls_in({"messages": []}) == {} and tool_calls_in("text") == {}
    assert tool_calls_in([{"name": "x"}]) == {}  # no id: nothing to match an answer to
