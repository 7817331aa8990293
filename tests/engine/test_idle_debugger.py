"""A debugger with nothing to stop on costs nothing; it builds events again once it watches."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph, create_agent
from engine.checkpoint import InMemorySaver
from engine.debug import Debugger
from engine.messages import HumanMessage
from engine.models import ScriptedChatModel
from engine.observe.bus import RunEmitter


class StreamCounting(ScriptedChatModel):
    """A scripted model that counts how it was called."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.streamed = 0

    def astream(self, *args: Any, **kwargs: Any) -> Any:
        self.streamed += 1
        return super().astream(*args, **kwargs)


def built_events(monkeypatch: Any) -> list[str]:
    kinds: list[str] = []
    real = RunEmitter._build

    def counting(self: RunEmitter, cls: Any, fields: dict[str, Any]) -> Any:
        ev = real(self, cls, fields)
        kinds.append(ev.kind)
        return ev

    monkeypatch.setattr(RunEmitter, "_build", counting)
    return kinds


def test_an_idle_debugger_builds_no_events_and_streams_no_tokens(monkeypatch: Any) -> None:
    kinds = built_events(monkeypatch)
    model = StreamCounting(["one reply", "another"])
    agent = create_agent(model, [])
    out = agent.invoke({"messages": [HumanMessage("hi")]}, debugger=Debugger())
    assert out["messages"][-1].text == "one reply"
    assert kinds == [] and model.streamed == 0
    # a subscriber still sees every event, tokens included, as before
    seen: list[Any] = []
    agent.subscribe(seen.append)
    agent.invoke({"messages": [HumanMessage("hi")]}, debugger=Debugger())
    assert model.streamed == 1
    assert "model.token" in [e.kind for e in seen]
    request = next(e for e in seen if e.kind == "model.request")
    assert request.streaming is True  # type: ignore[attr-defined]


class Log(TypedDict):
    log: Annotated[list, operator.add]


def three_nodes(first: Any) -> Any:
    g = StateGraph(Log)
    g.add_node("a", first)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    return g.compile(checkpointer=InMemorySaver())


def test_a_breakpoint_set_mid_run_stops_there() -> None:
    dbg = Debugger()
    stops: list[tuple[str, Any, list[str]]] = []

    def on_pause(d: Debugger) -> None:
        ev = d.current_event
        assert ev is not None
        stops.append((ev.kind, ev.__dict__.get("node"), [e.kind for e in d.span_stack()]))
        d.continue_()

    dbg.on_pause.append(on_pause)

    def a(state: Log) -> dict[str, Any]:
        dbg.break_before("c")
        return {"log": ["a"]}

    out = three_nodes(a).invoke({"log": []}, {"configurable": {"thread_id": "t"}}, debugger=dbg)
    assert out["log"] == ["a", "b", "c"]
    assert [s[:2] for s in stops] == [("node.started", "c")]
    assert stops[0][2][-1] == "node.started"  # the stack holds what opened since it watches


def test_a_pause_asked_mid_run_stops_at_the_next_event() -> None:
    dbg = Debugger()
    stops: list[str] = []

    def on_pause(d: Debugger) -> None:
        assert d.current_event is not None
        stops.append(d.current_event.kind)
        d.continue_()

    dbg.on_pause.append(on_pause)

    async def a(state: Log) -> dict[str, Any]:
        dbg.pause()
        return {"log": ["a"]}

    three_nodes(a).invoke({"log": []}, {"configurable": {"thread_id": "t"}}, debugger=dbg)
    assert stops == ["route"]  # the first event after the request: the node's route


def test_stepping_into_a_model_call_stops_on_its_tokens() -> None:
    dbg = Debugger()
    dbg.break_before("model")
    kinds: list[str] = []

    def on_pause(d: Debugger) -> None:
        assert d.current_event is not None
        kinds.append(d.current_event.kind)
        if d.current_event.kind == "model.response":
            d.clear()
            d.continue_()
        else:
            d.step_into()

    dbg.on_pause.append(on_pause)
    model = StreamCounting(["three word reply"])
    agent = create_agent(model, [])
    agent.invoke({"messages": [HumanMessage("hi")]}, debugger=dbg)
    assert model.streamed == 1
    assert kinds.count("model.token") == 3 and kinds[-1] == "model.response"
