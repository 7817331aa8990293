"""How an agent calls a user's langchain_core chat model, real LangChain vs ported: which of
its methods run (a sync run calls ``_generate`` / ``_stream``, an async run ``_agenerate`` /
``_astream``), what its ``bind_tools`` / ``bind`` receive (the tool objects, the structured
output tools, the keyword arguments of each strategy), and how ``astream_events`` names its
events."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

SYNC_AND_ASYNC_METHODS = """
import asyncio
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.outputs import ChatResult, ChatGeneration, ChatGenerationChunk
from langchain_core.messages import AIMessageChunk
from langgraph.graph import StateGraph, START, MessagesState

class Both(BaseChatModel):
    calls: list = []
    @property
    def _llm_type(self):
        return "both"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.calls.append("_generate")
        return ChatResult(generations=[ChatGeneration(message=AIMessage("gen"))])
    async def _agenerate(self, messages, stop=None, run_manager=None, **kw):
        self.calls.append("_agenerate")
        return ChatResult(generations=[ChatGeneration(message=AIMessage("agen"))])
    def _stream(self, messages, stop=None, run_manager=None, **kw):
        self.calls.append("_stream")
        for t in ["s", "1"]:
            yield ChatGenerationChunk(message=AIMessageChunk(t))
    async def _astream(self, messages, stop=None, run_manager=None, **kw):
        self.calls.append("_astream")
        for t in ["a", "1"]:
            yield ChatGenerationChunk(message=AIMessageChunk(t))

def app_for(kind, model):
    if kind == "agent":
        return create_agent(model, tools=[])
    def call(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}
    g = StateGraph(MessagesState)
    g.add_node("call", call)
    g.add_edge(START, "call")
    return g.compile()

inp = {"messages": [{"role": "user", "content": "hi"}]}

async def run_async(app, mode):
    if mode == "invoke":
        return (await app.ainvoke(inp))["messages"][-1].content
    if mode == "values":
        return [c["messages"][-1].content async for c in app.astream(inp, stream_mode="values")][-1]
    return [c[0].content async for c in app.astream(inp, stream_mode="messages")]

def run_sync(app, mode):
    if mode == "invoke":
        return app.invoke(inp)["messages"][-1].content
    if mode == "values":
        return [c["messages"][-1].content for c in app.stream(inp, stream_mode="values")][-1]
    return [c[0].content for c in app.stream(inp, stream_mode="messages")]

for kind in ("agent", "graph"):
    for mode in ("invoke", "values", "messages"):
        model = Both()
        model.calls.clear()
        print("sync", kind, mode, run_sync(app_for(kind, model), mode), model.calls)
        model.calls.clear()
        print("async", kind, mode, asyncio.run(run_async(app_for(kind, model), mode)), model.calls)
"""


def test_a_sync_run_calls_the_models_sync_methods() -> None:
    compare(SYNC_AND_ASYNC_METHODS)


BINDING = """
import warnings
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy
from langchain.tools import tool, ToolRuntime
from langchain.messages import AIMessage
from langgraph.prebuilt import create_react_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.tools import tool as core_tool
from langchain_core.utils.function_calling import convert_to_openai_tool

class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        print("bind_tools", sorted(kw.items(), key=str))
        for t in tools:
            print("  ", type(t).__name__, t is core_search, getattr(t, "name", None), getattr(t, "description", None), convert_to_openai_tool(t))
        return self
    def bind(self, **kw):
        print("bind", sorted(kw.items(), key=str))
        return self

@tool
def get_weather(city: str, runtime: ToolRuntime) -> str:
    '''Get weather.'''
    return f"sunny in {city}"

@core_tool
def core_search(query: str, limit: int = 3) -> str:
    '''Search the web.'''
    return query

def double(x: int) -> int:
    '''Double a number.'''
    return 2 * x

class Weather(BaseModel):
    '''The weather.'''
    city: str
    temp: int

def run(tools, response_format, *replies):
    agent = create_agent(Model(messages=iter(replies)), tools=tools, response_format=response_format)
    out = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    print(repr(out.get("structured_response")), [type(m).__name__ for m in out["messages"]])

as_json = AIMessage('{"city": "sf", "temp": 3}')
as_call = AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "sf", "temp": 3}, "id": "c1"}])
run([get_weather, core_search, double], None, AIMessage("ok"))
run([], None, AIMessage("ok"))
run([], ProviderStrategy(Weather), as_json)
run([get_weather], ProviderStrategy(Weather), as_json)
run([get_weather], ProviderStrategy(Weather, strict=True), as_json)
run([core_search], ToolStrategy(Weather), as_call)
run([], ToolStrategy(Weather), as_call)
run([], Weather, as_call)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    agent = create_react_agent(Model(messages=iter([AIMessage("ok")])), tools=[double, core_search])
print(agent.invoke({"messages": [{"role": "user", "content": "hi"}]})["messages"][-1].content)
"""


def test_bind_tools_gets_the_tool_objects_and_the_strategys_arguments() -> None:
    compare(BINDING)


EVENT_NAMES = """
import asyncio
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langgraph.graph import StateGraph, START, MessagesState
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

def show(ev):
    if "chat_model" in ev["event"]:
        print(ev["event"], ev["name"], ev.get("tags"), ev["metadata"].get("langgraph_node"), len(ev["parent_ids"]))

async def main():
    inp = {"messages": [{"role": "user", "content": "hi"}]}
    for model in (Scripted(messages=iter([AIMessage("hello there")])), Scripted(messages=iter([AIMessage("hi")]), name="named", tags=["t1"])):
        async for ev in create_agent(model, tools=[]).astream_events(inp, version="v2"):
            show(ev)
    m = Scripted(messages=iter([AIMessage("yo"), AIMessage("again")]), tags=["own"])
    def call(state: MessagesState):
        return {"messages": [m.invoke(state["messages"], {"tags": ["mine"]})]}
    async def acall(state: MessagesState):
        return {"messages": [await m.ainvoke(state["messages"], {"run_name": "custom"})]}
    for fn in (call, acall):
        g = StateGraph(MessagesState); g.add_node("call", fn); g.add_edge(START, "call")
        async for ev in g.compile().astream_events(inp, version="v2"):
            show(ev)
    async for ev in create_agent(Scripted(messages=iter([AIMessage("x")]), name="filtered"), tools=[]).astream_events(inp, version="v2", include_names=["filtered"]):
        show(ev)
asyncio.run(main())
"""


def test_astream_events_names_a_chat_models_run_as_langchain_does() -> None:
    compare(EVENT_NAMES)
