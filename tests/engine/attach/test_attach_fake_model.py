"""LangChain's own fake chat model, attached with token streaming on: the run is the app's.

``GenericFakeChatModel`` streams by cutting its next scripted reply into pieces; a reply with
no text (a tool call) streams nothing, and LangChain then fails the call after the reply was
used up.  Streaming it only to ask again took the next reply: the first tool call vanished
from the conversation the debugger showed and wrote into the app's thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from engine.attach import attach


class Scripted(GenericFakeChatModel):
    """As the docs' tests write it: the fake model, able to take tools."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:
        return self


@tool
def lookup(q: str) -> str:
    """Look someone up."""
    return f"record for {q}"


def _agent() -> Any:
    replies = iter(
        [
            AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"q": "ada"}, "id": "1"}]),
            AIMessage(content="Ada is a mathematician."),
        ]
    )
    return create_agent(Scripted(messages=replies), tools=[lookup], checkpointer=InMemorySaver())


def _conversation(values: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return [
        (type(m).__name__, str(m.content), [c["name"] for c in getattr(m, "tool_calls", [])])
        for m in values["messages"]
    ]


def test_an_attached_fake_model_gives_the_apps_own_conversation() -> None:
    cfg = {"configurable": {"thread_id": "t"}}
    inp = {"messages": [{"role": "user", "content": "who is ada?"}]}
    plain = _agent()
    plain.invoke(inp, cfg)
    expected = _conversation(plain.get_state(cfg).values)

    graph = attach(_agent(), stream_tokens=True)

    async def run() -> list[Any]:
        return [ev async for ev in graph.astream_events(inp, cfg, version="stepwise")]

    events = asyncio.run(run())
    assert events[-1].__dict__["status"] == "done"
    assert not [e for e in events if e.__dict__.get("action") == "stream_fallback"]
    assert _conversation(graph.get_state(cfg).values) == expected
    responses = [e for e in events if e.kind == "model.response"]
    assert len(responses) == 2  # asked once per turn, as the app asks


def test_a_stateful_model_keeps_its_state_when_it_is_not_streamed() -> None:
    from langchain.agents.middleware import ModelRetryMiddleware

    from tests.engine.attach.test_attach_langgraph import FirstCallFails

    replies = iter([AIMessage(content="", tool_calls=[]), AIMessage(content="unused")])
    model = FirstCallFails(messages=replies)  # its own counter makes only the first call fail
    retry = ModelRetryMiddleware(max_retries=1, initial_delay=0)
    graph = attach(create_agent(model, tools=[lookup], middleware=[retry]), stream_tokens=True)
    cfg = {"configurable": {"thread_id": "t"}}

    async def run() -> list[Any]:
        inp = {"messages": [{"role": "user", "content": "hi"}]}
        return [ev async for ev in graph.astream_events(inp, cfg, version="stepwise")]

    events = asyncio.run(run())
    assert events[-1].__dict__["status"] == "done"
    assert model.calls == 2  # the app's model counted both calls: no copy was called
    failed = [e for e in events if e.kind == "model.response" and e.__dict__.get("error")]
    assert len(failed) == 1
    assert model.disable_streaming is False  # as the app set it


def test_streaming_off_overlapping_calls_restore_the_apps_setting() -> None:
    from engine.attach.streaming_off import streaming_off

    model = Scripted(messages=iter([]), disable_streaming="tool_calling")
    with streaming_off(model):
        with streaming_off(model):
            assert model.disable_streaming is True
        assert model.disable_streaming is True  # the outer call still runs
    assert model.disable_streaming == "tool_calling"


def _agent_in_a_node(db: Path) -> tuple[Any, Any]:
    """A docs-style graph whose node invokes a ``create_agent`` of its own (not the attached
    graph's agent: no layer of ours wraps its model), on the app's own SQLite checkpointer."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict, total=False):
        question: str
        answer: str

    agent = _agent()

    def ask(state: S) -> dict[str, str]:
        out = agent.invoke({"messages": [{"role": "user", "content": state["question"]}]})
        return {"answer": str(out["messages"][-1].content)}

    conn = sqlite3.connect(db, check_same_thread=False)
    b = StateGraph(S)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b.compile(checkpointer=SqliteSaver(conn)), conn


def test_a_fake_model_an_agent_calls_inside_a_node_is_not_streamed(tmp_path: Path) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    cfg = {"configurable": {"thread_id": "t"}}
    graph, conn = _agent_in_a_node(tmp_path / "app.db")
    try:
        attached = attach(graph, stream_tokens=True)
        events = asyncio.run(_events(attached, {"question": "who is ada?"}, cfg))
        assert events[-1].__dict__["status"] == "done", events[-1].__dict__.get("error")
        assert len([e for e in events if e.kind == "model.response"]) == 2
    finally:
        conn.close()
    again, conn = _agent_in_a_node(tmp_path / "app.db")  # read back by plain LangGraph
    try:
        assert again.get_state(cfg).values["answer"] == "Ada is a mathematician."
    finally:
        conn.close()
    scripted = Scripted(messages=iter([AIMessage(content="hi there")]))
    assert [c.content for c in scripted.stream("x")] == ["hi", " ", "there"]  # still streams


async def _events(graph: Any, inp: Any, cfg: Any) -> list[Any]:
    return [ev async for ev in graph.astream_events(inp, cfg, version="stepwise")]


def test_a_model_class_made_by_exec_is_told_apart_without_its_module() -> None:
    from engine.attach.quiet_fakes import streams_its_reply

    made: dict[str, Any] = {"GenericFakeChatModel": GenericFakeChatModel}
    exec(  # no __name__: the class's methods have no module, as in a REPL or a test harness
        "class Made(GenericFakeChatModel):\n    def _stream(self, *a, **k):\n        yield from ()\n",
        made,
    )
    assert made["Made"]._stream.__module__ is None
    assert not streams_its_reply(made["Made"](messages=iter([])))
    assert streams_its_reply(Scripted(messages=iter([])))
