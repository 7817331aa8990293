"""Graph API breadth: root-value states, Overwrite, bulk updates, schemas, batch, resume schemas,
push_message, and what a run shows when it stops at an interrupt."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel, ValidationError

from engine.checkpoint import InMemorySaver
from engine.graph import (
    END,
    START,
    Command,
    InvalidUpdateError,
    MessagesState,
    Overwrite,
    StateGraph,
    StateUpdate,
    interrupt,
    is_invalid_resume,
    push_message,
)
from engine.messages import AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, add_messages


def thread(t: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


# -- root-value state ----------------------------------------------------------------------


def test_root_state_is_the_value_itself() -> None:
    g = StateGraph(Annotated[list, operator.add])
    g.add_node("left", lambda words: ["left saw " + str(len(words))])
    g.add_node("right", lambda words: ["right"])
    g.add_edge(START, "left")
    g.add_edge("left", "right")
    app = g.compile(checkpointer=InMemorySaver())
    assert app.invoke(["seed"], thread()) == ["seed", "left saw 1", "right"]
    assert app.get_state(thread()).values == ["seed", "left saw 1", "right"]
    chunks = list(app.stream(["s"], thread("u"), stream_mode="updates"))
    assert chunks == [{"left": ["left saw 1"]}, {"right": ["right"]}]


def test_root_state_node_gets_a_real_list() -> None:
    seen: list[type] = []

    def node(value: list) -> list:
        seen.append(type(value))
        return ["x"]

    g = StateGraph(Annotated[list, operator.add])
    g.add_node("n", node)
    g.add_edge(START, "n")
    assert g.compile().invoke(["a"]) == ["a", "x"]
    assert seen == [list]


def test_root_state_string_reducer_with_several_commands() -> None:
    g = StateGraph(Annotated[str, operator.add])
    g.add_node("a", lambda s: [Command(update="1"), Command(update="2")])
    g.add_edge(START, "a")
    app = g.compile()
    assert app.invoke(">") == ">12"
    assert list(app.stream(">", stream_mode="updates")) == [{"a": ["1", "2"]}]


# -- Overwrite -----------------------------------------------------------------------------


class Trail(TypedDict):
    trail: Annotated[list, operator.add]


def test_overwrite_replaces_reduced_value_and_two_in_one_step_fail() -> None:
    g = StateGraph(Trail)
    g.add_node("grow", lambda s: {"trail": ["g"]})
    g.add_node("reset", lambda s: {"trail": Overwrite(["fresh"])})
    g.add_edge(START, "grow")
    g.add_edge("grow", "reset")
    assert g.compile().invoke({"trail": ["in"]}) == {"trail": ["fresh"]}

    g2 = StateGraph(Trail)
    g2.add_node("a", lambda s: {"trail": Overwrite(["a"])})
    g2.add_node("b", lambda s: {"trail": {"__overwrite__": ["b"]}})
    g2.add_edge(START, "a")
    g2.add_edge(START, "b")
    with pytest.raises(InvalidUpdateError, match="only one Overwrite"):
        g2.compile().invoke({"trail": []})


# -- bulk_update_state ---------------------------------------------------------------------


class Pair(TypedDict):
    left: str
    right: str


def _pair_graph() -> Any:
    g = StateGraph(Pair)
    g.add_node("l", lambda s: {"left": "L"})
    g.add_node("r", lambda s: {"right": "R"})
    g.add_edge(START, "l")
    g.add_edge("l", "r")
    return g.compile(checkpointer=InMemorySaver())


def test_bulk_update_writes_one_checkpoint_per_superstep() -> None:
    app = _pair_graph()
    app.bulk_update_state(
        thread(),
        [
            [StateUpdate({"left": "one"}, as_node="l")],
            [StateUpdate({"left": "two"}, as_node="l"), StateUpdate({"right": "x"}, as_node="r")],
        ],
    )
    assert app.get_state(thread()).values == {"left": "two", "right": "x"}
    assert len(list(app.get_state_history(thread()))) == 2


def test_bulk_update_validates_its_input() -> None:
    app = _pair_graph()
    with pytest.raises(ValueError, match="No supersteps provided"):
        app.bulk_update_state(thread(), [])
    with pytest.raises(ValueError, match="No updates provided"):
        app.bulk_update_state(thread(), [[]])
    with pytest.raises(InvalidUpdateError):
        app.bulk_update_state(thread(), [[StateUpdate({"left": "a"}), StateUpdate({"right": "b"})]])
    with pytest.raises(InvalidUpdateError):
        app.bulk_update_state(
            thread(), [[StateUpdate(None, as_node=END), StateUpdate(None, as_node="__copy__")]]
        )


# -- schemas, batch, copy ------------------------------------------------------------------


@dataclass
class Form:
    name: str
    nickname: str | None
    age: int = 3


def test_json_schemas_of_keyed_and_root_states() -> None:
    g = StateGraph(Form)
    g.add_node("n", lambda s: {})
    g.add_edge(START, "n")
    schema = g.compile().get_input_jsonschema()
    assert schema["title"] == "Form"
    assert set(schema["properties"]) == {"name", "nickname", "age"}
    assert schema["required"] == ["name"]

    r = StateGraph(list[int])
    r.add_node("n", lambda v: v)
    r.add_edge(START, "n")
    app = r.compile()
    assert app.get_output_jsonschema() == {
        "type": "array",
        "items": {"type": "integer"},
        "title": "LangGraphOutput",
    }
    assert app.get_context_jsonschema() is None


def test_batch_runs_each_input() -> None:
    g = StateGraph(Annotated[int, operator.add])
    g.add_node("inc", lambda v: 1)
    g.add_edge(START, "inc")
    app = g.compile()
    assert app.batch([1, 5, 10]) == [2, 6, 11]
    assert app.copy().invoke(1) == 2
    assert app.nodes["inc"].copy({"metadata": {"k": 1}}).metadata == {"k": 1}


# -- interrupt(response_schema=) -----------------------------------------------------------


class Approval(BaseModel):
    ok: bool


class Answer(TypedDict):
    answer: Any


def test_resume_is_validated_against_the_schema() -> None:
    def ask(state: Answer) -> Answer:
        return {"answer": interrupt("approve?", response_schema=Approval)}

    g = StateGraph(Answer)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver())
    out = app.invoke({"answer": None}, thread())
    [pending] = out["__interrupt__"]
    assert pending.response_schema == Approval.model_json_schema()
    with pytest.raises(ValidationError) as err:
        app.invoke(Command(resume={"ok": "perhaps"}), thread())
    assert is_invalid_resume(err.value)
    assert not is_invalid_resume(ValueError("other"))
    assert app.invoke(Command(resume={pending.id: {"ok": True}}), thread()) == {
        "answer": Approval(ok=True)
    }


# -- interrupts and the values stream ------------------------------------------------------


class Two(TypedDict):
    fast: str
    slow: str


def test_interrupt_shows_in_values_and_finished_siblings_count() -> None:
    def fast(state: Two) -> dict[str, str]:
        return {"fast": "done"}

    def slow(state: Two) -> dict[str, str]:
        return {"slow": interrupt("wait")}

    g = StateGraph(Two)
    g.add_node("fast", fast)
    g.add_node("slow", slow)
    g.add_edge(START, "fast")
    g.add_edge(START, "slow")
    app = g.compile(checkpointer=InMemorySaver())
    out = app.invoke({"fast": "", "slow": ""}, thread())
    assert out["fast"] == "done"
    assert [i.value for i in out["__interrupt__"]] == ["wait"]
    chunks = list(app.stream({"fast": "", "slow": ""}, thread("s"), stream_mode="values"))
    assert any("__interrupt__" in c for c in chunks)
    assert chunks[-1]["fast"] == "done"


# -- messages ------------------------------------------------------------------------------


def test_add_messages_options_and_chunks() -> None:
    with pytest.raises(ValueError, match="Unrecognized format="):
        add_messages([], [], format="bogus")
    reducer = add_messages(format="langchain-openai")
    merged = reducer([HumanMessage("hi", id="1")], [AIMessageChunk(content="yo", id="2")])
    assert [type(m) for m in merged] == [HumanMessage, AIMessage]
    twice = add_messages(
        [HumanMessage("a", id="1"), HumanMessage("b", id="2")],
        [RemoveMessage(id="2"), RemoveMessage(id="2")],
    )
    assert [m.id for m in twice] == ["1"]


def test_push_message_streams_and_writes_state() -> None:
    def talk(state: MessagesState) -> None:
        with pytest.raises(ValueError, match="Message ID is required"):
            push_message(AIMessage("no id"))
        push_message(AIMessage("pushed", id="m1"))

    g = StateGraph(MessagesState)
    g.add_node("talk", talk)
    g.add_edge(START, "talk")
    streamed, final = [], None
    for mode, chunk in g.compile().stream({"messages": []}, stream_mode=["messages", "values"]):
        if mode == "messages":
            streamed.append(chunk[0])
        else:
            final = chunk
    assert [m.id for m in streamed] == ["m1"]
    assert final is not None and [m.id for m in final["messages"]] == ["m1"]


# -- tokens of a model called directly in a node -------------------------------------------


def test_model_called_in_a_node_streams_its_tokens() -> None:
    from engine.models.scripted import ScriptedChatModel

    model = ScriptedChatModel(["hello there friend"])

    def call(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("call", call)
    g.add_edge(START, "call")
    chunks = list(g.compile().stream({"messages": "hi"}, stream_mode="messages"))
    assert chunks, "tokens reach the messages stream"
    assert all(meta["langgraph_node"] == "call" for _, meta in chunks)
    assert len({m.id for m, _ in chunks}) == 1  # the whole reply is not sent again
    assert "".join(m.text for m, _ in chunks if isinstance(m, AIMessageChunk)) == (
        "hello there friend"
    )


# -- private channels: node input schemas and routers with their own schema ----------------


class Public(TypedDict):
    count: Annotated[int, operator.add]


class Secret(TypedDict):
    token: str


def test_private_keys_flow_to_nodes_and_routers_that_declare_them() -> None:
    seen: list[Any] = []

    def issue(state: Public) -> dict[str, Any]:
        return {"count": 1, "token": "t-1"}

    def route(state: Secret) -> str:
        seen.append(dict(state))
        return "use"

    def use(state: Secret) -> dict[str, Any]:
        return {"count": 10 if state["token"] == "t-1" else 0}

    g = StateGraph(Public)
    g.add_node("issue", issue)
    g.add_node("use", use)
    g.add_edge(START, "issue")
    g.add_conditional_edges("issue", route, ["use", END])
    assert g.compile().invoke({"count": 0}) == {"count": 11}
    assert seen == [{"token": "t-1"}]


def test_overwrite_prints_as_langgraphs_and_is_recorded_as_before() -> None:
    # a docs program printing its updates stream shows LangGraph's repr; events keep {"value"}
    from engine.serde import to_jsonable

    o = Overwrite(["only"])
    assert repr(o) == "Overwrite(value=['only'], type='__overwrite__')"
    assert o.type == "__overwrite__"
    assert to_jsonable(o) == {"value": ["only"]}
