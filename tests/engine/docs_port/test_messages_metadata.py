"""The ``messages`` stream's metadata, real LangChain vs ported by its imports: an agent's
model that does not stream (its whole reply, with the model call's metadata), a model called
inside a tool (the tool's ``Send`` task: ``langgraph_triggers`` is ``("__pregel_push",)``) with
a custom writer, a subgraph's model with and without ``subgraphs=True``, and an agent added as
a node of a graph (its ``lc_agent_name`` still in every chunk's metadata)."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

PROGRAM = """
import asyncio
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.config import get_stream_writer
from langchain.agents import create_agent
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

inner_model = Scripted(messages=iter([AIMessage("inner words here"), AIMessage("second inner reply")]))

@tool
def ask_expert(question: str) -> str:
    '''Ask the expert model.'''
    writer = get_stream_writer()
    writer({"tool_progress": question})
    reply = inner_model.invoke([HumanMessage(question)])
    return reply.content

agent_model = Scripted(disable_streaming=True, messages=iter([
    AIMessage("let me ask", tool_calls=[{"name": "ask_expert", "args": {"question": "why?"}, "id": "c1"}]),
    AIMessage("the final answer"),
]))
agent = create_agent(agent_model, tools=[ask_expert], name="helper")

def keep(meta):
    return {k: meta[k].split(":")[0] if k == "checkpoint_ns" else meta[k] for k in sorted(meta) if k in ("langgraph_node", "langgraph_step", "langgraph_triggers", "langgraph_path", "checkpoint_ns", "lc_agent_name", "ls_model_type", "ls_provider", "tags", "name")}

def ns_of(ns):
    return tuple(n.split(":")[0] for n in ns)

for item in agent.stream({"messages": [{"role": "user", "content": "q"}]}, stream_mode=["messages", "custom"]):
    mode, data = item
    if mode == "messages":
        chunk, meta = data
        print(mode, type(chunk).__name__, repr(chunk.content), keep(meta))
    else:
        print(mode, data)

print("== as a subgraph")
inner_model2 = Scripted(messages=iter([AIMessage("sub reply one")]))
def sub_node(state: MessagesState):
    return {"messages": [inner_model2.invoke(state["messages"])]}
sub = StateGraph(MessagesState)
sub.add_node("sub_node", sub_node)
sub.add_edge(START, "sub_node")
subgraph = sub.compile()
outer_model = Scripted(messages=iter([AIMessage("outer reply")]))
def outer_node(state: MessagesState):
    return {"messages": [outer_model.invoke(state["messages"])]}
parent = StateGraph(MessagesState)
parent.add_node("outer_node", outer_node)
parent.add_node("child", subgraph)
parent.add_edge(START, "outer_node"); parent.add_edge("outer_node", "child")
g = parent.compile()
for sub_flag in (False, True):
    print("subgraphs", sub_flag)
    inner_model2.messages = iter([AIMessage("sub reply one")])
    outer_model.messages = iter([AIMessage("outer reply")])
    for item in g.stream({"messages": [HumanMessage("hi")]}, stream_mode="messages", subgraphs=sub_flag):
        if sub_flag:
            ns, (chunk, meta) = item
            print(" ", ns_of(ns), repr(chunk.content), keep(meta), "langgraph_checkpoint_ns" in meta)
        else:
            chunk, meta = item
            print(" ", repr(chunk.content), keep(meta))

print("== async, the agent as a subgraph node")
async def main():
    agent_model.messages = iter([
        AIMessage("let me ask", tool_calls=[{"name": "ask_expert", "args": {"question": "how?"}, "id": "c2"}]),
        AIMessage("async answer"),
    ])
    p2 = StateGraph(MessagesState)
    p2.add_node("helper_agent", agent)
    p2.add_edge(START, "helper_agent")
    app = p2.compile()
    async for ns, mode, data in app.astream({"messages": [HumanMessage("go")]}, stream_mode=["messages", "custom"], subgraphs=True):
        if mode == "messages":
            chunk, meta = data
            print(" ", ns_of(ns), mode, type(chunk).__name__, repr(chunk.content), keep(meta))
        else:
            print(" ", ns_of(ns), mode, data)
asyncio.run(main())
"""


def test_messages_metadata_of_tools_subgraphs_and_an_agent_as_a_node() -> None:
    compare(PROGRAM)
