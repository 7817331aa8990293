"""Streams run at their consumer's pace, real LangGraph vs ported by their imports: a node runs
when the consumer asks for the next chunk, so what nodes print and what the loop over the
stream prints interleave as on LangGraph (sync and async, several modes, a fan-out whose next
step waits); middleware hooks with jumps, a tool wrapper and ``after_agent`` printing while an
agent streams; model fallback."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

NODES_PRINT_WHILE_STREAMING = """
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
class S(TypedDict):
    n: int
def mk(name):
    def f(state):
        print("running", name)
        return {"n": state["n"] + 1}
    return f
b = StateGraph(S)
for x in "abc":
    b.add_node(x, mk(x))
b.add_edge(START, "a"); b.add_edge("a", "b"); b.add_edge("b", "c")
g = b.compile()
for chunk in g.stream({"n": 0}, stream_mode="updates"):
    print("got", chunk)
for chunk in g.stream({"n": 0}, stream_mode=["values", "updates", "debug"]):
    print("got", chunk[0])
import asyncio
async def main():
    async for chunk in g.astream({"n": 0}, stream_mode="updates"):
        print("async got", chunk)
    async for mode, chunk in g.astream({"n": 0}, stream_mode=["values", "tasks"]):
        print("async got", mode, chunk.get("name", chunk.get("n")))
asyncio.run(main())
# fan-out: a step's tasks all run; the next step waits for the consumer
import operator
from typing import Annotated
from langgraph.types import Send
class F(TypedDict):
    items: Annotated[list, operator.add]
def fan(state):
    return [Send("work", {"items": [i]}) for i in range(3)]
def work(state):
    pass
    return {"items": [state["items"][0] * 10]}
def total(state):
    print("total", sorted(state["items"]))
    return {}
fb = StateGraph(F); fb.add_node(work); fb.add_node(total)
fb.add_conditional_edges(START, fan, ["work"]); fb.add_edge("work", "total")
fg = fb.compile()
got = []
for chunk in fg.stream({"items": []}, stream_mode="updates"):
    got.append(chunk)
    if len(got) == 3:
        print("three updates", sorted(str(c) for c in got))
print("end")
"""

MIDDLEWARE_PRINTS_AND_FALLBACK = """
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import (
    before_agent, after_agent, before_model, after_model, hook_config, wrap_tool_call,
    ModelFallbackMiddleware,
)
from langchain.tools import tool
from langchain.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

class Broken(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, *a, **k):
        raise RuntimeError("provider down")

@tool
def search(q: str) -> str:
    '''Search the web.'''
    return f"results for {q}"

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [c["name"] for c in getattr(m, "tool_calls", [])], getattr(m, "status", None))

print("== jumps")
@before_agent(can_jump_to=["end"])
def gate(state: AgentState, runtime):
    if "blocked" in state["messages"][-1].content:
        return {"messages": [AIMessage("I cannot help with that.")], "jump_to": "end"}
    return None

@after_model(can_jump_to=["model"])
def retry_empty(state: AgentState, runtime):
    last = state["messages"][-1]
    if last.content == "" and not last.tool_calls:
        return {"jump_to": "model"}
    return None

@after_agent
def done(state: AgentState, runtime):
    print("after_agent", len(state["messages"]))

@wrap_tool_call
def log_tools(request, handler):
    print("tool", request.tool_call["name"], request.tool_call["args"])
    result = handler(request)
    return ToolMessage(content=result.content.upper(), tool_call_id=result.tool_call_id, name=result.name)

model = Scripted(messages=iter([AIMessage(""), AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "s1"}]), AIMessage("final")]))
agent = create_agent(model, tools=[search], middleware=[gate, retry_empty, done, log_tools], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
show(agent.invoke({"messages": [{"role": "user", "content": "hello"}]}, cfg))
show(agent.invoke({"messages": [{"role": "user", "content": "blocked request"}]}, cfg))
print(sorted(agent.get_graph().nodes))
for chunk in agent.stream({"messages": [{"role": "user", "content": "blocked again"}]}, cfg, stream_mode="updates"):
    print(" update", {k: (None if v is None else sorted(v)) for k, v in chunk.items()})

print("== fallback")
primary = Broken(messages=iter([]))
backup = Scripted(messages=iter([AIMessage("from backup")]))
agent = create_agent(primary, tools=[search], middleware=[ModelFallbackMiddleware(backup)])
show(agent.invoke({"messages": [{"role": "user", "content": "hi"}]}))
agent = create_agent(Broken(messages=iter([])), tools=[search], middleware=[ModelFallbackMiddleware(Broken(messages=iter([])))])
try:
    agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
except Exception as e:
    print("RAISED", type(e).__name__, e)

"""


def test_nodes_run_when_the_consumer_asks() -> None:
    compare(NODES_PRINT_WHILE_STREAMING)


def test_middleware_jumps_wrappers_and_fallback_while_streaming() -> None:
    compare(MIDDLEWARE_PRINTS_AND_FALLBACK)
