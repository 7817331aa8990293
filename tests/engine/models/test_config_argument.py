"""``model.invoke(messages, config)``: the ``RunnableConfig`` LangChain code passes as the second
argument (LangGraph's tutorials do, inside nodes) is accepted everywhere a model is called, and
a LangChain model gets it (its callbacks see the call)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel

from engine.checkpoint import InMemorySaver
from engine.graph import END, START, StateGraph
from engine.messages import AIMessage, AIMessageChunk, HumanMessage
from engine.models import ScriptedChatModel

CONFIG: dict[str, Any] = {"tags": ["from-a-node"], "metadata": {"user": "u1"}}


def test_every_call_form_takes_a_config() -> None:
    model = ScriptedChatModel([AIMessage("one"), AIMessage("two"), AIMessage("three")])
    assert model.invoke([HumanMessage("hi")], CONFIG).content == "one"
    assert asyncio.run(model.ainvoke([HumanMessage("hi")], CONFIG)).content == "two"
    streamed = list(model.stream([HumanMessage("hi")], CONFIG))
    assert streamed[-1].content == "three"
    assert model.calls[-1].config == CONFIG  # what a model implementation receives


def test_derived_models_take_and_pass_the_config_on() -> None:
    class Answer(BaseModel):
        value: int

    call = {"name": "Answer", "args": {"value": 4}, "id": "c1"}
    model = ScriptedChatModel([AIMessage("", tool_calls=[call]), AIMessage("ok"), AIMessage("ok")])
    assert model.with_structured_output(Answer).invoke("2+2?", CONFIG) == Answer(value=4)
    assert model.bind(temperature=0).with_retry().invoke("again", CONFIG).content == "ok"
    assert model.calls[-1].config == CONFIG
    assert model.calls[-1].settings == {"temperature": 0}


def test_batch_takes_one_config_or_one_per_input() -> None:
    model = ScriptedChatModel([AIMessage("a"), AIMessage("b"), AIMessage("c"), AIMessage("d")])
    assert [m.content for m in model.batch(["1", "2"], CONFIG)] == ["a", "b"]
    assert [r.config for r in model.calls[-2:]] == [CONFIG, CONFIG]
    out = model.batch(["3", "4"], [{"tags": ["x"]}, {"tags": ["y"]}])
    assert sorted(m.content for m in out) == ["c", "d"]
    assert sorted(r.config["tags"][0] for r in model.calls[-2:]) == ["x", "y"]
    with pytest.raises(ValueError, match="2 inputs but 1 configs"):
        model.batch(["5", "6"], [CONFIG])


class Chat(TypedDict):
    messages: Annotated[list[Any], operator.add]


def test_a_node_passing_its_config_to_the_model_still_streams_its_tokens() -> None:
    model = ScriptedChatModel([AIMessage("streamed reply")])

    def chat(state: Chat, config: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"], config)]}  # the tutorial's way

    graph = (
        StateGraph(Chat)
        .add_node("chat", chat)
        .add_edge(START, "chat")
        .add_edge("chat", END)
        .compile(checkpointer=InMemorySaver())
    )
    parts = list(
        graph.stream(
            {"messages": [HumanMessage("hi")]},
            {"configurable": {"thread_id": "t"}},
            stream_mode="messages",
        )
    )
    chunks = [m for m, _meta in parts if isinstance(m, AIMessageChunk)]
    assert "".join(str(c.content) for c in chunks) == "streamed reply"
    assert all(meta["langgraph_node"] == "chat" for _m, meta in parts)


def test_a_langchain_models_callbacks_see_the_call_through_the_config() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage as LCAIMessage

    from engine.models import as_chat_model

    started: list[tuple[list[str], dict[str, Any]]] = []

    class Seen(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kw: Any) -> None:
            started.append((kw.get("tags") or [], kw.get("metadata") or {}))

    model = as_chat_model(GenericFakeChatModel(messages=iter([LCAIMessage("from langchain")])))
    reply = model.invoke([HumanMessage("hi")], {**CONFIG, "callbacks": [Seen()]})
    assert reply.content == "from langchain"
    assert started and "from-a-node" in started[0][0] and started[0][1]["user"] == "u1"
