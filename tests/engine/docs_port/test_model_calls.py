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
