"""An attached graph streams as the app's own graph does: ``stream`` / ``astream`` yield what
LangGraph's yield for the modes asked (one mode, a list, ``subgraphs=True``; the app's stream
writes, interrupts, token chunks), while every event still reaches Stepwise's subscribers; and
``invoke`` takes LangGraph's run options (``durability``, run-time static interrupts).  Each
case runs on the plain graph and attached, and compares what the two gave."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from engine.attach import attach
from engine.events import EventBase


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _nested() -> Any:
    def s1(s: S) -> dict[str, Any]:
        get_stream_writer()("in the subgraph")
        return {"log": ["s1"]}

    sub = StateGraph(S)
    sub.add_node("s1", s1)
    sub.add_edge(START, "s1")
    b = StateGraph(S)
    b.add_node("pre", lambda s: {"log": ["pre"]})
    b.add_node("child", sub.compile())
    b.add_node("ask", lambda s: {"log": [interrupt("ok?")]})
    b.add_edge(START, "pre")
    b.add_edge("pre", "child")
    b.add_edge("child", "ask")
    return b.compile(checkpointer=InMemorySaver())


class _Model(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    get_stream_writer()({"looking": city})
    return f"sunny in {city}"


def _agent() -> Any:
    calls = [{"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}]
    model = _Model(
        messages=iter([AIMessage("let me check", tool_calls=calls), AIMessage("It is sunny.")])
    )
    return create_agent(model, tools=[get_weather], checkpointer=InMemorySaver())


def _same(make: Callable[[], Any], run: Callable[[Any], Any]) -> Any:
    """What ``run`` gives on the plain graph, after checking the attached one gives it too
    (and told its subscribers the run)."""
    plain = _plain(run(make()))
    attached = attach(make())
    seen: list[EventBase] = []
    attached.subscribe(seen.append)
    assert _plain(run(attached)) == plain
    assert any(e.kind == "run.finished" for e in seen)
    return plain


def _plain(value: Any) -> Any:
    """Messages as their type and content, interrupts as their value, ids and times left out,
    a namespace as its node: what stays the same from run to run."""
    if isinstance(value, dict):
        return {
            k: _plain(v) for k, v in value.items() if k not in ("timestamp", "id", "checkpoint_id")
        }
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if type(value).__name__ == "Interrupt":
        return ("interrupt", _plain(value.value))
    if hasattr(value, "content") and hasattr(value, "type"):
        calls = [(c["name"], c["args"]) for c in getattr(value, "tool_calls", None) or []]
        return (value.type, value.content, calls)
    if isinstance(value, str) and ":" in value and "\n" not in value:
        return value.split(":")[0]  # a namespace's task id
    return value


CFG = {"configurable": {"thread_id": "t"}}
INPUT = {"messages": [HumanMessage("weather?")]}


@pytest.mark.parametrize(
    "mode",
    ["values", "updates", ["updates", "custom"], ["values", "messages"], "debug", None],
    ids=str,
)
def test_an_agent_streams_the_modes_asked(mode: Any) -> None:
    kw = {} if mode is None else {"stream_mode": mode}
    parts = _same(_agent, lambda g: list(g.stream(INPUT, CFG, **kw)))
    assert parts  # the default (None) is the graph's own: values


def test_a_subgraph_its_writes_and_an_interrupt_stream_with_subgraphs() -> None:
    def run(g: Any) -> Any:
        first = list(g.stream({"log": []}, CFG, stream_mode=["updates", "custom"], subgraphs=True))
        again = list(g.stream(Command(resume="yes"), CFG, stream_mode="values", subgraphs=True))
        return first, again

    first, again = _same(_nested, run)
    assert [(), "custom", "in the subgraph"] in [
        [p[0] if p[0] == () else (), *p[1:]] for p in first
    ]
    assert ["child"] in [p[0] for p in first]  # the subgraph's own updates, with its namespace
    # the subgraph hands back its whole state, which the parent's reducer adds again
    assert again[-1] == [[], {"log": ["pre", "pre", "s1", "yes"]}]


def test_astream_as_the_app_async_stream() -> None:
    async def run(g: Any) -> Any:
        return [p async for p in g.astream(INPUT, CFG, stream_mode="updates")]

    parts = _same(_agent, lambda g: asyncio.run(run(g)))
    assert [next(iter(p)) for p in parts] == ["model", "tools", "model"]


def test_invoke_takes_durability_and_run_time_interrupts() -> None:
    def run(g: Any) -> Any:
        out = g.invoke({"log": []}, CFG, durability="exit", interrupt_before=["child"])
        history = len(list(g.get_state_history(CFG)))
        return out, g.get_state(CFG).next, history

    out, nxt, history = _same(_nested, run)
    assert out == {"log": ["pre"]} and nxt == ["child"] and history == 1


def test_leaving_the_stream_early_stops_the_run() -> None:
    attached = attach(_nested())
    first = next(iter(attached.stream({"log": []}, CFG, stream_mode="updates")))
    assert first == {"pre": {"log": ["pre"]}}


def test_options_langgraph_ignores_or_deprecates_are_taken_as_langgraph_takes_them() -> None:
    """An option LangGraph does not know is ignored, as LangGraph ignores it (an app that
    passes one runs attached too); ``checkpoint_during`` is ``durability``'s deprecated form."""
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    def run(g: Any) -> Any:
        ignored = g.invoke({"log": []}, CFG, output_keyz=["log"])
        other = {"configurable": {"thread_id": "during"}}
        with pytest.warns(LangGraphDeprecatedSinceV10):
            during = g.invoke({"log": []}, other, checkpoint_during=False)
        history = len(list(g.get_state_history(other)))  # durability "exit": the last only
        with pytest.raises(ValueError, match="durability"):
            g.invoke({"log": []}, other, checkpoint_during=True, durability="sync")
        return ignored, during, history

    ignored, during, history = _same(_nested, run)
    assert ignored == during and history == 1


def test_with_config_batch_schemas_and_an_xray_drawing_as_the_apps() -> None:
    def run(g: Any) -> Any:
        once = g.with_config({"configurable": {"thread_id": "w"}}).invoke({"log": ["a"]})
        many = g.batch(
            [{"log": ["b"]}, {"log": ["c"]}],
            [{"configurable": {"thread_id": "b1"}}, {"configurable": {"thread_id": "b2"}}],
        )
        shape = g.get_graph(xray=True).draw_mermaid()
        return once, many, shape, g.get_output_jsonschema(), g.get_state(CFG | {}).values

    once, many, shape, _schema, _values = _same(_nested, run)
    assert once["log"][:2] == ["a", "pre"] and len(many) == 2
    assert "child\\3as1" in shape  # the subgraph's node drawn inside its parent's
