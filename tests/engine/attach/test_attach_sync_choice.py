"""Attach runs an app on LangGraph's sync ``stream`` whenever nothing in it needs the async API
and nothing would hold the run's events (it costs less: issue 26), and keeps ``astream`` for an
app with anything async only in it (a tool, a middleware hook, a node, a route, a checkpointer)
or anything it cannot judge, and for a run whose events would each wait for the loop (a
debugger with a breakpoint set, a subscriber that pushes back).  Either way the user sees the same
events, and the debugger pauses and steps the same."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain.agents.middleware import before_model
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from engine.attach import attach
from engine.debug import Debugger
from engine.events import EventBase
from tests.engine.attach.streams import record_streams
from tests.engine.attach.test_attach_debugger import flaky_agent
from tests.engine.attach.test_attach_langgraph import collect
from tests.engine.attach.test_attach_stream_modes import ToolModel, shown

ASK = {"messages": [("user", "weather?")]}
CONFIG = {"configurable": {"thread_id": "t"}}


def subscribed(
    graph: Any, inp: Any, config: dict[str, Any] = CONFIG, debugger: Debugger | None = None
) -> list[EventBase]:
    """The events of a run a plain subscriber takes (it never pushes back)."""
    events: list[EventBase] = []
    sub = graph.subscribe(events.append)
    try:
        graph.invoke(inp, config, debugger=debugger)
    finally:
        sub.close()
    return events


@pytest.fixture
def streams(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Which of LangGraph's streams each run went through (``stream`` or ``astream``)."""
    yield record_streams(monkeypatch)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


@tool("weather")
async def async_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


@before_model
def look(state: Any, runtime: Any) -> None:
    return None


@before_model(name="look")
async def async_look(state: Any, runtime: Any) -> None:
    return None


def model() -> ToolModel:
    call = AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}])
    return ToolModel(messages=iter([call, AIMessage("Sunny in Oslo.")]))


def agent(tools: Any = weather, hook: Any = look, saver: Any = None) -> Any:
    return lc_create_agent(
        model(),
        tools=[tools],
        middleware=[hook],
        checkpointer=InMemorySaver() if saver is None else saver,
    )


def test_an_app_with_nothing_async_only_runs_on_the_sync_stream(streams: list[str]) -> None:
    g = attach(agent())
    assert g.sync and g.sync_optional and g.async_parts == []
    events = subscribed(g, ASK)
    assert streams == ["stream"]
    assert events[-1].__dict__["status"] == "done"
    # what the same app shows on astream, event for event
    assert shown(events) == shown(subscribed(attach(agent(), sync=False), ASK))


def test_a_run_whose_events_would_wait_for_the_loop_stays_on_astream(
    streams: list[str],
) -> None:
    watching = Debugger()
    watching.break_on_tool("nowhere")  # it could stop on any tool's event
    with_breakpoint = subscribed(attach(agent()), ASK, debugger=watching)
    assert streams == ["astream"]
    idle = subscribed(attach(agent()), ASK, debugger=Debugger())  # holds no event
    assert streams == ["astream", "stream"]
    # astream_events (the studio, the CLI): its consumer keeps up, so nothing waits
    consumed = collect(attach(agent()), ASK, CONFIG)
    assert streams == ["astream", "stream", "stream"]
    assert shown(consumed) == shown(with_breakpoint) == shown(idle)
    assert idle[-1].__dict__["status"] == "done"


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda: agent(tools=async_weather), "tool 'weather' of node 'tools' (async only)"),
        (lambda: agent(hook=async_look), "node 'look.before_model' (async only)"),
    ],
    ids=["async-tool", "async-hook"],
)
def test_an_app_with_one_async_only_part_stays_on_astream_and_shows_the_same_events(
    streams: list[str], make: Any, why: str
) -> None:
    g = attach(make())
    assert not g.sync and g.async_parts == [why]
    events = subscribed(g, ASK)
    assert streams == ["astream"]
    assert events[-1].__dict__["status"] == "done"
    assert shown(events) == shown(subscribed(attach(agent()), ASK))  # its sync twin's


def test_an_app_on_an_async_sqlite_saver_stays_on_astream(
    streams: list[str], tmp_path: Path
) -> None:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async def go() -> list[EventBase]:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "app.db")) as saver:
            g = attach(agent(saver=saver))
            assert not g.sync
            assert g.async_parts == ["the graph's checkpointer AsyncSqliteSaver (async only)"]
            events: list[EventBase] = []
            g.subscribe(events.append)
            await g.ainvoke(ASK, CONFIG)
            return events

    events = asyncio.run(go())
    assert streams == ["astream"]
    assert events[-1].__dict__["status"] == "done"
    assert shown(events) == shown(subscribed(attach(agent()), ASK))


class Count(TypedDict):
    n: int


def counting(**nodes: Any) -> Any:
    g = StateGraph(Count)
    names = list(nodes)
    for name, fn in nodes.items():
        g.add_node(name, fn)
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        g.add_edge(a, b)
    g.add_edge(names[-1], END)
    return g.compile(checkpointer=InMemorySaver())


def bump(state: Count) -> dict[str, int]:
    return {"n": state["n"] + 1}


async def abump(state: Count) -> dict[str, int]:
    return {"n": state["n"] + 1}


class Opaque(Runnable[Any, Any]):
    """A runnable of a kind attach does not know: it cannot tell whether it runs sync."""

    def invoke(self, input: Any, config: Any = None, **kw: Any) -> Any:
        return {"n": input["n"] + 1}


def routed(route: Any) -> Any:
    g = StateGraph(Count)
    g.add_node("a", bump)
    g.add_node("b", bump)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route, ["b", END])
    g.add_edge("b", END)
    return g.compile(checkpointer=InMemorySaver())


def to_b(state: Count) -> str:
    return "b"


async def ato_b(state: Count) -> str:
    return "b"


@pytest.mark.parametrize(
    ("make", "sync", "why"),
    [
        (lambda: counting(a=bump, b=bump), True, []),
        (lambda: counting(a=bump, b=abump), False, ["node 'b' (async only)"]),
        (
            lambda: counting(a=bump, b=RunnableLambda(abump)),
            False,
            ["node 'b': an async-only RunnableLambda"],
        ),
        (
            lambda: counting(a=bump, b=Opaque()),
            False,
            ["node 'b': a Opaque (cannot tell whether it runs sync)"],
        ),
        (lambda: routed(to_b), True, []),
        (lambda: routed(ato_b), False, ["node 'a (its route)' (async only)"]),
    ],
    ids=["sync", "async-node", "async-lambda", "unknown-runnable", "route", "async-route"],
)
def test_what_keeps_a_graph_on_astream(make: Any, sync: bool, why: list[str]) -> None:
    g = attach(make())
    assert g.sync is sync
    assert g.async_parts == why
    events = subscribed(g, {"n": 0})
    assert events[-1].__dict__["status"] == "done"


def test_an_async_callback_handler_of_the_apps_keeps_its_run_on_astream(
    streams: list[str],
) -> None:
    class Seen(AsyncCallbackHandler):
        def __init__(self) -> None:
            self.tools: list[str] = []

        async def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
            self.tools.append(input_str)

    seen = Seen()
    g = attach(agent())
    assert g.sync
    events = subscribed(g, ASK, {**CONFIG, "callbacks": [seen]})
    assert streams == ["astream"]  # the handler runs on the app's loop, as the app runs it
    assert events[-1].__dict__["status"] == "done"
    assert len(seen.tools) == 1


def test_the_debugger_pauses_and_steps_a_sync_run_where_it_does_an_astream_one(
    streams: list[str],
) -> None:
    def stepped(sync: bool) -> list[str]:
        g = attach(flaky_agent().real, sync=sync)
        dbg = Debugger()
        dbg.break_before("model")
        dbg.break_on_tool("weather")
        seen: list[str] = []

        def on_pause(d: Debugger) -> None:
            assert d.current_event is not None
            seen.append(f"{d.current_event.kind}:{d.pause_reason}")
            if len(seen) < 6:
                d.step_into()
            elif len(seen) == 8:
                d.pause()  # the user pauses the running run: it stops at its next event
                d.continue_()
            else:
                d.continue_()

        dbg.on_pause.append(on_pause)
        events = collect(g, ASK, {}, debugger=dbg)
        assert events[-1].__dict__["status"] == "done"
        return seen

    on_thread = stepped(True)
    assert len(on_thread) > 8
    assert on_thread == stepped(False)
    assert streams == ["stream", "astream"]
