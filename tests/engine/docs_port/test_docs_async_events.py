"""A docs async program run on the real libraries, ported and attached (``port.compare``):
``astream_events`` v2 of a graph whose second node returns a message without a model (no chat
model run in the events, as LangChain's), ``abatch``, ``astream`` of a subgraph with updates and
messages, ``aget_state``."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

ASYNC_EVENTS = """
import asyncio, operator
from typing import Annotated
from typing_extensions import TypedDict
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.checkpoint.memory import InMemorySaver

model = GenericFakeChatModel(messages=iter([AIMessage("hello world"), AIMessage("again there"), AIMessage("and more")]))

async def call_model(state: MessagesState):
    return {"messages": [await model.ainvoke(state["messages"])]}
async def after(state: MessagesState):
    return {"messages": [AIMessage("after", id="af")]}
b = StateGraph(MessagesState); b.add_node("call_model", call_model); b.add_node("after", after)
b.add_edge(START, "call_model"); b.add_edge("call_model", "after")
g = b.compile()

async def main():
    print("== astream_events v2")
    seen = []
    async for ev in g.astream_events({"messages": [HumanMessage("hi", id="h")]}, version="v2"):
        kind = ev["event"]
        if kind == "on_chat_model_stream":
            seen.append(("tok", ev["data"]["chunk"].content, ev["metadata"]["langgraph_node"]))
        elif kind in ("on_chain_start", "on_chain_end", "on_chat_model_start", "on_chat_model_end"):
            seen.append((kind, ev["name"], ev.get("metadata", {}).get("langgraph_node")))
    for s in seen:
        print(" ", s)
    print("== abatch")
    outs = await g.abatch([{"messages": [HumanMessage("a", id="1")]}, {"messages": [HumanMessage("b", id="2")]}])
    print([[m.content for m in o["messages"]] for o in outs])
    print("== astream subgraphs")
    pb = StateGraph(MessagesState); pb.add_node("child", b.compile()); pb.add_edge(START, "child")
    pg = pb.compile(checkpointer=InMemorySaver())
    model.messages = iter([AIMessage("sub reply")])
    async for ns, mode, chunk in pg.astream({"messages": [HumanMessage("x", id="x")]}, {"configurable": {"thread_id": "1"}}, subgraphs=True, stream_mode=["updates", "messages"]):
        if mode == "messages":
            print(" ", [n.split(":")[0] for n in ns], mode, repr(chunk[0].content))
        else:
            print(" ", [n.split(":")[0] for n in ns], mode, {k: [m.content for m in v["messages"]] for k, v in chunk.items()})
    st = await pg.aget_state({"configurable": {"thread_id": "1"}})
    print([m.content for m in st.values["messages"]])
asyncio.run(main())
"""


def test_async_events_batch_and_subgraph_stream() -> None:
    compare(ASYNC_EVENTS)
