"""A sync app attached under an idle debugger (no breakpoint, step, pause or stop asked for)
runs on while the loop is busy: its worker thread hands events over without waiting for each
to pass the loop.  In the studio the loop draws the window between events; a sync node or tool
used to wait for it at every event (tens of milliseconds each, counted in the tool's
duration)."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from engine.attach import attach
from engine.debug import Debugger
from engine.events import EventBase


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(loop_box: list[asyncio.AbstractEventLoop], verdict: dict[str, bool]) -> Any:
    second_ran = threading.Event()

    def first(s: S) -> dict[str, Any]:
        # hold the loop until the next node has run: only a thread that does not wait for
        # the loop at its events gets there
        loop_box[0].call_soon_threadsafe(lambda: verdict.update(ok=second_ran.wait(5)))
        return {"log": ["first"]}

    def second(s: S) -> dict[str, Any]:
        second_ran.set()
        return {"log": ["second"]}

    b = StateGraph(S)
    b.add_node("first", first)
    b.add_node("second", second)
    b.add_edge(START, "first")
    b.add_edge("first", "second")
    b.add_edge("second", END)
    return b.compile(checkpointer=InMemorySaver())


def test_an_idle_debugger_does_not_hold_a_sync_run_at_every_event() -> None:
    loop_box: list[asyncio.AbstractEventLoop] = []
    verdict: dict[str, bool] = {}
    graph = attach(_graph(loop_box, verdict), sync=True)
    events: list[EventBase] = []
    graph.subscribe(events.append)

    async def main() -> None:
        loop_box.append(asyncio.get_running_loop())
        await graph.ainvoke({"log": []}, {"configurable": {"thread_id": "t"}}, debugger=Debugger())

    asyncio.run(main())
    assert verdict == {"ok": True}
    kinds = [e.kind for e in events]
    assert kinds[0] == "run.started" and kinds[-1] == "run.finished"
    nodes = [e.__dict__["node"] for e in events if e.kind == "node.finished"]
    assert nodes == ["first", "second"]
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)


def test_a_breakpoint_still_holds_the_worker_thread() -> None:
    loop_box: list[asyncio.AbstractEventLoop] = []
    graph = attach(_graph(loop_box, {}), sync=True)
    dbg = Debugger()
    dbg.break_before("second")
    paused_at: list[str] = []

    def on_pause(d: Debugger) -> None:
        ev = d.current_event
        paused_at.append(str(ev.__dict__.get("node")) if ev is not None else "")
        d.continue_()

    dbg.on_pause.append(on_pause)

    async def main() -> None:
        loop_box.append(asyncio.get_running_loop())
        await graph.ainvoke({"log": []}, {"configurable": {"thread_id": "t"}}, debugger=dbg)

    asyncio.run(main())
    assert paused_at == ["second"]


def test_a_consumer_that_falls_behind_holds_the_worker_thread() -> None:
    from engine.observe.bus import EventBus, RunEmitter

    async def main() -> tuple[bool, bool, bool]:
        bus = EventBus()
        sink = bus.add_sink(maxsize=4)
        em = RunEmitter("r", "t", [bus])
        keeping_up = em.must_wait()
        sink.queue.put_nowait(None)
        one_behind = em.must_wait()
        sink.queue.put_nowait(None)  # half full: it pushes back
        return keeping_up, one_behind, em.must_wait()

    assert asyncio.run(main()) == (False, False, True)
