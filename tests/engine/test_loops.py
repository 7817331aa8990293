"""Loop detection (``engine.observe.loops``): a model that keeps calling an unknown tool, or the same
tool with the same arguments, is reported as ``loop.detected``, and "break on loop" stops there.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.agents import create_agent
from engine.debug import Debugger
from engine.errors import GraphRecursionError
from engine.events import EventBase, LoopDetected, event_from_json, event_to_json
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.models import ScriptedChatModel
from engine.observe.loops import LoopWatch
from engine.tools import tool


@tool
def lookup(query: str) -> str:
    """Look something up.

    Args:
        query: what to look up
    """
    return f"nothing about {query}"


def _unknown_tool_model(calls: int) -> ScriptedChatModel:
    """A model that answers only with a call of a tool the agent does not have."""
    return ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[ToolCall(name="search_web", args={"q": f"x{i}"}, id=f"c{i}")],
            )
            for i in range(calls)
        ]
    )


def _agent(model: Any) -> Any:
    return create_agent(model, [lookup], system_prompt="You look things up.")


async def _events(
    agent: Any, *, debugger: Debugger | None = None, limit: int = 40
) -> list[EventBase]:
    seen: list[EventBase] = []
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": limit}
    with agent.subscribe(seen.append), pytest.raises(GraphRecursionError):
        await agent.ainvoke({"messages": [HumanMessage("find x")]}, config, debugger=debugger)
    return seen


async def test_a_model_calling_an_unknown_tool_again_and_again_is_a_loop() -> None:
    events = await _events(_agent(_unknown_tool_model(30)))
    loops = [e for e in events if isinstance(e, LoopDetected)]
    assert loops, "no loop.detected event"
    first = loops[0]
    assert first.loop == "failing_calls"
    assert first.node == "model"
    assert first.count == 3
    assert "search_web" in first.detail
    # it names the three answers, and comes right after the third failing result
    answers = [e.seq for e in events if e.kind == "model.response"]
    assert first.seqs == answers[:3]
    before = next(e for e in reversed(events) if e.seq < first.seq)
    assert before.kind == "tool.finished" and before.__dict__["status"] == "error"
    # reported again at every third failing answer, not at each one
    assert [e.count for e in loops if e.loop == "failing_calls"][:3] == [3, 6, 9]
    # it nests under the node where it was found, and round-trips through JSON
    node_spans = {e.span_id: e.__dict__["node"] for e in events if e.kind == "node.started"}
    assert node_spans.get(first.parent_span_id) == "tools"
    assert event_from_json(event_to_json(first)) == first


async def test_the_same_call_with_the_same_arguments_three_times_is_a_loop() -> None:
    same = [
        AIMessage(content="", tool_calls=[ToolCall(name="lookup", args={"query": "x"}, id=f"c{i}")])
        for i in range(5)
    ]
    events = await _events(_agent(ScriptedChatModel(same)), limit=8)
    loops = [e for e in events if isinstance(e, LoopDetected)]
    assert [(e.loop, e.node, e.tool, e.args, e.count) for e in loops] == [
        ("repeated_call", "tools", "lookup", {"query": "x"}, 3)
    ]
    starts = [e.seq for e in events if e.kind == "tool.started"]
    assert loops[0].seqs == starts[:3]


async def test_different_arguments_and_successful_calls_are_no_loop() -> None:
    varied = [
        AIMessage(
            content="", tool_calls=[ToolCall(name="lookup", args={"query": f"q{i}"}, id=f"c{i}")]
        )
        for i in range(3)
    ] + ["done"]
    seen: list[EventBase] = []
    agent = _agent(ScriptedChatModel(varied))
    with agent.subscribe(seen.append):
        await agent.ainvoke(
            {"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}}
        )
    assert not [e for e in seen if e.kind == "loop.detected"]


async def test_break_on_loop_pauses_at_the_loop_and_stop_ends_the_run() -> None:
    model = _unknown_tool_model(30)
    dbg = Debugger()
    dbg.break_on_loop()
    paused: list[EventBase] = []

    def on_pause(d: Debugger) -> None:
        paused.append(d.current_event)  # type: ignore[arg-type]
        asyncio.get_running_loop().call_soon(d.stop)

    dbg.on_pause.append(on_pause)
    agent = _agent(model)
    from engine.debug import RunStopped

    with pytest.raises(RunStopped):
        await agent.ainvoke(
            {"messages": [HumanMessage("find x")]},
            {"configurable": {"thread_id": "t"}, "recursion_limit": 100},
            debugger=dbg,
        )
    assert [e.kind for e in paused] == ["loop.detected"]
    assert (
        dbg.current_breakpoint is not None and dbg.current_breakpoint.describe() == "loop detected"
    )
    assert len(model.calls) == 3  # stopped before a fourth paid call


def _ev(kind: str, seq: int, **fields: Any) -> EventBase:
    from engine.events import EVENT_CLASSES

    base = {"run_id": "r", "seq": seq}
    return EVENT_CLASSES[kind].model_validate({**base, **fields})


def test_an_answer_with_one_good_call_breaks_the_streak() -> None:
    watch = LoopWatch(failing=2)
    seq = iter(range(1, 1000))
    found = []

    def answer(ids: list[str], ok: set[str]) -> None:
        n = next(seq)
        watch.see(_ev("node.started", n, span_id=f"n{n}", node="model", task_id="t"))
        watch.see(
            _ev("model.request", next(seq), span_id=f"m{n}", parent_span_id=f"n{n}", model="x")
        )
        calls = [{"name": "t", "args": {}, "id": i} for i in ids]
        watch.see(
            _ev(
                "model.response",
                next(seq),
                span_id=f"m{n}",
                model="x",
                message={"tool_calls": calls},
            )
        )
        watch.see(_ev("node.finished", next(seq), span_id=f"n{n}", node="model", task_id="t"))
        for i in ids:
            status = "success" if i in ok else "error"
            s = next(seq)
            watch.see(
                _ev("tool.started", s, span_id=f"t{i}", tool="t", tool_call_id=i, args={"i": i})
            )
            hit = watch.see(
                _ev(
                    "tool.finished",
                    next(seq),
                    span_id=f"t{i}",
                    tool="t",
                    tool_call_id=i,
                    status=status,
                )
            )
            if hit:
                found.append(hit)

    answer(["a"], set())
    answer(["b", "c"], {"c"})  # one call worked: no streak
    answer(["d"], set())
    assert found == []
    answer(["e", "f"], set())
    assert [f["loop"] for f in found] == ["failing_calls"]
    assert found[0]["node"] == "model" and found[0]["count"] == 2
