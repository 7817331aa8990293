"""The event protocol on graph runs, the bus's ordering, and the debugger."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, RunStopped, StateGraph, get_stream_writer, interrupt
from engine.checkpoint import InMemorySaver
from engine.debug import Debugger, check_fault
from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase, event_from_json, event_to_json
from engine.observe.bus import EventBus


class Log(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def chain(checkpointer=None, **kw):
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"], "n": 1})
    g.add_node("b", lambda s: {"log": ["b"], "n": 2})
    g.add_node("c", lambda s: {"log": ["c"], "n": 3})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_conditional_edges("b", lambda s: "c" if s["n"] == 2 else END, ["c", END])
    g.add_edge("c", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver(), **kw)


def cfg(t: str = "t") -> dict:
    return {"configurable": {"thread_id": t}}


async def collect(graph, inp, config, **kw) -> list[EventBase]:
    return [ev async for ev in graph.astream_events(inp, config, version="stepwise", **kw)]


async def test_event_sequence_and_nesting():
    events = await collect(chain(), {"log": []}, cfg())
    kinds = [e.kind for e in events]
    assert kinds[0] == "run.started" and kinds[-1] == "run.finished"
    assert events[-1].status == "done"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    nodes = [e.node for e in events if e.kind == "node.started"]
    assert nodes == ["a", "b", "c"]
    # spans: every opener is closed by the same span_id, nesting run > superstep > node
    by_span = {e.span_id: e for e in events if e.kind in SPAN_OPENERS}
    for e in events:
        if e.kind in SPAN_CLOSERS:
            assert by_span[e.span_id].kind == SPAN_CLOSERS[e.kind]
    run_id = events[0].span_id
    for e in events:
        if e.kind == "superstep.started":
            assert e.parent_span_id == run_id
        if e.kind == "node.started":
            assert by_span[e.parent_span_id].kind == "superstep.started"
    routes = [(e.from_node, e.to, e.reason) for e in events if e.kind == "route"]
    assert ("a", ["b"], "static") in routes
    assert ("b", ["c"], "conditional") in routes
    saved = [e for e in events if e.kind == "checkpoint.saved"]
    assert [e.source for e in saved] == ["input", "loop", "loop", "loop", "loop"]
    assert [e.next for e in saved] == [["__start__"], ["a"], ["b"], ["c"], []]
    updates = [e for e in events if e.kind == "state.updated"]
    changes = [ch for u in updates for ch in u.changes]
    assert {"channel": "log", "op": "append", "appended": ["a"], "length": 1} in changes
    assert {"channel": "n", "op": "set", "value": 1} in changes
    for e in events:  # JSON round trip of every event
        assert event_from_json(event_to_json(e)) == e


async def test_subscribe_sees_every_run_and_events_from_worker_threads_stay_ordered():
    def noisy(state):
        w = get_stream_writer()
        for i in range(50):
            w({"i": i})
        return {"log": ["noisy"]}

    g = StateGraph(Log)
    g.add_node("noisy", noisy)
    g.add_edge(START, "noisy")
    graph = g.compile()
    got: list[EventBase] = []
    with graph.subscribe(got.append):
        await graph.ainvoke({"log": []})
        await graph.ainvoke({"log": []})
    assert len({e.run_id for e in got}) == 2
    for run_id in {e.run_id for e in got}:
        seqs = [e.seq for e in got if e.run_id == run_id]
        assert seqs == sorted(seqs) == list(range(1, len(seqs) + 1))
    customs = [e.data["i"] for e in got if e.kind == "custom" and e.run_id == got[0].run_id]
    assert customs == list(range(50))


async def test_slow_async_subscriber_gets_everything_in_order():
    bus = EventBus()
    g = chain()
    received: list[int] = []

    async def slow_reader():
        async for ev in bus.stream(maxsize=2):
            received.append(ev.seq)
            await asyncio.sleep(0)
            if ev.kind == "run.finished":
                return

    reader = asyncio.ensure_future(slow_reader())
    await asyncio.sleep(0)
    await g._arun({"log": []}, cfg(), extra_buses=[bus])
    await reader
    assert received == list(range(1, len(received) + 1))


async def test_interrupt_events():
    g = StateGraph(Log)
    g.add_node("ask", lambda s: {"log": [interrupt({"q": 1})]})
    g.add_edge(START, "ask")
    graph = g.compile(checkpointer=InMemorySaver())
    events = await collect(graph, {"log": []}, cfg())
    raised = [e for e in events if e.kind == "interrupt.raised"]
    assert raised[0].value == {"q": 1} and raised[0].node == "ask"
    assert events[-1].status == "interrupted"
    from engine import Command

    events = await collect(graph, Command(resume="yes"), cfg())
    resumed = [e for e in events if e.kind == "interrupt.resumed"]
    assert resumed[0].value == "yes" and resumed[0].interrupt_id == raised[0].interrupt_id


async def test_static_interrupt_event():
    events = await collect(chain(interrupt_before=["b"]), {"log": []}, cfg())
    raised = [e for e in events if e.kind == "interrupt.raised"]
    assert raised[0].static == "before" and raised[0].node == "b"


# -- debugger ----------------------------------------------------------------------------


class Driver:
    """Runs a graph under a debugger and records where it paused."""

    def __init__(self, graph, dbg: Debugger) -> None:
        self.graph = graph
        self.dbg = dbg
        self.events: list[EventBase] = []
        self.pauses: list[tuple[str, str | None, Any]] = []
        self.paused = asyncio.Event()
        dbg.on_pause.append(self._on_pause)

    def _on_pause(self, dbg: Debugger) -> None:
        ev = dbg.current_event
        self.pauses.append((ev.kind, getattr(ev, "node", None), dbg.pause_reason))
        self.paused.set()

    async def start(self, inp, config):
        async def run():
            async for ev in self.graph.astream_events(
                inp, config, debugger=self.dbg, version="stepwise"
            ):
                self.events.append(ev)

        self.task = asyncio.ensure_future(run())

    async def next_pause(self):
        waiter = asyncio.ensure_future(self.paused.wait())
        done, _ = await asyncio.wait([waiter, self.task], return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            waiter.cancel()
            return None
        self.paused.clear()
        return self.pauses[-1]


async def test_breakpoint_before_node_then_step_over_and_continue():
    dbg = Debugger()
    dbg.break_before("b")
    d = Driver(chain(), dbg)
    await d.start({"log": []}, cfg())
    assert await d.next_pause() == ("node.started", "b", "breakpoint")
    assert dbg.paused
    assert dbg.state() == {"log": ["a"], "n": 1}  # state as of now
    stack = [e.kind for e in dbg.span_stack()]
    assert stack == ["run.started", "superstep.started", "node.started"]
    dbg.step_over()
    assert await d.next_pause() == ("node.started", "c", "step")
    dbg.continue_()
    await d.task
    assert d.events[-1].kind == "run.finished" and d.events[-1].status == "done"
    kinds = [e.kind for e in d.events]
    assert kinds.count("debug.paused") == 2 and kinds.count("debug.resumed") == 2


async def test_step_into_and_step_out():
    dbg = Debugger()
    dbg.break_before("a")
    d = Driver(chain(), dbg)
    await d.start({"log": []}, cfg())
    await d.next_pause()
    dbg.step_into()
    p = await d.next_pause()
    assert p[0] == "route"  # the very next event of any kind
    dbg.step_out()  # to the end of the current span: node a finishes
    p = await d.next_pause()
    assert p[:2] == ("node.finished", "a")
    dbg.continue_()
    await d.task


async def test_stop_cancels_cleanly_and_keeps_the_last_checkpoint():
    dbg = Debugger()
    dbg.break_before("c")
    graph = chain()
    d = Driver(graph, dbg)
    await d.start({"log": []}, cfg())
    await d.next_pause()
    dbg.stop()
    with pytest.raises(RunStopped):
        await d.task
    snap = graph.get_state(cfg())
    assert snap.values["log"] == ["a", "b"]
    assert snap.next == ("c",)
    assert d.events[-1].kind == "run.finished" and d.events[-1].status == "cancelled"
    # the thread resumes normally afterwards
    assert (await graph.ainvoke(None, cfg()))["log"] == ["a", "b", "c"]


async def test_stop_while_running_cancels_the_task():
    gate = asyncio.Event()

    async def wait(state):
        gate.set()
        await asyncio.sleep(3600)

    g = StateGraph(Log)
    g.add_node("wait", wait)
    g.add_edge(START, "wait")
    graph = g.compile(checkpointer=InMemorySaver())
    dbg = Debugger()
    run = asyncio.ensure_future(graph.ainvoke({"log": []}, cfg(), debugger=dbg))
    await gate.wait()
    dbg.stop()
    with pytest.raises(RunStopped):
        await run
    assert graph.get_state(cfg()).next == ("wait",)


async def test_break_on_failure_interrupt_and_state_condition():
    def bad(state):
        raise ValueError("nope")

    g = StateGraph(Log)
    g.add_node("bad", bad)
    g.add_edge(START, "bad")
    dbg = Debugger()
    dbg.break_on_failure()
    d = Driver(g.compile(checkpointer=InMemorySaver()), dbg)
    await d.start({"log": []}, cfg())
    assert (await d.next_pause())[:2] == ("node.finished", "bad")
    dbg.continue_()
    with pytest.raises(ValueError):
        await d.task

    dbg = Debugger()
    dbg.break_when("n >= 2")
    d = Driver(chain(), dbg)
    await d.start({"log": []}, cfg("cond"))
    _, _, reason = await d.next_pause()
    assert reason == "breakpoint" and dbg.state()["n"] == 2
    dbg.continue_()
    await d.task
    assert len(d.pauses) == 1  # fires when the condition becomes true, not on every step

    g = StateGraph(Log)
    g.add_node("ask", lambda s: {"log": [interrupt("?")]})
    g.add_edge(START, "ask")
    dbg = Debugger()
    dbg.break_on_interrupt()
    d = Driver(g.compile(checkpointer=InMemorySaver()), dbg)
    await d.start({"log": []}, cfg("i"))
    assert (await d.next_pause())[2] == "interrupt"
    dbg.continue_()
    await d.task


def test_break_when_rejects_bad_syntax():
    with pytest.raises(SyntaxError):
        Debugger().break_when("n >=")


async def test_pause_never_blocks_the_event_loop():
    dbg = Debugger()
    dbg.break_before("b")
    d = Driver(chain(), dbg)
    await d.start({"log": []}, cfg())
    await d.next_pause()
    ticks = 0
    for _ in range(20):
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 20 and dbg.paused
    dbg.continue_()
    await d.task


async def test_fault_injection():
    calls: list[str] = []

    async def model_like(state):
        await check_fault("model", "m")
        calls.append("called")
        return {"log": ["ok"]}

    g = StateGraph(Log)
    g.add_node("m", model_like)
    g.add_edge(START, "m")
    graph = g.compile()
    dbg = Debugger()
    dbg.inject_model_error(TimeoutError("slow"), times=1)
    with pytest.raises(TimeoutError, match="slow"):
        await graph.ainvoke({"log": []}, debugger=dbg)
    assert (await graph.ainvoke({"log": []}, debugger=dbg))["log"] == ["ok"]
    assert calls == ["called"]
    dbg.inject_tool_error("create_file", times=2)
    assert isinstance(dbg.take_fault("tool", "create_file"), OSError)
    assert dbg.take_fault("tool", "other") is None
    assert isinstance(dbg.take_fault("tool", "create_file"), OSError)
    assert dbg.take_fault("tool", "create_file") is None


def test_engine_never_imports_qt_or_studio():
    import subprocess
    import sys

    code = (
        "import sys, engine, engine.graph, engine.checkpoint, engine.debug, engine.events, engine.observe.bus\n"
        "import pkgutil, importlib\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'studio', 'qasync', 'shiboken6')]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
