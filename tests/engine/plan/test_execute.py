"""execute_plan: scheduling order and concurrency (from events, never timing), results, codes."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Annotated, Any, TypedDict

import pytest

from engine.events import NodeStarted, event_from_json, event_to_json
from engine.events import PlanStep as PlanStepEvent
from engine.graph import END, START, StateGraph
from engine.plan import (
    INVALID_ARGS,
    SKIP_UPSTREAM_FAILED,
    TOOL_ERROR,
    UNKNOWN_TOOL,
    Plan,
    PlanStep,
    StepUpdate,
    execute_plan,
)
from engine.tools import InjectedToolCallId, tool

from .helpers import Recorder, ScriptedTool, assert_dependencies_first, make_plan, tools_for

GUARD_S = 5.0
"""Upper bound for tests whose tools wait for each other: a scheduling bug fails, never hangs."""


def random_dag(rng: random.Random, n: int) -> list[list[int]]:
    return [rng.sample(range(i), rng.randint(0, min(i, 3))) for i in range(n)]


@pytest.mark.parametrize("seed", range(12))
async def test_a_dependant_never_starts_before_its_dependencies_succeed(seed: int):
    rng = random.Random(seed)
    plan = make_plan(random_dag(rng, 30))
    scripted = {s.tool: ScriptedTool(s.tool, yields=rng.randint(0, 4)) for s in plan.steps}
    rec = Recorder()
    result = await execute_plan(
        plan, [t.tool for t in scripted.values()], max_concurrency=4, on_step=rec
    )
    assert result.succeeded == result.attempted == 30
    assert_dependencies_first(plan, rec.updates)
    assert sorted(rec.started()) == list(range(30))


async def test_independent_steps_overlap():
    """a and b each wait for the other to have started: they finish only if run together."""
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    def meet(me: str, other: str):
        async def run(args: dict[str, Any]) -> str:
            started[me].set()
            await started[other].wait()
            return me

        return run

    plan = make_plan([[], [], [0, 1]], ["a", "b", "c"])
    tools, _ = tools_for(
        plan, a=ScriptedTool("a", meet("a", "b")), b=ScriptedTool("b", meet("b", "a"))
    )
    rec = Recorder()
    result = await asyncio.wait_for(execute_plan(plan, tools, on_step=rec), GUARD_S)
    assert result.succeeded == 3
    first_finish = min(rec.pos(index=0, status="succeeded"), rec.pos(index=1, status="succeeded"))
    assert rec.pos(index=0, status="running") < first_finish
    assert rec.pos(index=1, status="running") < first_finish
    assert rec.pos(index=2, status="running") > max(
        rec.pos(index=0, status="succeeded"), rec.pos(index=1, status="succeeded")
    )


async def test_max_concurrency_bounds_the_running_steps():
    """Four independent steps meet in pairs (Barrier(2)): with a bound of 2 at most two run."""
    barrier = asyncio.Barrier(2)

    async def pair(args: dict[str, Any]) -> str:
        await barrier.wait()
        return "ok"

    plan = make_plan([[], [], [], []])
    tools, _ = tools_for(plan, **{f"s{i}": ScriptedTool(f"s{i}", pair) for i in range(4)})
    rec = Recorder()
    await asyncio.wait_for(execute_plan(plan, tools, max_concurrency=2, on_step=rec), GUARD_S)
    running, peak = set(), 0
    for u in rec.updates:
        if u.status == "running":
            running.add(u.index)
        elif u.status in ("succeeded", "failed"):
            running.discard(u.index)
        peak = max(peak, len(running))
    assert peak == 2


async def test_sync_tools_run_in_worker_threads_concurrently():
    barrier = threading.Barrier(2, timeout=GUARD_S)
    threads: list[int] = []

    @tool
    def left() -> str:
        """Meet right."""
        threads.append(threading.get_ident())
        barrier.wait()
        return "left"

    @tool
    def right() -> str:
        """Meet left."""
        threads.append(threading.get_ident())
        barrier.wait()
        return "right"

    plan = Plan("g", [PlanStep("l", "left"), PlanStep("r", "right")])
    result = await execute_plan(plan, [left, right])
    assert [r.output for r in result.results] == ["left", "right"]
    assert threading.get_ident() not in threads and len(set(threads)) == 2


async def test_every_change_is_reported_in_order():
    plan = make_plan([[], [0]], ["read", "parse"])
    tools, _ = tools_for(plan, read=ScriptedTool("read", FileNotFoundError("file not found")))
    rec = Recorder()
    await execute_plan(plan, tools, on_step=rec)
    assert [(u.index, u.status, u.attempt, u.code) for u in rec.updates] == [
        (0, "pending", 1, None),
        (1, "pending", 1, None),
        (0, "running", 1, None),
        (0, "failed", 1, TOOL_ERROR),
        (1, "skipped", 1, SKIP_UPSTREAM_FAILED),
    ]
    assert (
        rec.updates[-1].message == "Skipped: upstream step failed - step 0 (read): file not found"
    )
    assert rec.updates[-1].depends_on == [0]


async def test_skips_propagate_with_the_upstream_reason():
    plan = make_plan(
        [[], [0], [1], [0, 2]], ["read_file", "process_data", "write_result", "notify"]
    )
    tools, scripted = tools_for(
        plan, read_file=ScriptedTool("read_file", FileNotFoundError("file not found"))
    )
    result = await execute_plan(plan, tools)
    messages = [r.message for r in result.results]
    assert messages[1] == "Skipped: upstream step failed - step 0 (read_file): file not found"
    assert (
        messages[2]
        == "Skipped: upstream step failed - step 1 (process_data): skipped (upstream step failed)"
    )
    assert messages[3] == (
        "Skipped: upstream step failed - step 0 (read_file): file not found; "
        "step 2 (write_result): skipped (upstream step failed)"
    )
    assert [len(scripted[n].calls) for n in ("process_data", "write_result", "notify")] == [0, 0, 0]
    assert (result.attempted, result.succeeded, result.failed, result.skipped) == (
        4,
        0,
        [0],
        [1, 2, 3],
    )


async def test_result_codes():
    @tool
    def typed(count: int) -> int:
        """Needs an int."""
        return count

    @tool
    def broken() -> None:
        """Raises without a message."""
        raise RuntimeError()

    plan = Plan(
        "g",
        [
            PlanStep("missing", "nope"),
            PlanStep("bad args", "typed", {"count": "many"}),
            PlanStep("broken", "broken"),
            PlanStep("ok", "typed", {"count": "3"}),
        ],
    )
    result = await execute_plan(plan, [typed, broken])
    r = result.results
    assert (r[0].code, r[0].message) == (
        UNKNOWN_TOOL,
        "unknown tool 'nope' (available: broken, typed)",
    )
    assert r[1].code == INVALID_ARGS and "1 validation error for typed\ncount\n" in (
        r[1].message or ""
    )
    assert (r[2].code, r[2].message, r[2].error_type) == (
        TOOL_ERROR,
        "RuntimeError",
        "RuntimeError",
    )
    assert (r[3].status, r[3].code, r[3].output, r[3].success) == ("succeeded", None, 3, True)
    assert [x.attempts for x in r] == [1, 1, 1, 1]


async def test_outputs_flow_through_references():
    plan = Plan(
        "g",
        [
            PlanStep("read", "read", {}),
            PlanStep(
                "count",
                "count",
                {"rows": "{{steps.0.output}}", "label": "rows of {{steps.0.output}}"},
                depends_on=[0],
            ),
        ],
    )
    tools, scripted = tools_for(
        plan,
        read=ScriptedTool("read", [1, 2, 3]),
        count=ScriptedTool("count", lambda a: len(a["rows"])),
    )
    result = await execute_plan(plan, tools)
    assert scripted["count"].calls == [{"rows": [1, 2, 3], "label": "rows of [1, 2, 3]"}]
    assert result.results[1].output == 3


async def test_injected_tool_call_id():
    @tool
    def whoami(call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Returns its call id."""
        return call_id

    plan = Plan("g", [PlanStep("who", "whoami")])
    result = await execute_plan(plan, {"whoami": whoami}, retry_round=0)
    assert result.results[0].output == "plan-0-0"


async def test_async_on_step_is_awaited_and_its_errors_cancel_the_run():
    seen: list[str] = []
    cancelled = asyncio.Event()

    async def on_step(update: StepUpdate) -> None:
        await asyncio.sleep(0)
        seen.append(update.status)
        if update.index == 1 and update.status == "running":
            raise RuntimeError("listener broke")

    async def forever(args: dict[str, Any]) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    plan = make_plan([[], []], ["hang", "other"])
    tools, _ = tools_for(plan, hang=ScriptedTool("hang", forever))
    with pytest.raises(RuntimeError, match="listener broke"):
        await asyncio.wait_for(execute_plan(plan, tools, on_step=on_step), GUARD_S)
    assert cancelled.is_set()
    assert seen[:2] == ["pending", "pending"]


async def test_argument_errors():
    plan = make_plan([[], [0]])
    tools, _ = tools_for(plan)
    with pytest.raises(ValueError, match="max_concurrency must be at least 1, got 0"):
        await execute_plan(plan, tools, max_concurrency=0)
    with pytest.raises(
        ValueError, match=r"retry_steps \[2\] are not steps of the plan \(it has 2 steps\)"
    ):
        await execute_plan(plan, tools, retry_steps=[1, 2])
    with pytest.raises(ValueError, match=r"there is none for step 0 \(s0\); pass prior="):
        await execute_plan(plan, tools, retry_steps=[1])
    with pytest.raises(ValueError, match="Two tools are named 's0'"):
        await execute_plan(plan, [*tools, tools[0]])


async def test_empty_plan_and_empty_retry_set():
    empty = await execute_plan(Plan("nothing", []), [])
    assert (empty.attempted, empty.succeeded, empty.results) == (0, 0, [])
    plan = make_plan([[]])
    tools, _ = tools_for(plan)
    first = await execute_plan(plan, tools)
    again = await execute_plan(plan, tools, retry_steps=[], prior=first, retry_round=1)
    assert again.attempted == 0 and again.results == first.results


class _S(TypedDict, total=False):
    done: int


async def test_plan_step_events_on_the_run_bus():
    plan = make_plan([[], [0], [0], [1, 2]], ["fetch", "left", "right", "join"])
    tools, _ = tools_for(plan, left=ScriptedTool("left", TimeoutError("api timeout")))

    async def node(state: _S) -> dict[str, int]:
        result = await execute_plan(plan, tools)
        return {"done": result.succeeded}

    b = StateGraph(_S)
    b.add_node("run_plan", node)
    b.add_edge(START, "run_plan")
    b.add_edge("run_plan", END)
    events = [ev async for ev in b.compile().astream_events({"done": 0}, version="stepwise")]
    steps = [ev for ev in events if isinstance(ev, PlanStepEvent)]
    assert [ev.seq for ev in steps] == sorted(ev.seq for ev in steps)
    assert all(event_from_json(event_to_json(ev)) == ev for ev in steps)
    node_started = next(
        ev for ev in events if isinstance(ev, NodeStarted) and ev.node == "run_plan"
    )
    assert all(ev.parent_span_id == node_started.span_id for ev in steps)
    assert_dependencies_first(plan, steps)
    final = {ev.index: (ev.status, ev.code) for ev in steps}
    assert final == {
        0: ("succeeded", None),
        1: ("failed", TOOL_ERROR),
        2: ("succeeded", None),
        3: ("skipped", SKIP_UPSTREAM_FAILED),
    }
    join = next(ev for ev in steps if ev.index == 3 and ev.status == "skipped")
    assert join.message == "Skipped: upstream step failed - step 1 (left): api timeout"
    assert (join.depends_on, join.retry_round, join.tool) == ([1, 2], 0, "join")
