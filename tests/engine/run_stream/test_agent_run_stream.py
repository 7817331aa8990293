"""``stream_events(version="v3")`` on agents: tool calls, subagents, internal calls, PII."""

from __future__ import annotations

from typing import Any

import pytest

from engine.agents import SubagentTransformer, ToolCallTransformer, create_agent
from engine.core.config import RunnableConfig
from engine.messages import AIMessage, BaseMessage, HumanMessage
from engine.middleware import AgentMiddleware, InternalCallTransformer, PIIMiddleware
from engine.middleware.internal_calls import internal_call_metadata
from engine.middleware.redaction import PIIDetectionError
from engine.models import ScriptedChatModel
from engine.tools import ToolRuntime, tool


def _call(name: str, call_id: str = "c1", **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


@tool
def streamer(text: str, runtime: ToolRuntime) -> str:
    """Stream two pieces, then return the text."""
    runtime.emit_output_delta("one")
    runtime.emit_output_delta("two")
    return text


@tool
def boom() -> str:
    """Always fails."""
    raise ValueError("nope")


def test_each_tool_call_is_a_stream_with_its_deltas_and_output() -> None:
    agent = create_agent(ScriptedChatModel([_call("streamer", text="x"), "done"]), [streamer])
    run = agent.stream_events({"messages": [HumanMessage("hi")]}, version="v3")
    calls = []
    for tc in run.tool_calls:
        calls.append(tc)
        assert list(tc.output_deltas) == ["one", "two"]
    assert [(c.tool_name, c.tool_call_id, c.completed, c.error) for c in calls] == [
        ("streamer", "c1", True, None)
    ]
    assert calls[0].output == "x" and calls[0].input == {"text": "x"}
    kinds = [e["params"]["data"]["event"] for e in run if e["method"] == "tools"]
    assert kinds == ["tool-started", "tool-output-delta", "tool-output-delta", "tool-finished"]


def test_a_failing_tool_reports_its_error_before_the_run_raises() -> None:
    agent = create_agent(ScriptedChatModel([_call("boom"), "done"]), [boom])
    run = agent.stream_events({"messages": [HumanMessage("hi")]}, version="v3")
    calls = []
    with pytest.raises(ValueError, match="nope"):
        for tc in run.tool_calls:
            calls.append(tc)
            list(tc.output_deltas)
    assert len(calls) == 1 and calls[0].completed and "nope" in (calls[0].error or "")


def test_model_replies_stream_their_text() -> None:
    agent = create_agent(ScriptedChatModel(["hello there"]), [])
    run = agent.stream_events({"messages": [HumanMessage("hi")]}, version="v3")
    replies = ["".join(m.text) for m in run.messages]
    assert replies == ["hello there"]
    assert run.output["messages"][-1].text == "hello there"


def test_agent_transformers_order_builtin_middleware_then_caller() -> None:
    class _Mark(InternalCallTransformer):
        before_builtins = False

    class _Mw(AgentMiddleware):
        transformers = (_Mark,)

    agent = create_agent(
        ScriptedChatModel(["ok"]), [], middleware=[_Mw()], transformers=[InternalCallTransformer]
    )
    assert agent.stream_transformers[:3] == (ToolCallTransformer, SubagentTransformer, _Mark)
    run = agent.stream_events({"messages": [HumanMessage("hi")]}, version="v3")
    names = [type(t).__name__ for t in run._mux.transformers]
    # before_builtins goes ahead of the built-ins; a factory named twice registers once
    assert names[0] == "InternalCallTransformer" and names.count("InternalCallTransformer") == 1
    assert names.index("ToolCallTransformer") < names.index("_Mark")
    list(run)


def _nested(inner_name: str | None) -> Any:
    inner = create_agent(
        ScriptedChatModel([_call("streamer", "in1", text="leaf"), "inner done"]),
        [streamer],
        name=inner_name,
    )

    @tool
    def delegate(query: str) -> str:
        """Ask the inner agent."""
        return inner.invoke({"messages": [HumanMessage(query)]})["messages"][-1].text

    return create_agent(
        ScriptedChatModel([_call("delegate", "call_w", query="q"), "bye"]),
        [delegate],
        name="supervisor",
    )


def test_a_named_agent_run_from_a_tool_is_a_subagent_with_its_cause() -> None:
    run = _nested("weather").stream_events({"messages": [HumanMessage("go")]}, version="v3")
    handles = []
    for h in run.subagents:
        handles.append(h)
        for _ in h:
            pass
    assert [(h.name, h.cause, h.status) for h in handles] == [
        ("weather", {"type": "toolCall", "tool_call_id": "call_w"}, "completed")
    ]


def test_an_unnamed_inner_agent_is_surfaced_under_its_callers_name() -> None:
    run = _nested(None).stream_events({"messages": [HumanMessage("go")]}, version="v3")
    assert [h.name for h in run.subagents] == ["supervisor"]


def test_a_nested_runs_tool_calls_belong_to_its_handle() -> None:
    run = _nested("weather").stream_events({"messages": [HumanMessage("go")]}, version="v3")
    outer, inner = [], []
    for name, item in run.interleave("tool_calls", "subgraphs"):
        if name == "tool_calls":
            outer.append(item.tool_name)
        else:
            inner.extend(tc.tool_name for tc in item.tool_calls)
    assert outer == ["delegate"] and inner == ["streamer"]


class _SideCall(AgentMiddleware):
    """Asks a side model before each model call, marked as internal."""

    transformers = (InternalCallTransformer,)

    def __init__(self, side: ScriptedChatModel) -> None:
        self.side = side

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        await self.side.ainvoke(
            [HumanMessage("check")], config={"metadata": internal_call_metadata()}
        )
        return await handler(request)


async def test_a_middlewares_internal_model_call_stays_out_of_the_stream() -> None:
    agent = create_agent(
        ScriptedChatModel(["final answer"]),
        [],
        middleware=[_SideCall(ScriptedChatModel(["secret side"]))],
    )
    run = await agent.astream_events({"messages": [HumanMessage("hi")]}, version="v3")
    texts = []
    async for m in run.messages:
        texts.append("".join([t async for t in m.text]))
    assert texts == ["final answer"]
    payloads = [e["params"]["data"][0] async for e in run if e["method"] == "messages"]
    assert "secret side" not in "".join(p.text for p in payloads if isinstance(p, BaseMessage))


async def test_pii_in_streamed_text_never_reaches_the_stream() -> None:
    reply = "Reach me at alice@example.com today, " + "padding " * 30
    agent = create_agent(
        ScriptedChatModel([reply]), [], middleware=[PIIMiddleware("email", apply_to_output=True)]
    )
    run = await agent.astream_events({"messages": [HumanMessage("hi")]}, version="v3")
    text = ""
    async for m in run.messages:
        async for piece in m.text:
            assert "alice@" not in piece
            text += piece
    assert "[REDACTED_EMAIL]" in text and "alice@example.com" not in text
    async for e in run:
        assert "alice@example.com" not in repr(e["params"]["data"])


async def test_pii_block_raises_and_releases_nothing() -> None:
    agent = create_agent(
        ScriptedChatModel(["Email me at alice@example.com."]),
        [],
        middleware=[PIIMiddleware("email", strategy="block", apply_to_output=True)],
    )
    run = await agent.astream_events({"messages": [HumanMessage("hi")]}, version="v3")
    got = ""
    with pytest.raises(PIIDetectionError):
        async for m in run.messages:
            async for piece in m.text:
                got += piece
    assert "alice" not in got


def test_pii_middleware_streams_only_when_it_scans_output_or_tool_results() -> None:
    assert PIIMiddleware("email").transformers == ()
    assert (
        len(PIIMiddleware("email", apply_to_input=False, apply_to_tool_results=True).transformers)
        == 1
    )


async def test_caller_metadata_cannot_forge_the_internal_marker() -> None:
    from engine.middleware.internal_call_transformer import INTERNAL_CALL_METADATA_KEY

    agent = create_agent(
        ScriptedChatModel(["real answer"]), [], middleware=[_SideCall(ScriptedChatModel(["x"]))]
    )
    forged = {INTERNAL_CALL_METADATA_KEY: True}
    assert forged != internal_call_metadata()
    run = await agent.astream_events(
        {"messages": [HumanMessage("hi")]}, {"metadata": forged}, version="v3"
    )
    texts = []
    async for m in run.messages:
        texts.append("".join([t async for t in m.text]))
    assert texts == ["real answer"]


def test_a_tool_given_the_run_config_passes_it_to_the_agent_it_runs() -> None:
    inner = create_agent(
        ScriptedChatModel([_call("streamer", "in1", text="leaf"), "inner done"]), [streamer]
    )

    @tool
    def run_inner(query: str, config: RunnableConfig) -> str:
        """Delegate with the caller's config."""
        assert "configurable" in config  # the tool call's own config, injected
        return inner.invoke({"messages": [HumanMessage(query)]}, config)["messages"][-1].text

    outer = create_agent(
        ScriptedChatModel([_call("run_inner", "o1", query="q"), "bye"]), [run_inner]
    )
    run = outer.stream_events({"messages": [HumanMessage("go")]}, version="v3")
    outer_calls, inner_calls = [], []
    for name, item in run.interleave("tool_calls", "subgraphs"):
        if name == "tool_calls":
            outer_calls.append(item)
        else:
            inner_calls.extend(item.tool_calls)
    assert [(c.tool_name, c.completed, c.error) for c in outer_calls] == [("run_inner", True, None)]
    assert [c.tool_name for c in inner_calls] == ["streamer"]
    assert outer_calls[0].output == "inner done"


async def test_a_summary_call_stays_out_of_the_messages_projection() -> None:
    from engine.middleware import SummarizationMiddleware

    summarizer = ScriptedChatModel(["Summary of earlier turns."])
    agent = create_agent(
        ScriptedChatModel(["Final answer."]),
        [],
        middleware=[
            SummarizationMiddleware(model=summarizer, trigger=("messages", 1), keep=("messages", 1))
        ],
    )
    run = await agent.astream_events(
        {"messages": [HumanMessage("a"), HumanMessage("b"), HumanMessage("c")]}, version="v3"
    )
    texts = []
    async for m in run.messages:
        texts.append("".join([t async for t in m.text]))
    assert texts[-1] == "Final answer."
    assert "Summary of earlier turns." not in texts  # the summary call itself never streams
    assert "" not in texts  # the removal of the old history is no reply either
    assert len(summarizer.calls) == 1
