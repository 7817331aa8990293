"""``output_keys`` and ``control``, LangGraph's run options, on an attached graph: what the app's
``invoke`` and ``stream`` give is what plain LangGraph gives for the same graph and calls (the
run itself still streams every channel, which the events are made from), and a ``RunControl``
drains the attached run as it drains LangGraph's."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from engine.attach import attach
from engine.events import EventBase

CFG = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    a: int
    b: int
    log: Annotated[list[str], operator.add]


def _graph(saver: bool, ask: bool = False) -> Any:
    """Two nodes at once (one writes ``a`` and ``log``, one ``b``), one that writes nothing
    (or asks), then one that writes ``a`` and ``log``."""

    def idle(_s: State) -> None:
        if ask:
            interrupt("go on?")

    return (
        StateGraph(State)
        .add_node("n", lambda s: {"a": s["a"] + 1, "log": ["n"]})
        .add_node("m", lambda _s: {"b": 5})
        .add_node("idle", idle)
        .add_node("last", lambda _s: {"a": 9, "log": ["last"]})
        .add_edge(START, "n")
        .add_edge(START, "m")
        .add_edge("n", "idle")
        .add_edge("m", "idle")
        .add_edge("idle", "last")
        .add_edge("last", END)
        .compile(checkpointer=InMemorySaver() if saver else None)
    )


def _same(make: Callable[[], Any], call: Callable[[Any], Any]) -> Any:
    """``call`` on the plain graph and on the same graph attached: equal results (or the same
    error); the plain one's returned."""

    def outcome(graph: Any) -> Any:
        try:
            return call(graph)
        except Exception as exc:  # compared as type and text
            return ("raised", type(exc).__name__, str(exc))

    plain, attached = outcome(make()), outcome(attach(make()))
    assert attached == plain
    return plain


def _in_order(parts: list[Any]) -> tuple[list[Any], list[str]]:
    """A stream's parts as (its values parts in order, every part in a set order): ``n`` and
    ``m`` run at once, so their updates come in the order they finish, on LangGraph too."""
    values = [p[1] if isinstance(p, tuple) else p for p in parts if _is_values(p)]
    return values, sorted(map(repr, parts))


def _is_values(part: Any) -> bool:
    if isinstance(part, tuple):
        return part[0] == "values"
    return not (isinstance(part, dict) and part.keys() & {"n", "m", "idle", "last"})


KEYS: list[Any] = ["a", ["a"], ["b", "log"], "b", [], ["log"]]
INPUTS: list[dict[str, Any]] = [{"a": 1, "b": 0, "log": []}, {"a": 1}, {"log": ["in"]}]


@pytest.mark.parametrize("saver", [False, True], ids=["no saver", "saver"])
@pytest.mark.parametrize("keys", KEYS, ids=str)
def test_invoke_and_stream_with_output_keys_give_what_langgraph_gives(
    saver: bool, keys: Any
) -> None:
    for inp in INPUTS:
        _same(lambda s=saver: _graph(s), lambda g, i=inp: g.invoke(i, CFG, output_keys=keys))
        for mode in ("values", "updates", ["values", "updates"], ["updates", "custom"]):
            _same(
                lambda s=saver: _graph(s),
                lambda g, i=inp, m=mode: _in_order(
                    list(g.stream(i, CFG, output_keys=keys, stream_mode=m))
                ),
            )
        _same(
            lambda s=saver: _graph(s),
            lambda g, i=inp: _in_order(g.invoke(i, CFG, output_keys=keys, stream_mode="updates")),
        )


def test_a_second_run_on_the_thread_and_the_v2_stream() -> None:
    def twice(g: Any) -> Any:
        first = g.invoke(INPUTS[0], CFG, output_keys="b")
        again = g.invoke({"a": 3}, CFG, output_keys="b")
        parts = list(g.stream({"a": 4}, CFG, output_keys=["a"], stream_mode="values", version="v2"))
        return first, again, [(p["type"], p["data"]) for p in parts]

    first, again, parts = _same(lambda: _graph(True), twice)
    assert first == again == 5
    assert parts and all(kind == "values" and set(data) == {"a"} for kind, data in parts)


@pytest.mark.parametrize("keys", ["a", ["a", "b"], ["log"]], ids=str)
def test_an_interrupt_and_its_resume_with_output_keys(keys: Any) -> None:
    def run(g: Any) -> Any:
        stopped = g.invoke(INPUTS[0], CFG, output_keys=keys)
        pending = stopped.pop("__interrupt__") if isinstance(stopped, dict) else None
        resumed = list(g.stream(Command(resume="yes"), CFG, output_keys=keys))
        return stopped, [i.value for i in pending or ()], resumed

    _stopped, pending, resumed = _same(lambda: _graph(True, ask=True), run)
    assert pending == ["go on?"] and resumed


def test_nested_graph_parts_keep_their_own_channels() -> None:
    class Inner(TypedDict):
        log: Annotated[list[str], operator.add]
        note: str

    inner = (
        StateGraph(Inner)
        .add_node("write", lambda _s: {"log": ["inner"], "note": "x"})
        .add_edge(START, "write")
        .compile()
    )

    def make() -> Any:
        return (
            StateGraph(Inner)
            .add_node("child", inner)
            .add_node("after", lambda _s: {"note": "done"})
            .add_edge(START, "child")
            .add_edge("child", "after")
            .compile()
        )

    def run(g: Any) -> Any:
        parts = g.stream({"log": []}, output_keys="note", stream_mode="updates", subgraphs=True)
        return [(ns[:1] and ns[0].split(":")[0], chunk) for ns, chunk in parts]

    parts = _same(make, run)
    assert ("child", {"write": {"log": ["inner"], "note": "x"}}) in parts
    assert ((), {"after": "done"}) in parts


def test_a_create_agent_invoked_for_its_messages_only() -> None:
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    def make() -> Any:
        model = GenericFakeChatModel(messages=iter([AIMessage("hello there")]))
        return create_agent(model, tools=[], checkpointer=InMemorySaver())

    def run(g: Any) -> Any:
        out = g.invoke({"messages": [("user", "hi")]}, CFG, output_keys="messages")
        return [(m.type, m.content) for m in out]

    assert _same(make, run) == [("human", "hi"), ("ai", "hello there")]


def test_the_run_still_sees_every_channel() -> None:
    """The events of a run with ``output_keys`` report the channels the caller did not ask for."""
    graph = attach(_graph(True))
    events: list[EventBase] = []
    graph.subscribe(events.append)
    assert graph.invoke(INPUTS[0], CFG, output_keys="a") == 9
    changed = {
        c["channel"] for e in events if e.kind == "state.updated" for c in e.__dict__["changes"]
    }
    assert {"a", "b", "log"} <= changed


def test_a_run_control_drains_the_attached_run_as_langgraphs() -> None:
    from langgraph.runtime import RunControl

    def make() -> Any:
        control = RunControl()

        def first(_s: State) -> dict[str, Any]:
            control.request_drain("deploy")
            return {"log": ["first"]}

        graph = (
            StateGraph(State)
            .add_node("first", first)
            .add_node("second", lambda _s: {"log": ["second"]})
            .add_edge(START, "first")
            .add_edge("first", "second")
            .compile(checkpointer=InMemorySaver())
        )
        graph.control = control  # handed to the call below
        return graph

    def run(g: Any) -> Any:
        control = (getattr(g, "real", None) or g).control
        try:
            g.invoke({"log": []}, CFG, control=control)
        except Exception as exc:
            drained = (type(exc).__name__, str(exc))
        state = g.get_state(CFG)
        return drained, state.values, state.next, g.invoke(None, CFG)

    drained, values, nxt, resumed = _same(make, run)
    assert drained[0] == "GraphDrained" and values == {"log": ["first"]} and nxt == ("second",)
    assert resumed == {"log": ["first", "second"]}


def test_the_async_api_with_output_keys() -> None:
    import asyncio

    async def run(g: Any) -> Any:
        out = await g.ainvoke(INPUTS[0], CFG, output_keys=["a", "b"])
        parts = [p async for p in g.astream({"a": 2}, CFG, output_keys="a", stream_mode="values")]
        return out, parts

    out, parts = _same(lambda: _graph(True), lambda g: asyncio.run(run(g)))
    assert out == {"a": 9, "b": 5} and parts[-1] == 9
