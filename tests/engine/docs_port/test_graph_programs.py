"""LangGraph docs programs, real vs ported by their imports: removing messages, several
pending interrupts resumed by id, a runtime context and a store in nodes, node caching,
``ToolNode`` with ``tools_condition`` and ``InjectedStore``, a failing tool (its exception and
LangGraph's note naming the task), ``create_react_agent``; langchain_core ``@tool`` functions
with the engine's ``ToolRuntime`` / ``InjectedState`` / ``InjectedToolCallId`` markers."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

GRAPH_PROGRAMS = """
import operator
from dataclasses import dataclass
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.graph.message import add_messages, REMOVE_ALL_MESSAGES
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.runtime import Runtime
from langgraph.types import interrupt, Command, CachePolicy
from langgraph.cache.memory import InMemoryCache
from langgraph.prebuilt import ToolNode, tools_condition, create_react_agent, InjectedStore
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

# remove messages
def cleanup(state: MessagesState):
    return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][:2]]}
g = StateGraph(MessagesState)
g.add_node("cleanup", cleanup)
g.add_edge(START, "cleanup")
app = g.compile()
out = app.invoke({"messages": [HumanMessage("a", id="1"), AIMessage("b", id="2"), HumanMessage("c", id="3")]})
print([(m.type, m.content) for m in out["messages"]])
def wipe(state: MessagesState):
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="9")]}
g = StateGraph(MessagesState); g.add_node("wipe", wipe); g.add_edge(START, "wipe")
print([(m.type, m.content) for m in g.compile().invoke({"messages": [HumanMessage("a", id="1")]})["messages"]])
try:
    g = StateGraph(MessagesState); g.add_node("bad", lambda s: {"messages": [RemoveMessage(id="nope")]}); g.add_edge(START, "bad")
    g.compile().invoke({"messages": [HumanMessage("a", id="1")]})
except Exception as e:
    print("RAISED", type(e).__name__, e)

# multiple interrupts + resume map
class S(TypedDict):
    answers: Annotated[list, operator.add]
def ask_a(state): return {"answers": [interrupt("question a")]}
def ask_b(state): return {"answers": [interrupt("question b")]}
g = StateGraph(S)
g.add_node("ask_a", ask_a); g.add_node("ask_b", ask_b)
g.add_edge(START, "ask_a"); g.add_edge(START, "ask_b")
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "m"}}
out = app.invoke({"answers": []}, cfg)
print(sorted(i.value for i in out["__interrupt__"]))
st = app.get_state(cfg)
print(st.next, sorted(i.value for i in st.interrupts))
try:
    app.invoke(Command(resume="x"), cfg)
except Exception as e:
    print("RAISED", type(e).__name__, e)
resume = {i.id: f"ans to {i.value}" for i in st.interrupts}
print(sorted(app.invoke(Command(resume=resume), cfg)["answers"]))

# runtime context in nodes + store
@dataclass
class Ctx:
    user: str
class CS(TypedDict):
    greeting: str
def greet(state: CS, runtime: Runtime[Ctx]):
    runtime.store.put(("users",), runtime.context.user, {"seen": True})
    return {"greeting": f"hi {runtime.context.user}"}
g = StateGraph(CS, context_schema=Ctx)
g.add_node("greet", greet); g.add_edge(START, "greet")
store = InMemoryStore()
app = g.compile(store=store)
print(app.invoke({"greeting": ""}, context=Ctx(user="ada")), [(i.key, i.value) for i in store.search(("users",))])

# node caching
calls = {"n": 0}
class NS(TypedDict):
    x: int
    y: int
def slow(state):
    calls["n"] += 1
    return {"y": state["x"] * 2}
g = StateGraph(NS)
g.add_node("slow", slow, cache_policy=CachePolicy(ttl=None))
g.add_edge(START, "slow")
app = g.compile(cache=InMemoryCache())
print(list(app.stream({"x": 2, "y": 0})), list(app.stream({"x": 2, "y": 0})), list(app.stream({"x": 3, "y": 0})), calls)

# ToolNode + tools_condition + InjectedStore
@tool
def remember(fact: str, store: Annotated[object, InjectedStore()]) -> str:
    '''Remember a fact.'''
    store.put(("facts",), fact, {"f": fact})
    return f"remembered {fact}"
@tool
def divide(a: int, b: int) -> float:
    '''Divide.'''
    return a / b
class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self
model = M(messages=iter([
    AIMessage("", tool_calls=[{"name": "remember", "args": {"fact": "sky is blue"}, "id": "r1"}, {"name": "divide", "args": {"a": 1, "b": 0}, "id": "d1"}]),
    AIMessage("", tool_calls=[{"name": "divide", "args": {"a": 1}, "id": "d2"}, {"name": "nosuch", "args": {}, "id": "n1"}]),
    AIMessage("done"),
]))
def chatbot(state: MessagesState):
    return {"messages": [model.invoke(state["messages"])]}
g = StateGraph(MessagesState)
g.add_node("chatbot", chatbot)
g.add_node("tools", ToolNode([remember, divide]))
g.add_edge(START, "chatbot")
g.add_conditional_edges("chatbot", tools_condition)
g.add_edge("tools", "chatbot")
store = InMemoryStore()
app = g.compile(store=store)
try:
    out = app.invoke({"messages": [HumanMessage("go")]})
except Exception as e:
    print("RAISED", type(e).__name__, e, [n.split(" and id")[0] for n in getattr(e, "__notes__", [])])
    model = M(messages=iter([AIMessage("", tool_calls=[{"name": "divide", "args": {"a": 1}, "id": "d2"}, {"name": "nosuch", "args": {}, "id": "n1"}]), AIMessage("done")]))
    out = app.invoke({"messages": [HumanMessage("go")]})
for m in out["messages"]:
    print(type(m).__name__, repr(m.content)[:200], getattr(m, "status", None), getattr(m, "name", None))
print([(i.key) for i in store.search(("facts",))])

# create_react_agent (deprecated prebuilt)
model = M(messages=iter([AIMessage("", tool_calls=[{"name": "divide", "args": {"a": 6, "b": 3}, "id": "x1"}]), AIMessage("two")]))
agent = create_react_agent(model, [divide], prompt="be terse")
out = agent.invoke({"messages": [HumanMessage("6/3?")]})
print([(type(m).__name__, m.content) for m in out["messages"]])
print(sorted(agent.get_graph().nodes))
"""

MIXED_MARKERS = """
from typing import Annotated
from langchain.agents import create_agent
from langchain.tools import ToolRuntime, InjectedToolCallId
from langgraph.prebuilt import InjectedState
from langchain_core.tools import tool
from langchain_core.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        print("bind", len(tools))
        return self

@tool
def count_msgs(runtime: ToolRuntime) -> str:
    '''Count messages.'''
    return f"{len(runtime.state['messages'])} messages, call {runtime.tool_call_id}"

@tool
def last_words(n: int, state: Annotated[dict, InjectedState], call_id: Annotated[str, InjectedToolCallId]) -> str:
    '''Last words.'''
    return f"{state['messages'][0].content[:n]} ({call_id})"

m = M(messages=iter([AIMessage("", tool_calls=[{"name": "count_msgs", "args": {}, "id": "a1"}, {"name": "last_words", "args": {"n": 3}, "id": "a2"}]), AIMessage("ok")]))
out = create_agent(m, tools=[count_msgs, last_words]).invoke({"messages": [{"role": "user", "content": "hello there"}]})
print([(type(x).__name__, x.content) for x in out["messages"]])
print(sorted(count_msgs.tool_call_schema.model_json_schema().get("properties", {})), sorted(last_words.tool_call_schema.model_json_schema().get("properties", {})))
"""

PARALLEL_TOOL_FAILS = """
import time
from typing import Annotated
from langgraph.graph import StateGraph, START, MessagesState
from langgraph.store.memory import InMemoryStore
from langgraph.prebuilt import ToolNode, InjectedStore
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
@tool
def remember(fact: str, store: Annotated[object, InjectedStore()]) -> str:
    '''Remember a fact.'''
    store.put(("facts",), fact, {"f": fact})
    print("put done", type(store).__name__)
    return f"remembered {fact}"
@tool
def divide(a: int, b: int) -> float:
    '''Divide.'''
    return a / b
g = StateGraph(MessagesState)
g.add_node("tools", ToolNode([remember, divide]))
g.add_edge(START, "tools")
store = InMemoryStore()
app = g.compile(store=store)
try:
    app.invoke({"messages": [AIMessage("", tool_calls=[{"name": "remember", "args": {"fact": "sky"}, "id": "r1"}, {"name": "divide", "args": {"a": 1, "b": 0}, "id": "d1"}])]})
except Exception as e:
    print("RAISED", type(e).__name__)
print([i.key for i in store.search(("facts",))])
print([i.key for i in store.search(("facts",))])
"""


def test_graph_programs() -> None:
    compare(GRAPH_PROGRAMS)


def test_langchain_core_tools_with_the_engines_injection_markers() -> None:
    compare(MIXED_MARKERS)


def test_a_tool_fails_while_another_runs() -> None:
    compare(PARALLEL_TOOL_FAILS)
