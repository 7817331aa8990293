"""Stream modes as the docs use them, real LangGraph vs ported: ``values``, ``updates``,
``custom``, several modes, ``subgraphs=True`` tuples, ``debug``, ``checkpoints``, ``tasks``,
``messages`` from a chat model in a node.  Without ``subgraphs=True`` a subgraph's (or a graph
a node runs) tokens and custom data are not streamed, and its reply comes once, as the node's
output, before the node's update; with it, the tokens stream and the reply is not repeated."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

STREAMS = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.types import Command, interrupt, Send
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class S(TypedDict):
    topic: str
    joke: str
    log: Annotated[list, operator.add]

def refine(state):
    writer = get_stream_writer()
    writer({"progress": "refining"})
    writer("plain custom")
    return {"topic": state["topic"] + " and cats", "log": ["refine"]}

def generate(state):
    return {"joke": f"This is a joke about {state['topic']}", "log": ["generate"]}

class Sub(TypedDict):
    topic: str
    log: Annotated[list, operator.add]

def sub_node(state):
    get_stream_writer()({"in_sub": state["topic"]})
    return {"log": ["sub"]}

sub = StateGraph(Sub)
sub.add_node("sub_node", sub_node)
sub.add_edge(START, "sub_node")

g = StateGraph(S)
g.add_node("refine", refine)
g.add_node("generate", generate)
g.add_node("child", sub.compile())
g.add_edge(START, "refine")
g.add_edge("refine", "generate")
g.add_edge("generate", "child")
g.add_edge("child", END)
app = g.compile()

inp = {"topic": "ice cream", "log": []}
for mode in ["values", "updates", "custom"]:
    print("==", mode)
    for chunk in app.stream(inp, stream_mode=mode):
        print(chunk)
print("== multi")
for chunk in app.stream(inp, stream_mode=["updates", "custom"]):
    print(chunk)
print("== subgraphs")
for chunk in app.stream(inp, stream_mode="updates", subgraphs=True):
    ns, data = chunk
    print(tuple(n.split(":")[0] for n in ns), data)
print("== subgraphs multi")
for ns, mode, data in app.stream(inp, stream_mode=["values", "custom"], subgraphs=True):
    print(tuple(n.split(":")[0] for n in ns), mode, data)
print("== invoke modes")
print(app.invoke(inp, stream_mode="updates"))
print("== debug")
for chunk in app.stream(inp, stream_mode="debug"):
    p = chunk["payload"]
    print(chunk["type"], chunk["step"], p.get("name"), sorted(p), p.get("input") if chunk["type"] == "task" else p.get("result"))
print("== checkpoints")
app2 = g.compile(checkpointer=InMemorySaver())
for chunk in app2.stream(inp, {"configurable": {"thread_id": "1"}}, stream_mode="checkpoints"):
    print(sorted(chunk), chunk["metadata"], chunk["next"], chunk["values"], [t["name"] for t in chunk["tasks"]])
print("== tasks")
for chunk in app2.stream(inp, {"configurable": {"thread_id": "2"}}, stream_mode="tasks"):
    print(sorted(chunk), chunk["name"], chunk.get("input"), chunk.get("result"))

# messages mode with a fake model in a node
model = GenericFakeChatModel(messages=iter([AIMessage("hello there friend"), AIMessage("second reply")]))
def call(state: MessagesState):
    return {"messages": [model.invoke(state["messages"])]}
mg = StateGraph(MessagesState)
mg.add_node("call", call)
mg.add_edge(START, "call")
mapp = mg.compile()
print("== messages")
for msg, meta in mapp.stream({"messages": [HumanMessage("hi")]}, stream_mode="messages"):
    print(type(msg).__name__, repr(msg.content), meta.get("langgraph_node"), meta.get("langgraph_step"), sorted(k for k in meta if k.startswith("langgraph")))
print("== messages+updates")
for mode, data in mapp.stream({"messages": [HumanMessage("hi")]}, stream_mode=["messages", "updates"]):
    if mode == "messages":
        print(mode, type(data[0]).__name__, repr(data[0].content))
    else:
        print(mode, {k: [m.content for m in v["messages"]] for k, v in data.items()})
"""

SUBGRAPH_STREAMS = """
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.config import get_stream_writer
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

model = GenericFakeChatModel(messages=iter([AIMessage(f"reply {i}") for i in range(20)]))
def call(state: MessagesState):
    get_stream_writer()({"custom_from": "inner"})
    return {"messages": [model.invoke(state["messages"])]}
inner = StateGraph(MessagesState)
inner.add_node("call", call)
inner.add_edge(START, "call")
inner_app = inner.compile()

def wrapper(state: MessagesState):
    out = inner_app.invoke(state)
    return {"messages": out["messages"][-1:]}

for how in ["as_node", "in_function"]:
    g = StateGraph(MessagesState)
    g.add_node("outer", inner_app if how == "as_node" else wrapper)
    g.add_edge(START, "outer")
    app = g.compile()
    for sub in (False, True):
        print("==", how, "subgraphs", sub)
        for item in app.stream({"messages": [HumanMessage("hi")]}, stream_mode=["messages", "custom", "updates"], subgraphs=sub):
            if sub:
                ns, mode, data = item
                ns = tuple(n.split(":")[0] for n in ns)
            else:
                mode, data = item; ns = None
            if mode == "messages":
                print(ns, mode, type(data[0]).__name__, data[0].content, data[1]["langgraph_node"], data[1]["langgraph_checkpoint_ns"].split(":")[0])
            elif mode == "updates":
                print(ns, mode, {k: (v and [m.content for m in v["messages"]]) for k, v in data.items()})
            else:
                print(ns, mode, data)
"""

MESSAGES_METADATA = """
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("hello world")])), tools=[])
for msg, meta in agent.stream({"messages": [{"role": "user", "content": "hi"}]}, stream_mode="messages"):
    print(type(msg).__name__, repr(msg.content), sorted(meta), {k: v for k, v in meta.items() if k.startswith("ls_")})
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph, START, MessagesState
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("hello world")])), tools=[], checkpointer=InMemorySaver())
for msg, meta in agent.stream({"messages": [{"role": "user", "content": "hi"}]}, {"configurable": {"thread_id": "t1", "user": "ada", "n": 3}}, stream_mode="messages"):
    print(repr(msg.content), sorted(k for k in meta if k not in ("lc_versions",)), meta.get("thread_id"), meta.get("user"), meta.get("checkpoint_ns", "").split(":")[0], meta["langgraph_path"], meta["langgraph_triggers"])
model = GenericFakeChatModel(messages=iter([AIMessage("node reply")]))
def call(state: MessagesState):
    return {"messages": [model.invoke(state["messages"])]}
g = StateGraph(MessagesState); g.add_node("call", call); g.add_edge(START, "call")
app = g.compile(checkpointer=InMemorySaver())
for msg, meta in app.stream({"messages": [{"role": "user", "content": "hi"}]}, {"configurable": {"thread_id": "t2"}}, stream_mode="messages"):
    print(repr(msg.content), sorted(k for k in meta if k not in ("lc_versions",)), meta.get("thread_id"), meta.get("checkpoint_ns", "").split(":")[0])
"""

LANGCHAIN_EVENTS = """
import asyncio
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
class S(TypedDict):
    x: int
g = StateGraph(S)
g.add_node("a", lambda s: {"x": s["x"] + 1})
g.add_edge(START, "a")
app = g.compile()
async def main():
    async for ev in app.astream_events({"x": 1}, version="v2"):
        print(ev["event"], ev["name"], ev["tags"], sorted(ev["metadata"]), ev["data"])
asyncio.run(main())
"""


def test_the_stream_modes_of_a_graph_with_a_subgraph() -> None:
    compare(STREAMS)


def test_a_subgraphs_tokens_and_custom_data_stream_only_with_subgraphs() -> None:
    compare(SUBGRAPH_STREAMS)


def test_the_metadata_of_messages_chunks() -> None:
    """A model's chunks carry the task's metadata, its namespace as ``checkpoint_ns``, and the
    langchain_core model's LangSmith parameters and metadata, keys in LangChain's order."""
    compare(MESSAGES_METADATA)


def test_astream_events_v2_of_a_graph() -> None:
    """The input task is hidden; a task's events are tagged with its step and its end names
    its input; the graph's metadata names the integration."""
    compare(LANGCHAIN_EVENTS)
