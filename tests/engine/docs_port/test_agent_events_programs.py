"""``astream_events(version="v2")`` of agents, real LangChain vs ported vs attached: a
streaming langchain_core model (its closing chunk, with its run's id, ends the same reply),
a model that does not stream (start and end, no stream events), the model's input in its
start and end events, and the tools' ``on_tool_start`` / ``on_tool_end`` / ``on_tool_error``
(a tool's own handled error ends; a raised one, an interrupt, a validation failure error)."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

STREAMING_MODEL = r"""
import asyncio
from langchain.agents import create_agent
from langchain.agents.middleware import before_model
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))

@tool
def get_weather(city: str) -> str:
    '''Weather.'''
    return f"sunny in {city}"

@before_model
def hook(state, runtime):
    return None

from typing import Iterator
from langchain.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult, ChatGeneration
class Streamer(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self
    def _stream(self, messages, stop=None, run_manager=None, **kw) -> Iterator[ChatGenerationChunk]:
        msg = next(self.messages)
        if msg.content:
            for part in msg.content.split(" "):
                ch = ChatGenerationChunk(message=AIMessageChunk(content=part + " ", id="fixed"))
                if run_manager:
                    run_manager.on_llm_new_token(part, chunk=ch)
                yield ch
        for i, tc in enumerate(msg.tool_calls):
            import json
            ch = ChatGenerationChunk(message=AIMessageChunk(content="", id="fixed", tool_call_chunks=[{"name": tc["name"], "args": json.dumps(tc["args"]), "id": tc["id"], "index": i}]))
            if run_manager:
                run_manager.on_llm_new_token("", chunk=ch)
            yield ch
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        chunks = list(self._stream(messages, stop, run_manager, **kw))
        m = chunks[0].message
        for c in chunks[1:]:
            m = m + c.message
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=m.content, tool_calls=m.tool_calls, id=m.id))])


async def main():
    model = Streamer(messages=iter([AIMessage("Checking", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}]), AIMessage("It is sunny")]))
    agent = create_agent(model, tools=[get_weather], middleware=[hook], name="weather")
    async for ev in agent.astream_events({"messages": [{"role": "user", "content": "weather?"}]}, version="v2"):
        md = ev.get("metadata", {})
        data = ev["data"]
        print(ev["event"], ev["name"], md.get("langgraph_node"), sorted(data), ev.get("tags"))
asyncio.run(main())
"""

NON_STREAMING_MODEL = r"""
import asyncio
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatResult, ChatGeneration
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class NoStream(BaseChatModel):
    replies: list
    @property
    def _llm_type(self):
        return "nostream"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def get_weather(city: str) -> str:
    '''Weather.'''
    return f"sunny in {city}"

async def main():
    for label, model in [("nostream", NoStream(replies=[AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}]), AIMessage("It is sunny")])),
                         ("fake text", Fake(messages=iter([AIMessage("hello there")])))]:
        print("==", label)
        agent = create_agent(model, tools=[get_weather])
        async for ev in agent.astream_events({"messages": [{"role": "user", "content": "weather?"}]}, version="v2"):
            if ev["event"] in ("on_chain_stream",):
                continue
            md = ev.get("metadata", {})
            print(ev["event"], ev["name"], md.get("langgraph_node"), sorted(ev["data"]), ev.get("tags"))
asyncio.run(main())
"""

EVENT_DATA = r"""
import asyncio
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatResult, ChatGeneration
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class NoStream(BaseChatModel):
    replies: list
    @property
    def _llm_type(self):
        return "nostream"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def get_weather(city: str) -> str:
    '''Weather.'''
    return f"sunny in {city}"

async def main():
    for label, model in [("nostream", NoStream(replies=[AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}], id="r1"), AIMessage("It is sunny", id="r2")])),
                         ("fake text", Fake(messages=iter([AIMessage("hello there", id="r3")])))]:
        print("==", label)
        agent = create_agent(model, tools=[get_weather])
        async for ev in agent.astream_events({"messages": [{"role": "user", "content": "weather?", "id": "h1"}]}, version="v2"):
            if ev["event"] in ("on_chain_stream", "on_chain_start", "on_chain_end"):
                continue
            md = ev.get("metadata", {})
            d = ev["data"]
            def short(v):
                if isinstance(v, dict) and "messages" in v:
                    return {"messages": [[(type(m).__name__, m.content) for m in ms] for ms in v["messages"]]}
                if hasattr(v, "content"):
                    return (type(v).__name__, v.content, getattr(v, "tool_call_id", None))
                return v
            print(ev["event"], ev["name"], md.get("langgraph_node"), {k: short(v) for k, v in d.items()}, ev.get("tags"), len(ev["parent_ids"]), sorted(k for k in md if not k.startswith("checkpoint")))
asyncio.run(main())
"""

TOOL_ERRORS = r"""
import asyncio
from langchain.agents import create_agent
from langchain.agents.middleware import ToolErrorMiddleware
from langchain.messages import AIMessage
from langchain.tools import tool, ToolException
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatResult, ChatGeneration

class NoStream(BaseChatModel):
    replies: list
    @property
    def _llm_type(self):
        return "nostream"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

@tool
def boom(x: int) -> str:
    '''Boom.'''
    raise ValueError("bad value")

@tool
def handled(x: int) -> str:
    '''Handled.'''
    raise ToolException("handled error")
handled.handle_tool_error = True

@tool
def ask(q: str) -> str:
    '''Ask a human.'''
    return interrupt(q)

async def main():
    calls = [{"name": "boom", "args": {"x": 1}, "id": "b"}, {"name": "handled", "args": {"x": 1}, "id": "h"}, {"name": "boom", "args": {"x": "nope"}, "id": "v"}]
    model = NoStream(replies=[AIMessage("", tool_calls=calls), AIMessage("", tool_calls=[{"name": "ask", "args": {"q": "ok?"}, "id": "a"}]), AIMessage("done")])
    agent = create_agent(model, tools=[boom, handled, ask], middleware=[ToolErrorMiddleware(lambda e, r: f"err: {type(e).__name__}")], checkpointer=InMemorySaver())
    evs = []
    async for ev in agent.astream_events({"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": "1"}}, version="v2"):
        if "tool" in ev["event"]:
            d = ev["data"]
            evs.append((ev["event"], ev["name"], sorted(d), (type(d.get("error")).__name__ if d.get("tool_call_id") != "v" else "validation") if "error" in d else None, d.get("tool_call_id"), d.get("input"), getattr(d.get("output"), "content", None)))
    # (an argument-validation failure is pydantic's ValidationError on LangChain, the
    # engine's ToolArgsValidationError ported: not printed)
    for e in sorted(evs, key=str):
        print(e)
asyncio.run(main())
"""


def test_events_of_a_streaming_model_and_its_tools() -> None:
    compare(STREAMING_MODEL)


def test_events_of_a_model_that_does_not_stream() -> None:
    compare(NON_STREAMING_MODEL)


def test_model_and_tool_events_carry_their_input_and_output() -> None:
    compare(EVENT_DATA)


def test_tool_error_events() -> None:
    compare(TOOL_ERRORS)
