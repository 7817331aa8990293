"""The built-in scenario resources/scenarios/plan_retry.py runs offline and shows seed 003."""

from __future__ import annotations

import importlib

from engine.events import PlanStep as PlanStepEvent
from engine.events import RunFinished
from engine.graph import CompiledStateGraph
from engine.messages import HumanMessage
from engine.plan import SKIP_UPSTREAM_FAILED

from .helpers import assert_dependencies_first


def test_module_shape():
    mod = importlib.import_module("resources.scenarios.plan_retry")
    assert isinstance(mod.agent, CompiledStateGraph)
    first_line = (mod.__doc__ or "").splitlines()[0]
    assert first_line.startswith("Plan-and-execute") and first_line.endswith(".")
    assert mod.INPUT == mod.OBJECTIVE


async def test_every_run_retries_the_read_file_chain():
    from resources.scenarios.plan_retry import INPUT, build_agent, scripted_plan

    agent = build_agent(delay=0)
    for thread in ("first", "second"):  # the export lands late in every run
        cfg = {"configurable": {"thread_id": thread}}
        inp = {"messages": [HumanMessage(content=INPUT)]}
        events = [ev async for ev in agent.astream_events(inp, cfg, version="stepwise")]
        finished = events[-1]
        assert isinstance(finished, RunFinished)
        state = finished.output
        steps = [ev for ev in events if isinstance(ev, PlanStepEvent)]
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
        assert state["steps"][3]["output"].startswith("wrote ")
        assert state["steps"][4]["retry_round"] == 0
        assert state["answer"].startswith("Done: out/summary.md")


def test_the_scripted_report_names_what_failed():
    from resources.scenarios.plan_retry import reply

    report = HumanMessage(
        content="Objective: x\n\nStep results:\n- step 0 (a) [t]: succeeded after 1 attempt(s). Output: 1\n"
        "- step 1 (b) [t]: failed after 2 attempt(s). TOOL_ERROR: boom"
    )
    assert reply([report], []) == (
        "Not everything worked:\n- step 1 (b) [t]: failed after 2 attempt(s). TOOL_ERROR: boom"
    )
