"""Docs programs that import their messages and message utilities from ``langchain_core``,
ported with those imports too (``langchain_core.messages`` and its submodules ->
``engine.messages``): the utilities a LangGraph docs page uses on a graph's messages
(trimming by an approximate token count, filtering, merging runs, OpenAI dicts, LangChain's
dict form, a streamed chunk made whole) and ``isinstance`` against the message classes print
the same as on LangChain."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

TRIM_IN_A_NODE = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately, trim_messages
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

model = GenericFakeChatModel(messages=iter([AIMessage(f"reply {i}") for i in range(4)]))


def call_model(state: MessagesState):
    messages = trim_messages(
        state["messages"],
        strategy="last",
        token_counter=count_tokens_approximately,
        max_tokens=40,
        start_on="human",
        end_on=("human", "tool"),
    )
    print("model sees", [type(m).__name__ + ":" + m.content for m in messages])
    print("tokens", count_tokens_approximately(state["messages"]))
    return {"messages": [model.invoke([SystemMessage("be brief")] + messages)]}


builder = StateGraph(MessagesState)
builder.add_node(call_model)
builder.add_edge(START, "call_model")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
for text in ["hi, I am bob", "write a short poem about cats", "now do the same for dogs", "what's my name?"]:
    out = graph.invoke({"messages": [HumanMessage(text)]}, config)
    last = out["messages"][-1]
    print(isinstance(last, AIMessage), last.content)
"""

UTILITIES = """
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    convert_to_openai_messages,
    filter_messages,
    merge_message_runs,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
)
from langgraph.graph import END, START, MessagesState, StateGraph


def tidy(state: MessagesState):
    messages = state["messages"]
    print("humans", [m.content for m in filter_messages(messages, include_types=[HumanMessage])])
    print("by name", [m.content for m in filter_messages(messages, include_types="human", exclude_names=["bob"])])
    print("no tools", [type(m).__name__ for m in filter_messages(messages, exclude_tool_calls=True)])
    merged = merge_message_runs(messages)
    print("merged", [(type(m).__name__, m.content) for m in merged])
    print(convert_to_openai_messages(messages[:2]))
    print(convert_to_openai_messages(messages[0]))
    back = messages_from_dict(messages_to_dict(messages[:2]))
    print([(type(m).__name__, isinstance(m, HumanMessage), m.content) for m in back])
    print([type(m).__name__ for m in convert_to_messages([("user", "x"), {"role": "assistant", "content": "y"}])])
    kinds = [
        (isinstance(m, AIMessage), isinstance(m, HumanMessage), isinstance(m, ToolMessage))
        for m in messages
    ]
    print(kinds)
    whole = message_chunk_to_message(AIMessageChunk(content="a") + AIMessageChunk(content="b"))
    print(type(whole).__name__, whole.content)
    return {"messages": [AIMessage("tidied", id="done")]}


builder = StateGraph(MessagesState)
builder.add_node(tidy)
builder.add_edge(START, "tidy")
builder.add_edge("tidy", END)
out = builder.compile().invoke(
    {
        "messages": [
            SystemMessage("you are kind", id="s"),
            HumanMessage("hi", id="h1", name="bob"),
            HumanMessage("there", id="h2"),
            AIMessage("", id="a1", tool_calls=[{"name": "look", "args": {}, "id": "c1"}]),
            ToolMessage("found", tool_call_id="c1", id="t1"),
            AIMessage("done looking", id="a2"),
        ]
    }
)
print([type(m).__name__ for m in out["messages"]])
"""


def test_a_node_trims_its_messages_by_langchain_cores_token_estimate() -> None:
    compare(TRIM_IN_A_NODE, core_messages=True)


def test_langchain_cores_message_utilities_on_a_graphs_messages() -> None:
    compare(UTILITIES, core_messages=True)
