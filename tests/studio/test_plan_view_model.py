"""The Plan dock's plain-Python model, fed from state and from ``plan.step`` events."""

from __future__ import annotations

from typing import Any

from engine.events import PlanStep
from engine.plan import SKIP_UPSTREAM_FAILED, Plan, StepResult, skip_message
from engine.plan import PlanStep as Step
from studio.docks.plan.items import step_lines
from studio.models.plan_graph import PlanGraphModel, StepView, retry_chain

PLAN = Plan(
    "report",
    [
        Step("auth", "api_auth", {}),
        Step("fetch", "api_get", {}, depends_on=[0]),
        Step("process", "process", {}, depends_on=[1]),
        Step("save", "save", {}, depends_on=[2, 4]),
        Step("notes", "read", {}, depends_on=[0]),
    ],
)


def ev(index: int, status: str, **kw: Any) -> PlanStep:
    step = PLAN.steps[index]
    return PlanStep(
        run_id="r",
        index=index,
        name=step.name,
        tool=step.tool,
        status=status,  # type: ignore[arg-type]
        depends_on=step.depends_on,
        **kw,
    )


def test_load_state_from_a_plan_agent_checkpoint() -> None:
    model = PlanGraphModel()
    fired: list[int] = []
    model.listeners.append(lambda: fired.append(1))
    failed = StepResult(
        index=1,
        name="fetch",
        tool="api_get",
        status="failed",
        code="TOOL_ERROR",
        message="timeout",
        attempts=1,
    )
    skipped = StepResult(
        index=2,
        name="process",
        tool="process",
        status="skipped",
        code=SKIP_UPSTREAM_FAILED,
        message=skip_message([(PLAN.describe(1), failed)]),
    )
    values = {
        "plan": PLAN.model_dump(mode="json"),
        "steps": [
            StepResult(
                index=0,
                name="auth",
                tool="api_auth",
                status="succeeded",
                output={"t": 1},
                attempts=1,
            ).to_json(),
            failed.to_json(),
            skipped.to_json(),
        ],
    }
    assert model.load_state(values)
    assert model.objective == "report" and fired == [1]
    assert [s.status for s in model.steps] == [
        "succeeded",
        "failed",
        "skipped",
        "pending",
        "pending",
    ]
    assert model.steps[2].reasons == ["step 1 (fetch): timeout"]
    assert step_lines(model.steps[2]).detail == "↑ step 1 failed"
    assert step_lines(model.steps[1]).status == "failed · TOOL_ERROR"
    assert step_lines(model.steps[0]).detail == '→ {"t": 1}'
    assert not model.load_state({"plan": None})
    assert not model.has_plan


def test_events_drive_statuses_attempts_and_rounds() -> None:
    model = PlanGraphModel()
    model.apply_all([ev(i, "pending") for i in range(5)])
    assert [s.name for s in model.steps] == ["auth", "fetch", "process", "save", "notes"]
    model.apply_all(
        [
            ev(0, "running"),
            ev(0, "succeeded", output="tok"),
            ev(1, "running"),
            ev(4, "running"),
            ev(1, "failed", code="TOOL_ERROR", message="timeout"),
            ev(
                2,
                "skipped",
                code=SKIP_UPSTREAM_FAILED,
                message="Skipped: upstream step failed - step 1 (fetch): timeout",
            ),
        ]
    )
    assert [s.status for s in model.steps] == [
        "succeeded",
        "failed",
        "skipped",
        "pending",
        "running",
    ]
    assert model.counts() == {"pending": 1, "running": 1, "succeeded": 1, "failed": 1, "skipped": 1}
    model.apply_all(
        [ev(1, "running", attempt=2, retry_round=1), ev(1, "succeeded", attempt=2, retry_round=1)]
    )
    assert (model.steps[1].status, model.steps[1].attempt, model.steps[1].retry_round) == (
        "succeeded",
        2,
        1,
    )
    assert not model.apply_all(
        [ev(1, "succeeded", attempt=2, retry_round=1)]
    )  # no change: no redraw


def test_chains_use_the_plans_dependencies() -> None:
    model = PlanGraphModel()
    model.apply_all([ev(i, "pending") for i in range(5)])
    assert model.downstream(1) == {1, 2, 3}
    assert model.downstream(4) == {3, 4}
    assert model.downstream(0) == {0, 1, 2, 3, 4}
    assert model.downstream(9) == set()
    assert model.retry_chain() == []
    model.apply_all(
        [ev(4, "failed", code="TOOL_ERROR"), ev(3, "skipped", code=SKIP_UPSTREAM_FAILED)]
    )
    assert model.retry_chain() == [3, 4]
    steps = [
        StepView(index=i, name=str(i), tool="t", depends_on=d, status=s)
        for i, (d, s) in enumerate(
            [((), "failed"), ((0,), "skipped"), ((), "failed"), ((1, 2), "skipped")]
        )
    ]
    assert retry_chain(steps) == [0, 1, 2, 3]
    g = model.drawable()
    assert sorted((e.source, e.target) for e in g.edges) == [
        ("step0", "step1"),
        ("step0", "step4"),
        ("step1", "step2"),
        ("step2", "step3"),
        ("step4", "step3"),
    ]
