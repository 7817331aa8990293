"""Attach mode's overhead: a real LangChain ``create_agent`` run directly, and the same agent
run attached (every node, hook, middleware layer, model and tool call turned into our events,
delivered to a subscriber), side by side in one process.

Two shapes: a plain agent and one with three sync-only pass-through middleware, every layer
instrumented.  Attach runs both on LangGraph's sync ``stream`` in a worker thread (the plain
agent because nothing in it needs the async API and no debugger gates the run:
``engine.attach.sync_ready``; the other because its middleware is sync only).  Needs the
``langgraph`` extra; without it the section says so.

The variants are timed in turn; each ratio is the median of the per-round ratios (issue 26
goals: plain <= 1.2x, three sync middleware <= 1.5x the direct run).  Two reference lines split
the attached figure: LangGraph streaming with a callback handler that does nothing, and the
floor, that handler plus building and delivering the events attach made (the same kinds and
fields, from a worker thread to a subscriber, as attach emits them) with no translation: what
any callback-based attach keeping those events pays.

Run: ``.venv/bin/python -m tests.bench.bench_attach``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from tests.bench.bench_agent_loop import TURNS, lc_agent
from tests.bench.report import (
    Clock,
    Figure,
    Timing,
    alternate,
    median,
    median_ratio,
    peer_available,
    ratio_goal,
)


def direct(with_middleware: bool) -> Callable[[], Timing]:
    from langchain_core.messages import HumanMessage

    def once() -> Timing:
        agent = lc_agent(with_middleware)
        with Clock() as clock:
            agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "b"}})
        return clock.timing.per(TURNS)

    return once


def _noop_handler() -> Any:
    """A LangChain callback handler doing nothing, called inline (as attach's handler is)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Noop(BaseCallbackHandler):
        run_inline = True

    return Noop()


def streamed(with_middleware: bool, sync: bool, handler: bool = False) -> Callable[[], Timing]:
    """The same agent on LangGraph's own stream with the modes attach asks for, no Stepwise:
    how much of attach's cost is LangGraph streaming rather than our translation.
    ``handler``: with a callback handler that does nothing (what LangChain's dispatch of
    every node, model and tool callback costs by itself)."""
    import asyncio

    from langchain_core.messages import HumanMessage

    from engine.attach.graph import stream_modes

    def once() -> Timing:
        agent = lc_agent(with_middleware)
        modes = stream_modes(checkpointer=agent.checkpointer is not None)
        inp = {"messages": [HumanMessage("go")]}
        cfg: dict[str, Any] = {"configurable": {"thread_id": "b"}}
        if handler:
            cfg["callbacks"] = [_noop_handler()]

        async def drain() -> None:
            async for _ in agent.astream(inp, cfg, stream_mode=modes, subgraphs=True):
                pass

        with Clock() as clock:
            if sync:  # as attach streams a sync run: nested parts and writes tapped
                own = [m for m in modes if m != "custom"]
                for _ in agent.stream(inp, cfg, stream_mode=own, subgraphs=False):
                    pass
            else:
                asyncio.run(drain())
        return clock.timing.per(TURNS)

    return once


def attached(with_middleware: bool, seen: list[list[Any]]) -> Callable[[], Timing]:
    from langchain_core.messages import HumanMessage

    from engine.attach import attach

    def once() -> Timing:
        graph = attach(lc_agent(with_middleware))
        events: list[Any] = []
        graph.subscribe(events.append)
        with Clock() as clock:
            graph.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "b"}})
        seen[:] = [events]
        return clock.timing.per(TURNS)

    return once


def events_alone(made: list[list[Any]]) -> Callable[[], Timing]:
    """Building and delivering the events an attached run made (``made[-1]``: their kinds and
    fields as they were), with no run and no translation: ``emit_fields_sync`` from a worker
    thread, delivered on the loop to a subscriber, as attach emits them.  With the no-op
    handler's cost it is the floor of any callback-based attach that keeps these events."""
    import asyncio

    from engine.observe.bus import EventBus
    from engine.observe.emitter import RunEmitter

    envelope = {"kind", "seq", "run_id", "thread_id", "ts", "mono_ns", "ns"}

    def once() -> Timing:
        events = [(type(ev), ev.__dict__) for ev in made[-1]]
        todo = [(cls, {k: v for k, v in d.items() if k not in envelope}) for cls, d in events]
        got: list[Any] = []

        async def emit_all() -> None:
            bus = EventBus()
            bus.subscribe(got.append)
            em = RunEmitter("bench", "b", [bus])

            def in_thread() -> None:
                for cls, fields in todo:
                    em.emit_fields_sync(cls, fields)

            await asyncio.to_thread(in_thread)
            while len(got) < len(todo):  # the loop delivers what the thread handed it
                await asyncio.sleep(0)

        with Clock() as clock:
            asyncio.run(emit_all())
        return clock.timing.per(TURNS)

    return once


GOALS = {False: 1.2, True: 1.5}
"""Issue 26: attached vs direct, plain agent / with three sync middleware."""


def run() -> list[Figure]:
    if not (peer_available("langchain.agents") and peer_available("langgraph")):
        return [Figure("attach mode: langgraph / langchain not installed", 0, "", note="skipped")]
    figs: list[Figure] = []
    for with_mw, label in ((False, "plain agent, stream"), (True, "3 sync middleware, stream")):
        seen: list[list[Any]] = []
        attached(with_mw, seen)()  # the events ``events`` re-emits in every round
        times = alternate(
            {
                "direct": direct(with_mw),
                "streamed": streamed(with_mw, sync=True),
                "handler": streamed(with_mw, sync=True, handler=True),
                "attached": attached(with_mw, seen),
                "events": events_alone(seen),
            },
            rounds=7,
        )
        us = {k: median(v) * 1e6 for k, v in times.items()}
        figs.append(
            Figure(
                f"attached create_agent, {label}",
                us["attached"],
                "us/model turn",
                note=f"{len(seen[-1])} events for {TURNS} turns",
            )
        )
        figs.append(
            ratio_goal(
                f"  ratio to the same agent run directly ({us['direct']:.0f} us/model turn)",
                times,
                "attached",
                "direct",
                GOALS[with_mw],
            )
        )
        figs.append(
            Figure(
                "  ratio to LangGraph streaming the same modes, no Stepwise "
                f"({us['streamed']:.0f} us/model turn)",
                median_ratio(times, "attached", "streamed"),
                "x",
                note="what our callbacks, layers and events cost",
            )
        )
        figs.append(
            Figure(
                "    of which LangChain calling a callback handler that does nothing "
                f"({us['handler']:.0f} us/model turn)",
                median_ratio(times, "handler", "streamed"),
                "x",
                note="LangGraph streaming with a no-op handler, over streaming alone",
            )
        )
        floor = statistics.median(
            (h.wall + e.wall) / d.wall
            for h, e, d in zip(times["handler"], times["events"], times["direct"], strict=True)
        )
        figs.append(
            Figure(
                "    floor: that handler plus building and delivering the same events, "
                f"no translation ({us['events']:.0f} us/model turn for the events)",
                floor,
                "x",
                note="the direct run's multiple any callback-based attach keeping these "
                "events pays; the rest of the ratio above is translation",
            )
        )
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
