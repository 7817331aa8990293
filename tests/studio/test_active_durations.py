"""Item 9 of the first-use report: durations are active time; time spent paused is shown apart.

A tool call that ran 99 ms but sat 8.1 s at a breakpoint in the middle reads "99 ms
(+8.10 s paused)", in the event log's Duration column and in the status bar's elapsed field.
Plain view models fed synthetic events (no window)."""

from __future__ import annotations

from typing import Any

from engine.events import (
    DebugPaused,
    DebugResumed,
    EventBase,
    RunFinished,
    RunStarted,
    ToolFinished,
    ToolStarted,
)
from studio.models.event_tree import EventTree
from studio.models.run_stats import RunStats
from studio.qtmodels.event_tree import EventTreeModel

MS = 1_000_000
START_MS = 50_000  # the monotonic clock's reading when the run starts


def _ev(cls: type[EventBase], seq: int, at_ms: float, **fields: Any) -> EventBase:
    return cls(run_id="r", seq=seq, mono_ns=int((START_MS + at_ms) * MS), **fields)


def paused_tool_call() -> list[EventBase]:
    return [
        _ev(RunStarted, 1, 0, span_id="r"),
        _ev(ToolStarted, 2, 10, span_id="t", parent_span_id="r", tool="create_file"),
        _ev(DebugPaused, 3, 20, reason="breakpoint"),
        _ev(DebugResumed, 4, 8120),
        _ev(
            ToolFinished,
            5,
            8209,
            span_id="t",
            parent_span_id="r",
            tool="create_file",
            duration_ms=8199.0,
        ),
        _ev(RunFinished, 6, 8300, span_id="r", status="done"),
    ]


def test_a_span_reports_its_active_time_and_its_paused_time_apart() -> None:
    tree = EventTree()
    tree.add_batch(paused_tool_call())
    run = tree.root.children[0]
    call = next(r for r in run.children if r.kind == "tool.started")
    assert round(call.wall_ms() or 0) == 8199
    assert round(call.paused_ms) == 8100 and round(call.duration_ms() or 0) == 99
    assert round(run.duration_ms() or 0) == 200  # the run: 8.3 s of wall time, 8.1 s paused


def test_the_duration_column_says_active_then_paused() -> None:
    model = EventTreeModel()
    model.add_events(paused_tool_call())
    call = next(r for r in model.tree.rows if r.kind == "tool.started")
    index = model.index_of(call, 3)
    assert model.data(index) == "99 ms (+8.10 s paused)"


def test_the_status_bar_elapsed_time_leaves_pauses_out() -> None:
    stats = RunStats()
    events = paused_tool_call()
    stats.apply(events[:3])  # paused now, 20 ms into the run
    assert stats.text_parts("paused", (START_MS + 5020) * MS)["elapsed"].endswith("paused)")
    assert round(stats.elapsed((START_MS + 5020) * MS), 3) == 0.02  # the clock stops while paused
    stats.apply(events[3:])
    assert round(stats.elapsed((START_MS + 9000) * MS), 3) == 0.2
    assert round(stats.paused((START_MS + 9000) * MS), 1) == 8.1
