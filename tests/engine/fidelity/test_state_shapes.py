"""State schemas as LangGraph treats them: a pydantic state validates when a node reads it (not
at the input), a returned model writes every field not left at a None default, keys only a
node's input schema declares show in ``updates``, and message reshaping for OpenAI."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.graph import Command, interrupt
from engine.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    ToolMessage,
    add_messages,
)


class Inner(BaseModel):
    a: int = 0


class Model(BaseModel):
    query: str
    docs: Annotated[list[str], operator.add]
    inner: Inner = Inner()
    note: str | None = None

    @field_validator("query")
    @classmethod
    def _upper(cls, v: str) -> str:
        return v.upper()


class In(BaseModel):
    query: str


def test_a_pydantic_state_validates_where_nodes_read_it() -> None:
    seen: list[Any] = []

    def read(state: Model) -> dict[str, Any]:
        seen.append(state)
        return {"docs": ["d"]}

    graph = StateGraph(Model, input_schema=In)
    graph.add_node("read", read)
    graph.add_edge(START, "read")
    app = graph.compile()
    out = app.invoke({"query": "hi"})  # 'docs' has no default: its reducer starts it empty
    assert isinstance(seen[0], Model) and seen[0].query == "HI"
    assert out["docs"] == ["d"]
    with pytest.raises(ValidationError):
        app.invoke({"query": {}})


def test_a_returned_model_writes_fields_except_none_defaults() -> None:
    def mutate(state: Model) -> Model:
        state.inner.a = 5  # changed in place: not 'set', still written
        return state

    graph = StateGraph(Model).add_node("mutate", mutate).add_edge(START, "mutate").compile()
    out = graph.invoke({"query": "q", "docs": []})
    assert out["inner"] == Inner(a=5) and "note" not in out


def test_keys_of_a_node_input_schema_show_in_updates() -> None:
    class State(TypedDict):
        hello: str

    class ForB(TypedDict):
        now: int

    graph = StateGraph(State)
    graph.add_node("b", lambda s: {"now": 123, "hello": "again"}, input_schema=ForB)
    graph.add_edge(START, "b")
    assert list(graph.compile().stream({"hello": "x"})) == [{"b": {"now": 123, "hello": "again"}}]


def test_tool_calls_are_always_of_type_tool_call() -> None:
    msg = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "1", "type": "tool_calls"}])
    assert msg.tool_calls[0]["type"] == "tool_call"


def test_openai_format_turns_tool_use_and_tool_result_blocks_into_calls_and_results() -> None:
    reducer = add_messages(format="langchain-openai")
    merged = reducer(
        [],
        [
            AIMessage([{"type": "tool_use", "name": "foo", "input": {"x": 1}, "id": "1"}]),
            HumanMessage(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "1",
                        "is_error": True,
                        "content": [{"type": "text", "text": "no", "cache_control": {}}],
                    }
                ]
            ),
        ],
    )
    ai, tool = merged
    assert ai.content == "" and ai.tool_calls == [
        {"name": "foo", "args": {"x": 1}, "id": "1", "type": "tool_call"}
    ]
    # as LangGraph 1.2's round trip through OpenAI's format gives it: the text blocks as one
    # string, no is_error kept (checked against it in docs_port/test_docs_graph_api_deeper.py)
    assert isinstance(tool, ToolMessage) and tool.tool_call_id == "1"
    assert tool.status == "success" and tool.content == "no"


class Msgs(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages] = []


def test_messages_stream_does_not_repeat_what_a_subgraph_hands_back() -> None:
    def propose(state: Msgs) -> Command[Literal["approve"]]:
        return Command(goto="approve", update={"messages": [AIMessage("p", id="proposal")]})

    def approve(state: Msgs) -> dict[str, Any]:
        return {"messages": [HumanMessage(interrupt("ok?"))]}

    saver = InMemorySaver()
    sub = (
        StateGraph(Msgs)
        .add_node("propose", propose)
        .add_node("approve", approve)
        .add_edge(START, "propose")
        .compile(checkpointer=saver)
    )
    graph = (
        StateGraph(Msgs)
        .add_node("sub", sub)
        .add_node("done", lambda s: {"messages": [AIMessage("f", id="final")]})
        .add_edge(START, "sub")
        .add_edge("sub", "done")
        .compile(checkpointer=saver)
    )
    cfg = {"configurable": {"thread_id": "t"}}

    def ids(stream: Any) -> list[Any]:
        return [(ns[:1] and "sub", chunk[0].id) for ns, chunk in stream]

    first = ids(
        graph.stream({"messages": [("user", "go")]}, cfg, stream_mode="messages", subgraphs=True)
    )
    assert first == [("sub", "proposal")]
    second = ids(graph.stream(Command(resume="yes"), cfg, stream_mode="messages", subgraphs=True))
    assert [i for _ns, i in second][-1] == "final" and len(second) == 2
    assert second[0][0] == "sub" and second[0][1] not in (None, "proposal")
