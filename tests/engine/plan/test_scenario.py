"""The built-in scenario resources/scenarios/plan_retry.py runs offline and shows seed 003."""

from __future__ import annotations

import importlib

from engine.graph import CompiledStateGraph
from engine.plan import SKIP_UPSTREAM_FAILED

from .helpers import assert_dependencies_first


def test_module_shape():
    mod = importlib.import_module("resources.scenarios.plan_retry")
    assert isinstance(mod.agent, CompiledStateGraph)
    first_line = (mod.__doc__ or "").splitlines()[0]
    assert first_line.startswith("Plan-and-execute") and first_line.endswith(".")


async def test_the_scenario_retries_the_read_file_chain():
    from resources.scenarios.plan_retry import OBJECTIVE, build_agent, scripted_plan

    agent = build_agent(delay=0)
    events = [ev async for ev in agent.astream_events({"messages": [("user", OBJECTIVE)]})]
    state = events[-1].output
    steps = [ev for ev in events if ev.kind == "plan.step"]
    assert_dependencies_first(scripted_plan(), steps)

    first = {
        ev.index: (ev.status, ev.code)
        for ev in steps
        if ev.retry_round == 0 and ev.status != "pending"
    }
    assert first == {
        0: ("succeeded", None),
        1: ("failed", "TOOL_ERROR"),
        2: ("skipped", SKIP_UPSTREAM_FAILED),
        3: ("skipped", SKIP_UPSTREAM_FAILED),
        4: ("succeeded", None),
    }
    failed = next(ev for ev in steps if ev.status == "failed")
    assert failed.message == "file not found: data/sales.csv"
    assert {ev.index for ev in steps if ev.retry_round == 1} == {1, 2, 3}
    assert [s["status"] for s in state["steps"]] == ["succeeded"] * 5
    assert state["steps"][2]["output"] == {"east": 450, "north": 1500, "south": 800}
    assert (
        state["steps"][3]["output"].startswith("wrote ") and state["steps"][4]["retry_round"] == 0
    )
    assert state["answer"].startswith("Done: out/summary.md")
