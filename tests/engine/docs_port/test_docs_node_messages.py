"""Docs programs of ``stream_mode="messages"`` run on the real libraries, ported and attached
(``port.compare``): messages a node returns without a model (LangChain's own message classes,
as a ported program builds them) are streamed when the node ends, once, with an id; chat model
tokens filtered by tags; a subgraph's tokens; custom parts with messages and updates; the
messages in a ``Command``'s update, in any state key, in a task's or an entrypoint's result
(itself, its items, its fields), the arguments of a task call counting as seen."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

TAGS_AND_NODE_MESSAGES = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, AIMessageChunk
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.config import get_stream_writer

class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

joke_model = FakeModel(messages=iter([AIMessage(content="Why did the cat sit")])).with_config(tags=["joke"])
poem_model = FakeModel(messages=iter([AIMessage(content="Roses are red")])).with_config(tags=["poem"])

class S(TypedDict):
    topic: str
    joke: str
    poem: str

def write_joke(s):
    return {"joke": joke_model.invoke([HumanMessage(f"joke about {s['topic']}")]).content}
def write_poem(s):
    return {"poem": poem_model.invoke([HumanMessage(f"poem about {s['topic']}")]).content}
b = StateGraph(S)
b.add_node("write_joke", write_joke); b.add_node("write_poem", write_poem)
b.add_edge(START, "write_joke"); b.add_edge(START, "write_poem")
g = b.compile()
print("== filter by tags")
got = {}
for msg, meta in g.stream({"topic": "cats"}, stream_mode="messages"):
    got.setdefault(tuple(meta.get("tags", [])), []).append(msg.content)
for k in sorted(got):
    print(" ", k, "".join(got[k]))

print("== messages returned by a node without a model")
def static(s: MessagesState):
    return {"messages": [AIMessage(content="static answer", id="m1"), ToolMessage(content="tool out", tool_call_id="c1", id="m2")]}
b = StateGraph(MessagesState); b.add_node("static", static); b.add_edge(START, "static")
for msg, meta in b.compile().stream({"messages": [HumanMessage("q", id="h1")]}, stream_mode="messages"):
    print(" ", type(msg).__name__, msg.content, msg.id, meta["langgraph_node"])

print("== messages from a subgraph")
m3 = FakeModel(messages=iter([AIMessage(content="deep thought")]))
def sub_node(s: MessagesState):
    return {"messages": [m3.invoke(s["messages"])]}
sb = StateGraph(MessagesState); sb.add_node("sub_node", sub_node); sb.add_edge(START, "sub_node")
pb = StateGraph(MessagesState); pb.add_node("child", sb.compile()); pb.add_edge(START, "child")
for ns, (msg, meta) in pb.compile().stream({"messages": [HumanMessage("q")]}, stream_mode="messages", subgraphs=True):
    print(" ", [n.split(":")[0] for n in ns], type(msg).__name__, repr(msg.content), meta["langgraph_node"], meta["langgraph_checkpoint_ns"].split(":")[0])

print("== custom stream from a tool-like node, mixed modes")
def progress(s: MessagesState):
    w = get_stream_writer()
    for i in range(2):
        w({"step": i})
    return {"messages": [AIMessage(content="done", id="d1")]}
b = StateGraph(MessagesState); b.add_node("progress", progress); b.add_edge(START, "progress")
for mode, chunk in b.compile().stream({"messages": []}, stream_mode=["custom", "messages", "updates"]):
    if mode == "messages":
        print(" ", mode, type(chunk[0]).__name__, chunk[0].content)
    elif mode == "updates":
        print(" ", mode, {k: [m.content for m in v["messages"]] for k, v in chunk.items()})
    else:
        print(" ", mode, chunk)
"""

NODE_MESSAGES_V2 = """
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import StateGraph, START, MessagesState
def static(s: MessagesState):
    return {"messages": [AIMessage(content="static answer", id="m1"), ToolMessage(content="tool out", tool_call_id="c1", id="m2")]}
b = StateGraph(MessagesState); b.add_node("static", static); b.add_edge(START, "static")
g = b.compile()
for part in g.stream({"messages": [HumanMessage("q", id="h1")]}, stream_mode="messages", version="v2"):
    print(" ", part["type"], type(part["data"][0]).__name__, part["data"][0].content)
for part in g.stream({"messages": [HumanMessage("q", id="h1")]}, stream_mode=["messages", "updates"], version="v2"):
    print(" ", part["type"], type(part["data"]).__name__)
def no_id(s: MessagesState):
    return {"messages": [AIMessage(content="no id")]}
b = StateGraph(MessagesState); b.add_node("no_id", no_id); b.add_edge(START, "no_id")
g = b.compile()
for msg, meta in g.stream({"messages": []}, stream_mode="messages"):
    print(" ", type(msg).__name__, msg.content, msg.id is not None)
out = g.invoke({"messages": []})
print(out["messages"][0].id is not None)
def returns_human(s: MessagesState):
    return {"messages": [HumanMessage("echo", id="h1"), AIMessage("new", id="n1")]}
b = StateGraph(MessagesState); b.add_node("r", returns_human); b.add_edge(START, "r")
for msg, meta in b.compile().stream({"messages": [HumanMessage("q", id="h1")]}, stream_mode="messages"):
    print(" ", type(msg).__name__, msg.content)
"""

NOSTREAM = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import StateGraph, START, MessagesState
llm = GenericFakeChatModel(messages=iter([AIMessage("quiet words"), AIMessage("loud")])).with_config(tags=["nostream"])
def call_model(state: MessagesState):
    return {"messages": [llm.invoke(state["messages"])]}
b = StateGraph(MessagesState); b.add_node("call_model", call_model); b.add_edge(START, "call_model")
for chunk, meta in b.compile().stream({"messages": [("user", "hi")]}, stream_mode="messages"):
    print(type(chunk).__name__, chunk.content, meta.get("tags"))
llm2 = GenericFakeChatModel(messages=iter([AIMessage("a b", id="x1")]))
def call2(state: MessagesState):
    return {"messages": [llm2.invoke(state["messages"], config={"tags": ["nostream"]})]}
b = StateGraph(MessagesState); b.add_node("call2", call2); b.add_edge(START, "call2")
for chunk, meta in b.compile().stream({"messages": [("user", "hi")]}, stream_mode="messages"):
    print(type(chunk).__name__, chunk.content, meta.get("tags"))
"""


def test_a_nostream_model_streams_only_the_node_message() -> None:
    compare(NOSTREAM)


def test_messages_by_tags_node_messages_subgraph_and_custom() -> None:
    compare(TAGS_AND_NODE_MESSAGES)


def test_node_messages_in_v2_parts_and_without_ids() -> None:
    compare(NODE_MESSAGES_V2)


RETURNED_MESSAGES = """
from typing import Any
from typing_extensions import TypedDict
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import StateGraph, START, MessagesState
from langgraph.func import entrypoint, task
from langgraph.types import Command

def show(stream):
    for msg, meta in stream:
        print("  ", type(msg).__name__, msg.content, meta["langgraph_node"])

print("== Command update with messages")
def cmd_node(s: MessagesState):
    return Command(update={"messages": [AIMessage("via command", id="c1")]})
b = StateGraph(MessagesState); b.add_node("cmd_node", cmd_node); b.add_edge(START, "cmd_node")
show(b.compile().stream({"messages": []}, stream_mode="messages"))

print("== message in a plain channel")
class S(TypedDict):
    answer: Any
    note: list
def plain(s):
    return {"answer": AIMessage("plain channel", id="p1"), "note": [HumanMessage("in a list", id="p2")]}
b = StateGraph(S); b.add_node("plain", plain); b.add_edge(START, "plain")
show(b.compile().stream({"answer": None, "note": []}, stream_mode="messages"))

print("== tasks and entrypoint returning messages")
@task
def one_message(x: str):
    return AIMessage(f"task says {x}", id="t-" + x)
@task
def dict_of_messages(x: str):
    return {"reply": AIMessage(f"dict says {x}", id="d-" + x), "n": 1}
@task
def list_of_messages(x: str):
    return [AIMessage(f"list says {x}", id="l-" + x), "text"]
@entrypoint()
def flow(x: str):
    a = one_message(x).result()
    b_ = dict_of_messages(x).result()
    c = list_of_messages(x).result()
    return AIMessage(f"entrypoint says {x}", id="e-" + x)
show(flow.stream("hi", stream_mode="messages"))
@entrypoint()
def flow2(x: str):
    return {"final": AIMessage("in a dict", id="f2"), "also": [ToolMessage("tool", tool_call_id="t", id="f3")]}
show(flow2.stream("hi", stream_mode="messages"))
@entrypoint()
def flow3(x: str):
    return entrypoint.final(value=AIMessage("final value", id="f4"), save=[AIMessage("saved", id="f5")])
show(flow3.stream("hi", stream_mode="messages"))
"""

FUNCTIONAL_AGENT = '''
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.func import entrypoint, task
from langgraph.graph.message import add_messages
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command
from langgraph.config import get_stream_writer

class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

model = FakeModel(messages=iter([
    AIMessage(content="let me add", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}], id="r1"),
    AIMessage(content="The sum is five", id="r2"),
]))

@task
def call_model(messages: list[BaseMessage]):
    return model.bind_tools([add]).invoke(messages)

@task
def call_tool(tool_call):
    w = get_stream_writer()
    w(f"running {tool_call['name']}")
    approved = interrupt({"tool": tool_call["name"], "args": tool_call["args"]})
    if not approved:
        return ToolMessage(content="denied", tool_call_id=tool_call["id"])
    out = add.invoke(tool_call["args"])
    return ToolMessage(content=str(out), tool_call_id=tool_call["id"])

@entrypoint(checkpointer=InMemorySaver())
def agent(messages: list[BaseMessage], *, previous: list[BaseMessage] | None = None):
    messages = add_messages(previous or [], messages)
    resp = call_model(messages).result()
    while resp.tool_calls:
        results = [call_tool(tc).result() for tc in resp.tool_calls]
        messages = add_messages(messages, [resp, *results])
        resp = call_model(messages).result()
    messages = add_messages(messages, resp)
    return entrypoint.final(value=resp, save=messages)

cfg = {"configurable": {"thread_id": "1"}}
for mode, chunk in agent.stream([HumanMessage("what is 2+3?", id="u1")], cfg, stream_mode=["updates", "custom"]):
    if mode == "messages":
        print(" ", mode, type(chunk[0]).__name__, repr(chunk[0].content), chunk[1]["langgraph_node"])
    elif mode == "updates":
        print(" ", mode, {k: (v.content if hasattr(v, "content") else [i.value for i in v] if k == "__interrupt__" else v) for k, v in chunk.items()})
    else:
        print(" ", mode, chunk)
st = agent.get_state(cfg)
print(st.next, [i.value for i in st.interrupts])
for mode, chunk in agent.stream(Command(resume=True), cfg, stream_mode=["updates", "messages"]):
    if mode == "messages":
        print(" ", mode, type(chunk[0]).__name__, repr(chunk[0].content), chunk[1]["langgraph_node"])
    else:
        print(" ", mode, {k: getattr(v, "content", v) for k, v in chunk.items()})
print(agent.get_state(cfg).values)
'''


def test_messages_in_commands_plain_channels_tasks_and_entrypoints() -> None:
    compare(RETURNED_MESSAGES)


def test_a_functional_agent_streams_its_tool_message_once() -> None:
    compare(FUNCTIONAL_AGENT)
