"""The cost of events: the seed 000 loop with nobody listening, with listeners, and recorded.

The loop is the default scenario (``resources/scenarios/retry_todos.py``: ``create_agent`` with
ModelRetry, ToolRetry and TodoList middleware on a scripted model, one model timeout and one
full disk, retried without delay), or, when that scenario cannot be imported, a plain
``StateGraph`` loop of the same length.  Each mode runs the same conversations; the figures
are ratios to the bare engine (no subscriber: events are never even built):

- ``subscriber``: a no-op sync callback on ``graph.subscribe`` (every event is built and
  delivered);
- ``astream_events``: an async consumer of every event (bounded queue, back-pressure);
- ``debugger``: a ``Debugger`` with no breakpoints (every event passes the gate);
- ``saver``: the graph compiled with a ``SessionRecorder``'s ``SqliteSaver`` and nothing
  listening: the part of the ``recorder`` figure that is checkpoints on disk, not events;
- ``recorder``: a ``SessionRecorder`` attached to the graph, the graph compiled with the
  recorder's ``SqliteSaver`` (as ``stepwise run`` and the studio do), including the final flush
  to disk (the writer thread serializes and commits every event).

Modes are timed in turn (bare, subscriber, ..., bare, subscriber, ...) and each figure is the
median over rounds of its time over the bare engine's time in the same round (issue 26 goals:
debugger <= 1.2x, recorder <= 1.5x).

Run: ``.venv/bin/python -m tests.bench.bench_events``.
"""

from __future__ import annotations

import asyncio
import gc
import operator
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

from tests.bench.report import (
    Clock,
    Figure,
    Timing,
    alternate,
    median,
    median_ratio,
    ratio_goal,
)

CONVERSATIONS = 5
"""Conversations per timing (fresh agents: the scripted model's replies are used up)."""
MODES = ("bare", "subscriber", "astream_events", "debugger", "saver", "recorder")
COLLECTIONS: dict[str, list[int]] = {}
"""Per mode: the garbage collections (young, middle, full) of its timed runs, added up
(``gc.get_stats`` around each timing: read outside the clock, nothing hooked into the run)."""


def _seed000_agents(n: int, checkpointer: Any = None) -> tuple[list[Any], Any, str]:
    """``n`` fresh seed-000 agents, their input and a label (or the fallback loop)."""
    try:
        from engine.messages import HumanMessage
        from resources.scenarios.retry_todos import INPUT, build_agent
    except ImportError:
        return (
            [_loop_graph(checkpointer) for _ in range(n)],
            {"n": 0, "log": []},
            "StateGraph loop (12 supersteps)",
        )
    agents = [build_agent(initial_delay=0.0, checkpointer=checkpointer) for _ in range(n)]
    return agents, {"messages": [HumanMessage(content=INPUT)]}, "seed 000 loop (retry_todos)"


class _Loop(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _loop_graph(checkpointer: Any = None) -> Any:
    from engine import END, START, StateGraph
    from engine.checkpoint import InMemorySaver

    b = StateGraph(_Loop)
    b.add_node("model", lambda s: {"n": s["n"] + 1, "log": [f"model {s['n']}"]})
    b.add_node("tools", lambda s: {"log": ["tool"]})
    b.add_edge(START, "model")
    b.add_conditional_edges("model", lambda s: "tools" if s["n"] < 6 else END, ["tools", END])
    b.add_edge("tools", "model")
    return b.compile(checkpointer=checkpointer or InMemorySaver())


def _timer(mode: str, workdir: Path) -> Callable[[], Timing]:
    """A function timing ``CONVERSATIONS`` runs in ``mode``; returns the time per run."""
    from engine.debug import Debugger
    from engine.recording import SessionRecorder

    counter = [0]

    def once() -> Timing:
        counter[0] += 1
        recorder = (
            SessionRecorder(workdir / f"bench-{mode}-{counter[0]}.stepwise")
            if mode in ("saver", "recorder")
            else None
        )
        agents, inp, _ = _seed000_agents(
            CONVERSATIONS, recorder.checkpointer if recorder is not None else None
        )
        subs = []
        for agent in agents:
            if mode == "subscriber":
                subs.append(agent.subscribe(lambda ev: None))
            elif mode == "recorder" and recorder is not None:
                subs.append(recorder.attach(agent))
        before = [g["collections"] for g in gc.get_stats()]
        with Clock() as clock:
            for i, agent in enumerate(agents):
                cfg = {"configurable": {"thread_id": f"bench-{i}"}}
                if mode == "astream_events":
                    asyncio.run(_drain(agent, inp, cfg))
                elif mode == "debugger":
                    agent.invoke(inp, cfg, debugger=Debugger())
                else:
                    agent.invoke(inp, cfg)
            if recorder is not None:
                recorder.flush()
        after = [g["collections"] for g in gc.get_stats()]
        total = COLLECTIONS.setdefault(mode, [0, 0, 0])
        for gen in range(3):
            total[gen] += after[gen] - before[gen]
        for sub in subs:
            sub.close()
        if recorder is not None:
            recorder.close()
        return clock.timing.per(CONVERSATIONS)

    return once


async def _drain(agent: Any, inp: Any, cfg: dict[str, Any]) -> None:
    async for _ev in agent.astream_events(inp, cfg, version="stepwise"):
        pass


def _events_per_run() -> int:
    agents, inp, _ = _seed000_agents(1)
    seen: list[Any] = []
    agents[0].subscribe(seen.append)
    agents[0].invoke(inp, {"configurable": {"thread_id": "count"}})
    return len(seen)


def measure(rounds: int = 9) -> dict[str, list[Timing]]:
    """Seconds per run of every mode, modes timed in turn for ``rounds`` rounds."""
    COLLECTIONS.clear()
    with tempfile.TemporaryDirectory() as tmp:
        timers = {mode: _timer(mode, Path(tmp)) for mode in MODES}
        return alternate(timers, rounds)


GOALS = {"debugger": 1.2, "recorder": 1.5}
"""Issue 26: what debugging may cost, as a ratio to the bare engine."""
NOTES = {"saver": "the recorder's SqliteSaver alone, nothing listening"}


def run() -> list[Figure]:
    _, _, label = _seed000_agents(1)
    rounds = 9
    times = measure(rounds)
    runs = (rounds + 1) * CONVERSATIONS  # the warm-up round counts its collections too
    n_events = _events_per_run()
    bare = median(times["bare"])
    figs = [
        Figure(
            f"events: {label}, bare engine",
            bare * 1e3,
            "ms/run",
            note=f"{n_events} events per run when listened to; {_collections('bare', runs)}",
        )
    ]
    for mode in MODES[1:]:
        note = f"{median(times[mode]) * 1e3:.2f} ms/run; {_collections(mode, runs)}"
        if mode in NOTES:
            note = f"{NOTES[mode]}: {note}"
        if mode in GOALS:
            figs.append(ratio_goal(f"  {mode} vs bare", times, mode, "bare", GOALS[mode], note))
        else:
            cpu = median_ratio(times, mode, "bare", "cpu")
            figs.append(
                Figure(
                    f"  {mode} vs bare",
                    median_ratio(times, mode, "bare"),
                    "x",
                    note=f"{note}; CPU time {cpu:.2f}x",
                )
            )
    return figs


def _collections(mode: str, runs: int) -> str:
    young, middle, full = COLLECTIONS.get(mode, [0, 0, 0])
    return (
        f"GCs per run {young / runs:.2f} young, {middle / runs:.2f} middle, {full / runs:.2f} full"
    )


if __name__ == "__main__":
    for f in run():
        print(f.line())
