"""A tool call naming a tool the agent does not have: LangChain's ``ToolNode`` answers it with
an error message and calls no tool (so no callback tells).  Attached, it shows as a failed
tool call with that answer, as on the engine's own agent, under the node (or the innermost
middleware layer) it ran in, on the sync and the async stream; the run's result is
LangChain's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents")
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from engine.attach import attach
from engine.events import EventBase


class Model(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


class PassThrough(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


def _agent(middleware: bool) -> Any:
    replies = [
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "la"}, "id": "w1"}]),
        AIMessage("", tool_calls=[{"name": "no_such_tool", "args": {"q": 1}, "id": "x3"}]),
        AIMessage("gave up"),
    ]
    return create_agent(
        Model(messages=iter(replies)),
        tools=[get_weather],
        middleware=[PassThrough()] if middleware else [],
    )


def _run(graph: Any, how: str) -> Any:
    inp = {"messages": [HumanMessage("hi")]}
    if how == "ainvoke":
        return asyncio.run(graph.ainvoke(inp))
    return graph.invoke(inp)


@pytest.mark.parametrize("middleware", [False, True], ids=["no middleware", "a wrapper"])
@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_call_to_a_tool_the_agent_lacks_is_a_failed_tool_call(middleware: bool, how: str) -> None:
    direct = _run(_agent(middleware), how)
    graph = attach(_agent(middleware))
    events: list[EventBase] = []
    graph.subscribe(events.append)
    out = _run(graph, how)
    assert [(m.type, m.content) for m in out["messages"]] == [
        (m.type, m.content) for m in direct["messages"]
    ]
    started = [e for e in events if e.kind == "tool.started"]
    finished = {e.span_id: e for e in events if e.kind == "tool.finished"}
    assert [(e.tool, e.tool_call_id) for e in started] == [
        ("get_weather", "w1"),
        ("no_such_tool", "x3"),
    ]
    lacking = started[1]
    end = finished[lacking.span_id]
    assert lacking.args == {"q": 1} and end.status == "error" and end.tool_call_id == "x3"
    answer = direct["messages"][-2]
    assert answer.type == "tool" and answer.status == "error"
    assert end.result["content"] == answer.content  # what the model was told
    assert answer.content.startswith("Error: no_such_tool is not a valid tool")
    # where a tool's own events nest: the innermost layer of the app's, else the node
    spans = {e.span_id: e for e in events if e.kind in ("node.started", "wrapper.started")}
    parent = spans[lacking.parent_span_id]
    own = spans[started[0].parent_span_id]
    assert parent.kind == own.kind == ("wrapper.started" if middleware else "node.started")
    assert lacking.step == parent.step and lacking.seq < end.seq
