"""Docs programs that use langchain_core's older message kinds (``ChatMessage``,
``FunctionMessage``) and the streamed pieces of every kind (``HumanMessageChunk``...
``BaseMessageChunk``), ported with their ``langchain_core.messages`` imports (and the
submodules they live in): their fields and ``repr``, ``+`` on pieces (and its refusals),
``message_chunk_to_message``, LangChain's dict form, ``convert_to_messages`` with the
``function`` and ``developer`` roles (and the roles it refuses, in its words; a role dict's
other keys as ``additional_kwargs``), the transcript (``get_buffer_string``: its prefixes,
separator and XML form) and ``pretty_print``, and a graph's ``add_messages`` storing them (a
piece as its whole message) through a checkpointer and ``update_state``.

Known difference kept: a program that keeps its ``langchain_core.messages`` imports (not
ported) hands the engine LangChain's ``ChatMessage``, which the engine reads as the message of
its role (a human one for another role), as it did before it had chat messages: sessions
recorded since hold them so, and the model requests they hashed."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

KINDS_AND_PIECES = """
from langchain_core.messages import (
    AIMessage, AIMessageChunk, BaseMessageChunk, ChatMessage, ChatMessageChunk, FunctionMessage,
    FunctionMessageChunk, HumanMessage, HumanMessageChunk, SystemMessageChunk, ToolMessageChunk,
    convert_to_messages, get_buffer_string, message_chunk_to_message, messages_from_dict,
    messages_to_dict,
)
from langchain_core.messages.chat import ChatMessage as C2
from langchain_core.messages.function import FunctionMessage as F2
from langchain_core.messages.human import HumanMessageChunk as H2
from langchain_core.messages.base import BaseMessageChunk as B2
print(C2 is ChatMessage, F2 is FunctionMessage, H2 is HumanMessageChunk, B2 is BaseMessageChunk)
c = ChatMessage("hi", role="wizard")
f = FunctionMessage("42", name="calc")
print(repr(c)); print(c); print(repr(f)); print(c.type, f.type)
h = HumanMessageChunk("a", name="n") + HumanMessageChunk("b", id="x")
s = SystemMessageChunk("a") + SystemMessageChunk("b")
t = ToolMessageChunk("a", tool_call_id="1", artifact=[1]) + ToolMessageChunk("b", tool_call_id="1", status="error", artifact=[2])
cc = ChatMessageChunk("a", role="x") + ChatMessageChunk("b", role="x")
fc = FunctionMessageChunk("a", name="f") + FunctionMessageChunk("b", name="f")
for m in (h, s, t, cc, fc):
    print(repr(m), m.type, isinstance(m, BaseMessageChunk))
print(isinstance(AIMessageChunk("x"), BaseMessageChunk), isinstance(AIMessage("x"), BaseMessageChunk))
print(repr(HumanMessageChunk("a") + [HumanMessageChunk("b"), SystemMessageChunk("c")]))
print(repr(cc + HumanMessageChunk("!")))
print(repr(HumanMessageChunk("a") + AIMessageChunk("b")))
for a, b in [(ChatMessageChunk("a", role="x"), ChatMessageChunk("b", role="y")),
             (FunctionMessageChunk("a", name="f"), FunctionMessageChunk("b", name="g")),
             (ToolMessageChunk("a", tool_call_id="1"), ToolMessageChunk("b", tool_call_id="2")),
             (HumanMessageChunk("a"), HumanMessage("b")),
             (HumanMessageChunk("a"), "b")]:
    try:
        print(repr(a + b))
    except Exception as e:
        print(type(e).__name__, e)
for m in (h, s, t, cc, fc, AIMessageChunk("z")):
    print(repr(message_chunk_to_message(m)))
d = messages_to_dict([c, f, h, s, t, cc, fc])
print(d)
print(messages_from_dict(d))
for m in (c, f, h, t, cc, fc):
    m.pretty_print()
print(get_buffer_string([c, f, h, s, t, cc, fc, AIMessageChunk("q")]))
"""

PIECES_OF_MIXED_KINDS = """
from langchain_core.messages import (
    AIMessageChunk, BaseMessageChunk, ChatMessageChunk, HumanMessageChunk, SystemMessageChunk,
    ToolMessageChunk, FunctionMessageChunk, message_chunk_to_message,
)
a = AIMessageChunk("x", id="a1") + HumanMessageChunk("y")
print(repr(a))
b = AIMessageChunk("p", id="run-1") + [AIMessageChunk("q"), AIMessageChunk("r", usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3})]
print(repr(b))
print(repr(AIMessageChunk("z") + []))
c = HumanMessageChunk([{"type": "text", "text": "a", "index": 0}]) + HumanMessageChunk([{"type": "text", "text": "b", "index": 0}])
print(repr(c))
d = SystemMessageChunk("s", additional_kwargs={"k": "v"}, response_metadata={"n": 1}) + SystemMessageChunk("t", additional_kwargs={"k": "w"}, response_metadata={"n": 2})
print(repr(d))
t = ToolMessageChunk("a", tool_call_id="1", artifact="x") + ToolMessageChunk("b", tool_call_id="1", artifact="y")
print(repr(t), repr(message_chunk_to_message(t)))
for a, b in [(ToolMessageChunk("a", tool_call_id="1", artifact="x"), ToolMessageChunk("b", tool_call_id="1", artifact=1)),
             (ToolMessageChunk("a", tool_call_id="1", artifact=1), ToolMessageChunk("b", tool_call_id="1", artifact=2)),
             (FunctionMessageChunk("a", name="f"), HumanMessageChunk("b"))]:
    try:
        print(repr(a + b))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
print(repr(HumanMessageChunk("hi", id="h", name="n")), repr(message_chunk_to_message(HumanMessageChunk("hi", id="h", name="n"))))
print(isinstance(HumanMessageChunk("x"), BaseMessageChunk), BaseMessageChunk.__name__)
print(HumanMessageChunk("x") == HumanMessageChunk("x"), HumanMessageChunk("x").text, HumanMessageChunk("x").content_blocks)
"""

CONVERT_TO_MESSAGES = """
from langchain_core.messages import ChatMessage, FunctionMessage, HumanMessageChunk, convert_to_messages
for x in [("function", "x"), ("chat", "y"), {"role": "function", "content": "x", "name": "f"},
          {"type": "function", "content": "x", "name": "f"}, {"role": "wizard", "content": "z"},
          ("wizard", "q"), {"role": "developer", "content": "d"}, ("developer", "d2"),
          {"role": "user", "content": None}, {"content": "x"}, ChatMessage("c", role="r"),
          FunctionMessage("o", name="n"), HumanMessageChunk("hc")]:
    try:
        print(convert_to_messages([x]))
    except Exception as e:
        print(type(e).__name__, e)
"""

ROLE_DICTS_WITH_MORE_KEYS = """
from langchain_core.messages import convert_to_messages
for x in [
    {"role": "user", "content": "x", "foo": 1},
    {"role": "assistant", "content": "y", "response_metadata": {"m": 1}, "extra": "e"},
    {"role": "tool", "content": "t", "tool_call_id": "1", "artifact": [1], "status": "error"},
    {"role": "user", "content": "x", "additional_kwargs": {"a": 1}, "b": 2},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
    {"type": "human", "content": "typed", "id": "h1"},
    {"role": "user", "content": "n", "name": "bob", "id": "u1"},
    {"role": "user", "content": "ex", "example": True},
    {"role": "user", "content": "ex", "example": False, "k": 1},
    {"role": "remove", "content": "", "id": "r1"},

]:
    try:
        print(repr(convert_to_messages([x])[0]))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:100])

from langgraph.graph import START, MessagesState, StateGraph


def reply(state: MessagesState):
    return {"messages": [{"role": "assistant", "content": "hi", "id": "a1", "refusal": None, "audio": {"id": "x"}}]}


b = StateGraph(MessagesState)
b.add_node(reply)
b.add_edge(START, "reply")
out = b.compile().invoke({"messages": [{"role": "user", "content": "yo", "id": "u1", "cache": True}]})
print([repr(m) for m in out["messages"]])
"""

TRANSCRIPTS = """
from langchain_core.messages import (
    AIMessage, AIMessageChunk, ChatMessage, FunctionMessage, HumanMessage, SystemMessage, ToolMessage,
    get_buffer_string,
)
from langchain_core.messages.utils import get_buffer_string as gbs2

messages = [
    SystemMessage("be brief"),
    HumanMessage("weather?"),
    AIMessage("checking", tool_calls=[{"name": "get", "args": {"city": "NYC"}, "id": "1"}]),
    ToolMessage("72F", tool_call_id="1"),
    AIMessage("", additional_kwargs={"function_call": {"name": "f", "arguments": "{}"}}),
    FunctionMessage("done", name="f"),
    ChatMessage("hmm", role="critic"),
    AIMessageChunk("partial"),
    HumanMessage([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "http://x/y.png"}}]),
    AIMessage("72F and sunny"),
]
print(gbs2 is get_buffer_string)
print(get_buffer_string(messages))
print(get_buffer_string(messages, human_prefix="User", ai_prefix="Bot", system_prefix="Sys", function_prefix="Fn", tool_prefix="T", message_separator=" | "))
print(get_buffer_string(messages, format="xml"))
print(get_buffer_string([]))
for bad in ([object()], "nope"):
    try:
        print(get_buffer_string(bad) if isinstance(bad, list) else get_buffer_string(messages, format=bad))
    except Exception as e:
        print(type(e).__name__, str(e)[:30])
"""

IN_A_GRAPH = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage, ChatMessage, FunctionMessage, HumanMessageChunk, ToolMessageChunk, AIMessageChunk,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import add_messages

model = GenericFakeChatModel(messages=iter([AIMessage("sure", id="r1")]))

def legacy(state: MessagesState):
    return {"messages": [
        ChatMessage("from the wizard", role="wizard", id="c1"),
        FunctionMessage("42", name="calc", id="f1"),
        HumanMessageChunk("half ", id="h1") + HumanMessageChunk("and half"),
        {"role": "function", "content": "7", "name": "sum", "id": "f2"},
    ]}

def answer(state: MessagesState):
    reply = model.invoke(state["messages"])
    return {"messages": [reply]}

builder = StateGraph(MessagesState)
builder.add_node(legacy)
builder.add_node(answer)
builder.add_edge(START, "legacy")
builder.add_edge("legacy", "answer")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
out = graph.invoke({"messages": [("user", "hi")]}, config)
for m in out["messages"][1:]:
    print(type(m).__name__, repr(m.content), getattr(m, "role", None), m.name)
    m.pretty_print()
state = graph.get_state(config)
print([type(m).__name__ for m in state.values["messages"]])
graph.update_state(config, {"messages": [ChatMessage("edited", role="wizard", id="c1")]})
print([(type(m).__name__, m.content) for m in graph.get_state(config).values["messages"]])
merged = add_messages(
    [ChatMessage("a", role="r", id="1")],
    [ToolMessageChunk("x", tool_call_id="t", id="2"), AIMessageChunk("y", id="3"), ChatMessage("b", role="r", id="1")],
)
print([repr(m) for m in merged])
"""


def test_legacy_kinds_and_pieces_as_langchain_core_has_them() -> None:
    compare(KINDS_AND_PIECES, core_messages=True)


def test_convert_to_messages_takes_and_refuses_roles_as_langchain_core() -> None:
    compare(CONVERT_TO_MESSAGES, core_messages=True)


def test_a_graph_stores_legacy_messages_and_pieces_as_langgraph() -> None:
    compare(IN_A_GRAPH, core_messages=True)


def test_get_buffer_string_of_every_kind_prefixed_and_as_xml() -> None:
    compare(TRANSCRIPTS, core_messages=True)


def test_pieces_of_mixed_kinds_lists_blocks_and_artifacts() -> None:
    compare(PIECES_OF_MIXED_KINDS, core_messages=True)


def test_role_dicts_other_keys_are_additional_kwargs_as_langchain_core_reads_them() -> None:
    compare(ROLE_DICTS_WITH_MORE_KEYS, core_messages=True)
