"""LangGraph's chatbot tutorial ported by its imports: a node calls a langchain_core chat model
with the graph's state messages (the engine's), and the tools node runs its langchain tools,
one of which interrupts; the run reads as LangGraph's does."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage as LcAIMessage
from langchain_core.tools import tool
from typing_extensions import TypedDict

from engine.checkpoint.memory import MemorySaver
from engine.graph import START, StateGraph
from engine.graph.message import add_messages
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.prebuilt import ToolNode, tools_condition
from engine.types import Command, interrupt
from tests.fixtures.docs_apps import _MODEL_IMPORTS, SCRIPTED_MODEL


class State(TypedDict):
    messages: Annotated[list, add_messages]


def _scripted(*replies: LcAIMessage) -> Any:
    scope: dict[str, Any] = {}
    exec(_MODEL_IMPORTS + SCRIPTED_MODEL, scope)  # the docs' fake chat model, from a file
    return scope["ScriptedModel"](messages=iter(replies))


@tool
def search(q: str) -> str:
    """Search the web."""
    return f"results for {q}"


@tool
def human_assistance(query: str) -> str:
    """Request assistance from a human."""
    return interrupt({"query": query})["data"]


def test_a_langchain_model_in_a_node_takes_the_state_messages() -> None:
    tools = [search, human_assistance]
    llm = _scripted(
        LcAIMessage("", tool_calls=[{"name": "search", "args": {"q": "lg"}, "id": "s1"}]),
        LcAIMessage(
            "", tool_calls=[{"name": "human_assistance", "args": {"query": "?"}, "id": "h1"}]
        ),
        LcAIMessage("done"),
    ).bind_tools(tools)

    def chatbot(state: State) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    builder = StateGraph(State)
    builder.add_node("chatbot", chatbot)
    builder.add_node("tools", ToolNode(tools=tools))
    builder.add_conditional_edges("chatbot", tools_condition)
    builder.add_edge("tools", "chatbot")
    builder.add_edge(START, "chatbot")
    graph = builder.compile(checkpointer=MemorySaver())
    config = {"configurable": {"thread_id": "1"}}

    chunks = list(graph.stream({"messages": [{"role": "user", "content": "hi"}]}, config))
    assert "__interrupt__" in chunks[-1]
    assert graph.get_state(config).next == ("tools",)
    out = graph.invoke(Command(resume={"data": "use LangGraph"}), config)
    kinds = [type(m) for m in out["messages"]]
    assert kinds == [HumanMessage, AIMessage, ToolMessage, AIMessage, ToolMessage, AIMessage]
    assert out["messages"][2].content == "results for lg"
    assert out["messages"][4].content == "use LangGraph"
    assert out["messages"][-1].content == "done"
    assert len(list(graph.get_state_history(config))) == 7


def test_a_langchain_model_in_a_node_streams_its_tokens_to_messages() -> None:
    llm = _scripted(LcAIMessage("the sky is blue"))

    def call_model(state: State) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(State).add_node("call_model", call_model)
    graph.add_edge(START, "call_model")
    stream = graph.compile().stream({"messages": [("user", "hi")]}, stream_mode="messages")
    chunks = [(chunk.content, meta["langgraph_node"]) for chunk, meta in stream]
    assert chunks[:4] == [(w, "call_model") for w in ("the", " sky", " is", " blue")]
    assert "".join(text for text, _ in chunks) == "the sky is blue"


def test_the_engines_own_call_of_a_langchain_model_streams_each_token_once() -> None:
    from engine import create_agent

    agent = create_agent(_scripted(LcAIMessage("one two three")), [])
    stream = agent.stream({"messages": [("user", "hi")]}, stream_mode="messages")
    texts = [chunk.content for chunk, _meta in stream if chunk.content]
    assert texts == ["one", " two", " three"]


def test_a_model_call_tagged_nostream_streams_no_tokens_only_its_message() -> None:
    """Its tokens stay out of the messages stream; the message the node returns comes once
    when the node ends, as on LangGraph (``docs_port/test_docs_node_messages``)."""
    llm = _scripted(LcAIMessage("quiet"), LcAIMessage("loud")).with_config(tags=["nostream"])

    def call_model(state: State) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(State).add_node("call_model", call_model)
    graph.add_edge(START, "call_model")
    stream = graph.compile().stream({"messages": [("user", "hi")]}, stream_mode="messages")
    assert [chunk.content for chunk, _ in stream] == ["quiet"]
