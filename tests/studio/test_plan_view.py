"""The Plan dock on seed 003's scenarios: statuses live and per checkpoint, chains, retry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from PySide6.QtCore import QPoint

from engine.checkpoint.memory import InMemorySaver
from engine.events import EventBase
from engine.graph import END, START, StateGraph
from engine.messages import HumanMessage
from engine.plan import SKIP_UPSTREAM_FAILED, Plan, PlanStep, execute_plan, plan_retry
from resources.scenarios import approval
from resources.scenarios import plan_retry as plan_retry_scenario
from studio.docks.plan.items import step_lines
from studio.docks.plan.view import PlanDock
from studio.models.hub import Hub
from tests.engine.plan.helpers import ScriptedTool


@pytest.fixture
def loop(qapp: Any, qloop: Any) -> Iterator[Any]:
    previous = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield qloop
    qapp.setQuitOnLastWindowClosed(previous)


def bind(graph: Any) -> Hub:
    hub = Hub()
    hub.set_graph(graph, graph.get_graph())

    def on_event(event: EventBase) -> None:
        hub.add_events([event])

    graph.subscribe(on_event)
    return hub


class Rounds(TypedDict, total=False):
    first: list[dict[str, Any]]
    retried: list[int]


def two_rounds(plan: Plan, tools: list[Any]) -> Any:
    """A graph that executes ``plan`` (node ``first``, then a pause) and retries its failed
    chain (node ``retry``), the way seed 003's executor does."""
    state: dict[str, Any] = {}

    async def first(_: Rounds) -> dict[str, Any]:
        state["execution"] = await execute_plan(plan, tools)
        return {"first": [r.to_json() for r in state["execution"].results]}

    async def retry(_: Rounds) -> dict[str, Any]:
        chain = plan_retry(plan, state["execution"].results).chain
        await execute_plan(plan, tools, retry_steps=chain, prior=state["execution"], retry_round=1)
        return {"retried": chain}

    builder = StateGraph(Rounds)
    builder.add_node("first", first)
    builder.add_node("retry", retry)
    builder.add_edge(START, "first")
    builder.add_edge("first", "retry")
    builder.add_edge("retry", END)
    return builder.compile(checkpointer=InMemorySaver(), interrupt_after=["first"])


def statuses(dock: PlanDock) -> list[tuple[str, str | None]]:
    return [(item.step.status, item.step.code) for item in dock.items.values()]


def chain_plan(names: list[str], deps: list[list[int]]) -> Plan:
    return Plan(
        "seed 003", [PlanStep(n, n, {}, depends_on=d) for n, d in zip(names, deps, strict=True)]
    )


OK, FAIL, SKIP = ("succeeded", None), ("failed", "TOOL_ERROR"), ("skipped", SKIP_UPSTREAM_FAILED)

SCENARIOS = {
    # 1: upstream failure -> smart skip downstream; the retry fails again and skips again
    "upstream fails": (
        ["api_auth", "api_getData", "processData", "saveResult"],
        [[], [0], [1], [2]],
        {"api_getData": [TimeoutError("API timeout"), TimeoutError("API timeout")]},
        [OK, FAIL, SKIP, SKIP],
        [OK, FAIL, SKIP, SKIP],
        [1, 2, 3],
    ),
    # 2: upstream recovers -> the whole chain is re-run in order and succeeds
    "upstream recovers": (
        ["downloadFile", "parseFile", "generateReport"],
        [[], [0], [1]],
        {"downloadFile": [ConnectionError("network error")]},
        [FAIL, SKIP, SKIP],
        [OK, OK, OK],
        [0, 1, 2],
    ),
    # 3: partial success -> only the failed step and what depends on it
    "partial": (
        ["task_A", "task_B", "task_C", "task_D"],
        [[], [], [0], [1, 2]],
        {"task_B": [RuntimeError("B broke"), RuntimeError("B broke again")]},
        [OK, FAIL, OK, SKIP],
        [OK, FAIL, OK, SKIP],
        [1, 3],
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_seed_003_scenarios(name: str, loop: Any, qtbot: Any) -> None:
    names, deps, failures, after_first, after_retry, chain = SCENARIOS[name]
    plan = chain_plan(names, deps)
    tools = [ScriptedTool(n, *failures.get(n, [])).tool for n in dict.fromkeys(names)]
    graph = two_rounds(plan, tools)
    hub = bind(graph)
    dock = PlanDock(hub)
    qtbot.addWidget(dock)
    assert dock.pages.currentIndex() == 0  # no plan yet: the explanation

    retried: list[list[int]] = []
    dock.retryRequested.connect(retried.append)
    loop.run_until_complete(graph.ainvoke({}, hub.config()))  # runs "first", then pauses
    dock.redraw()
    assert dock.pages.currentIndex() == 1
    assert statuses(dock) == after_first
    for i, (status, _code) in enumerate(after_first):
        lines = step_lines(dock.items[i].step)
        if status == "skipped":
            assert lines.status == SKIP_UPSTREAM_FAILED
            assert lines.detail.startswith("↑ step ")
            assert dock.items[i].step.reasons  # the upstream reasons, one per failed dependency
    assert dock.retry_button.isEnabled()
    assert dock.request_retry() == chain
    assert retried == [chain]

    loop.run_until_complete(graph.ainvoke(None, hub.config()))  # the retry round
    dock.redraw()
    assert statuses(dock) == after_retry
    assert {i for i, item in dock.items.items() if item.step.retry_round == 1} == set(chain)
    assert dock.retry_button.isEnabled() == (FAIL in after_retry)
    assert graph.get_state(hub.config()).values["retried"] == chain


def test_hover_highlights_the_downstream_chain_of_a_failed_step(loop: Any, qtbot: Any) -> None:
    names, deps, failures, *_ = SCENARIOS["partial"]
    plan = chain_plan(names, deps)
    tools = [ScriptedTool(n, *failures.get(n, [])).tool for n in names]
    graph = two_rounds(plan, tools)
    hub = bind(graph)
    dock = PlanDock(hub)
    qtbot.addWidget(dock)
    loop.run_until_complete(graph.ainvoke({}, hub.config()))
    dock.resize(800, 500)
    dock.show()
    dock.redraw()

    item = dock.items[1]  # task_B failed; task_D depends on it
    centre = dock.canvas.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseMove(dock.canvas.viewport(), centre)
    qtbot.waitUntil(lambda: dock.hovered == 1)
    assert dock.highlighted == {1, 3}
    assert [dock.items[i].chain for i in range(4)] == [None, "failed", None, "failed"]
    assert [round(dock.items[i].opacity(), 2) for i in range(4)] == [0.35, 1.0, 0.35, 1.0]
    lit = [(s, d) for s, d, edge in dock.edges if edge.highlighted]
    assert lit == [(1, 3)]
    assert "Downstream: steps 3" in dock.details_label.text()

    dock.hover_step(2)  # a succeeded step: its chain, not in failure red
    assert dock.highlighted == {2, 3}
    assert dock.items[2].chain == "focus"
    qtbot.mouseMove(dock.canvas.viewport(), QPoint(2, 2))
    qtbot.waitUntil(lambda: dock.hovered is None)
    assert dock.highlighted == set()
    assert all(item.opacity() == 1.0 for item in dock.items.values())


def test_plan_agent_statuses_live_and_at_every_checkpoint(loop: Any, qtbot: Any) -> None:
    agent = plan_retry_scenario.build_agent(delay=0.0)
    hub = bind(agent)
    dock = PlanDock(hub)
    qtbot.addWidget(dock)
    loop.run_until_complete(
        agent.ainvoke({"messages": [HumanMessage(plan_retry_scenario.INPUT)]}, hub.config())
    )
    dock.redraw()
    assert dock.model.objective == plan_retry_scenario.OBJECTIVE
    assert statuses(dock) == [OK] * 5
    final = [(s.attempt, s.retry_round) for s in dock.model.steps]
    assert final == [(1, 0), (2, 1), (1, 1), (1, 1), (1, 0)]  # read sales took two attempts
    assert not dock.retry_button.isEnabled()
    assert sorted((s, d) for s, d, _ in dock.edges) == [(0, 1), (0, 4), (1, 2), (2, 3), (4, 3)]

    seen = {}
    for snapshot in agent.get_state_history(hub.config()):
        hub.select_checkpoint(snapshot.config["configurable"]["checkpoint_id"])
        dock.redraw()
        seen[snapshot.metadata["step"]] = statuses(dock) if dock.model.has_plan else None
    by_step = [seen[k] for k in sorted(seen)]
    assert by_step[0] is None  # before the planner: no plan, the explanation shows
    assert [("pending", None)] * 5 in by_step  # planned, nothing ran yet
    assert [OK, FAIL, SKIP, SKIP, OK] in by_step  # after the first execution
    assert by_step[-1] == [OK] * 5
    hub.select_checkpoint(None)


def test_a_run_without_a_plan_explains(qtbot: Any) -> None:
    hub = bind(approval.build_agent())
    dock = PlanDock(hub)
    qtbot.addWidget(dock)
    assert dock.pages.currentIndex() == 0
    assert dock.explanation_label.text().startswith("This run has no plan.")
    assert dock.retry_button.isHidden()
    assert dock.request_retry() == []
