"""Attached routes name where each node sent the run, read from the graph's own edges: two
parallel nodes with different static targets (one deferred), ``Command(goto=...)``, a ``Send``
fan-out branch, a subgraph node's own edges, and ``create_agent``'s branches with the
engine's reasons.  Before, every writer was drawn to every node due next, with a reason guessed
from how many there were."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

from engine.attach import attach
from engine.attach.routes import RouteBook, command_targets
from engine.events import EventBase
from tests.engine.attach.test_attach_langgraph import collect


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _routes(events: list[EventBase], ns: str = "") -> list[tuple[str, list[str], str, str]]:
    return [
        (e.__dict__["from_node"], e.__dict__["to"], e.__dict__["reason"], e.__dict__["detail"])
        for e in events
        if e.kind == "route" and (e.ns or "") == ns
    ]


def _command_graph() -> Any:
    def route(s: S) -> Command[Literal["left", "right"]]:
        return Command(goto=["left", "right"], update={"n": s["n"] + 1})

    b = StateGraph(S)
    b.add_node("route", route)
    b.add_node("left", lambda s: {"log": ["left"]})
    b.add_node("right", lambda s: {"log": ["right"]})
    b.add_node("square", lambda s: {"log": ["square"]})
    b.add_node("done", lambda s: {"log": ["done"]}, defer=True)
    b.add_edge(START, "route")
    b.add_edge("left", "square")
    b.add_edge("right", "done")
    b.add_edge("square", "done")
    b.add_edge("done", END)
    return b.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_each_writer_routes_to_its_own_targets(sync: bool) -> None:
    events = collect(
        attach(_command_graph(), sync=sync),
        {"n": 1, "log": []},
        {"configurable": {"thread_id": "t"}},
    )
    assert events[-1].__dict__["status"] == "done"
    routes = _routes(events)
    assert routes[0] == ("route", ["left", "right"], "command", "")
    assert sorted(routes[1:3]) == [  # left and right ran in parallel: either reports first
        ("left", ["square"], "static", ""),
        ("right", ["done"], "static", ""),  # deferred: it runs after square, still its target
    ]
    assert routes[3:] == [("square", ["done"], "static", ""), ("done", [], "end", "")]


def test_a_send_fan_out_is_its_branch_and_a_subgraph_routes_by_its_own_edges() -> None:
    class Inner(TypedDict):
        log: Annotated[list[str], operator.add]

    ib = StateGraph(Inner)
    ib.add_node("a", lambda s: {"log": ["a"]})
    ib.add_node("b", lambda s: {"log": ["b"]})
    ib.add_node("c", lambda s: {"log": ["c"]})
    ib.add_edge(START, "a")
    ib.add_conditional_edges("a", lambda s: "go", {"go": "c", "skip": "b"})
    ib.add_edge("c", END)
    ib.add_edge("b", END)

    def fan(s: S) -> list[Send]:
        return [Send("work", {"n": i, "log": []}) for i in range(2)]

    b = StateGraph(S)
    b.add_node("start", lambda s: {"n": 2})
    b.add_node("work", lambda s: {"log": [f"w{s['n']}"]})
    b.add_node("inner", ib.compile())
    b.add_edge(START, "start")
    b.add_conditional_edges("start", fan, ["work"])
    b.add_edge("work", "inner")
    b.add_edge("inner", END)
    events = collect(
        attach(b.compile(checkpointer=InMemorySaver())),
        {"n": 0, "log": []},
        {"configurable": {"thread_id": "t"}},
    )
    assert events[-1].__dict__["status"] == "done"
    assert _routes(events) == [
        ("start", ["work", "work"], "conditional", "fan"),
        ("work", ["inner"], "static", ""),
        ("inner", [], "end", ""),
    ]
    nested = {e.ns for e in events if e.kind == "route" and e.ns}
    assert len(nested) == 1
    # the subgraph's branch sent "a" to "c" (its path map also has "b"): not a guess
    assert _routes(events, nested.pop()) == [
        ("a", ["c"], "conditional", "condition"),
        ("c", [], "end", ""),
    ]


def _agent(*replies: AIMessage) -> Any:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.tools import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool(return_direct=True)
    def shout(text: str) -> str:
        """Shout it."""
        return text.upper()

    class Fake(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kw: Any) -> Any:
            return self

    return create_agent(
        Fake(messages=iter(replies)), tools=[add, shout], checkpointer=InMemorySaver()
    )


def _call(name: str, args: dict[str, Any], cid: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": cid}])


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_create_agent_routes_carry_the_engine_reasons(sync: bool) -> None:
    agent = attach(
        _agent(_call("add", {"a": 1, "b": 2}, "c1"), AIMessage(content="three")), sync=sync
    )
    events = collect(
        agent, {"messages": [HumanMessage("1+2?")]}, {"configurable": {"thread_id": "t"}}
    )
    assert events[-1].__dict__["status"] == "done"
    assert _routes(events) == [
        ("model", ["tools"], "tool_calls", "model_to_tools"),
        ("tools", ["model"], "tool_calls", "tools_to_model"),
        ("model", ["__end__"], "no_tool_calls", "model_to_tools"),
    ]
    direct = attach(_agent(_call("shout", {"text": "hi"}, "c1")), sync=sync)
    events = collect(
        direct, {"messages": [HumanMessage("shout")]}, {"configurable": {"thread_id": "t"}}
    )
    assert _routes(events)[-1] == ("tools", ["__end__"], "return_direct", "tools_to_model")


def test_a_graph_without_a_builder_routes_to_what_is_due_next() -> None:
    book = RouteBook(object())
    routes = book.routes("", ["a"], ["b", "c"], {})
    assert [(r.to, r.reason) for r in routes["a"]] == [(["b", "c"], "conditional")]
    assert [(r.to, r.reason) for r in book.routes("", ["a"], [], {})["a"]] == [([], "end")]


def test_command_targets_reads_goto_and_sends_and_leaves_handoffs() -> None:
    assert command_targets({"n": 1}) is None
    assert command_targets(Command(goto="x")) == (["x"], [])
    to, sends = command_targets([Command(goto=[Send("w", {"k": 1}), "y"])]) or ([], [])
    assert to == ["y"] and sends == [{"node": "w", "arg": {"k": 1}}]
    assert command_targets(Command(goto="x", graph=Command.PARENT)) is None
    assert command_targets(Command(update={"n": 1})) is None
