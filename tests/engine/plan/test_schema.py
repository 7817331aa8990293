"""Plan / PlanStep: construction, JSON, and validation errors that name the steps involved."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from engine.plan import (
    Plan,
    PlanStep,
    PlanValidationError,
    check_steps,
    parse_plan,
    plan_response_format,
    referenced_steps,
    resolve_refs,
    step_ref,
)
from engine.plan.structured import PlanParseError


def test_positional_and_keyword_construction_are_equal():
    a = PlanStep("read", "read_file", {"path": "x"}, depends_on=[0])
    b = PlanStep(name="read", tool="read_file", args={"path": "x"}, depends_on=[0])
    assert a == b
    first = PlanStep("list", "list_files")
    assert Plan("goal", [first, a]) == Plan(objective="goal", steps=[first, b])
    with pytest.raises(TypeError, match="two values for 'name'"):
        PlanStep("read", name="again", tool="t")


def test_defaults_and_deduplicated_dependencies():
    step = PlanStep("s", "t", depends_on=[2, 0, 2])
    assert step.args == {}
    assert step.depends_on == [2, 0]


def test_required_fields_and_no_extras():
    with pytest.raises(ValidationError, match="tool"):
        PlanStep(name="s")
    with pytest.raises(ValidationError, match="dependsOn"):
        Plan.model_validate({"steps": [{"name": "s", "tool": "t", "dependsOn": [0]}]})
    with pytest.raises(ValidationError, match="at least 1 character"):
        PlanStep("", "t")


def test_json_round_trip():
    plan = Plan("g", [PlanStep("a", "t"), PlanStep("b", "u", {"x": [1, {"y": 2}]}, depends_on=[0])])
    data = json.loads(json.dumps(plan.model_dump(mode="json")))
    assert Plan.model_validate(data) == plan


def test_unknown_dependency_names_the_step():
    with pytest.raises(ValidationError) as ei:
        Plan("g", [PlanStep("fetch", "t"), PlanStep("parse", "t", depends_on=[0, 5])])
    assert (
        "Invalid plan: step 1 (parse) depends on step 5, which does not exist (the plan has steps 0-1)"
        in str(ei.value)
    )


def test_negative_dependency_is_unknown():
    with pytest.raises(
        ValidationError,
        match=r"step 0 \(only\) depends on step -1, which does not exist \(the plan has only step 0\)",
    ):
        Plan("g", [PlanStep("only", "t", depends_on=[-1])])


def test_self_dependency_names_the_step():
    with pytest.raises(ValidationError, match=r"Invalid plan: step 1 \(parse\) depends on itself"):
        Plan("g", [PlanStep("fetch", "t"), PlanStep("parse", "t", depends_on=[1])])


def test_cycle_names_the_steps_in_order():
    steps = [
        PlanStep("fetch", "t"),
        PlanStep("clean", "t", depends_on=[0]),
        PlanStep("parse", "t", depends_on=[1, 3]),
        PlanStep("report", "t", depends_on=[2]),
    ]
    with pytest.raises(PlanValidationError) as ei:
        check_steps(steps)
    assert (
        str(ei.value)
        == "Plan has a dependency cycle: step 2 (parse) -> step 3 (report) -> step 2 (parse)"
    )
    with pytest.raises(
        ValidationError, match=r"step 2 \(parse\) -> step 3 \(report\) -> step 2 \(parse\)"
    ):
        Plan("g", steps)


def test_longer_cycle():
    steps = [
        PlanStep("a", "t", depends_on=[2]),
        PlanStep("b", "t", depends_on=[0]),
        PlanStep("c", "t", depends_on=[1]),
    ]
    with pytest.raises(
        PlanValidationError, match=r"step 0 \(a\) -> step 1 \(b\) -> step 2 \(c\) -> step 0 \(a\)$"
    ):
        check_steps(steps)


def test_several_problems_are_all_listed():
    steps = [PlanStep("a", "t", depends_on=[0]), PlanStep("b", "t", depends_on=[7])]
    with pytest.raises(PlanValidationError) as ei:
        check_steps(steps)
    assert ei.value.problems == [
        "step 0 (a) depends on itself",
        "step 1 (b) depends on step 7, which does not exist (the plan has steps 0-1)",
    ]


def test_output_reference_needs_a_dependency():
    with pytest.raises(ValidationError) as ei:
        Plan("g", [PlanStep("read", "t"), PlanStep("use", "t", {"text": "see {{steps.0.output}}"})])
    assert (
        "step 1 (use) uses the output of step 0 (read) but does not depend on it (add 0 to its depends_on)"
        in str(ei.value)
    )


def test_references_are_found_and_resolved():
    args = {
        "a": step_ref(0),
        "b": ["x {{ steps.1.output }} y", {"c": "{{steps.0.output}}"}],
        "n": 3,
    }
    assert referenced_steps(args) == {0, 1}
    out = resolve_refs(args, {0: {"rows": 2}, 1: [1, 2]})
    assert out == {"a": {"rows": 2}, "b": ["x [1, 2] y", {"c": {"rows": 2}}], "n": 3}
    with pytest.raises(KeyError, match="the output of step 4 is not available"):
        resolve_refs("{{steps.4.output}}", {})


def test_response_format_carries_the_plan_schema():
    fmt = plan_response_format()
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Plan"
    schema = fmt["json_schema"]["schema"]
    assert schema == Plan.model_json_schema()
    step_schema = schema["$defs"]["PlanStep"]
    assert set(step_schema["properties"]) == {"name", "tool", "args", "depends_on"}


def test_parse_plan_accepts_json_and_fenced_json():
    plan = Plan("g", [PlanStep("a", "t")])
    text = json.dumps(plan.model_dump(mode="json"))
    assert parse_plan(text) == plan
    assert parse_plan(f"```json\n{text}\n```", tools={"t"}) == plan


@pytest.mark.parametrize(
    ("reply", "tools", "message"),
    [
        ("", None, "The model replied without a plan (empty content)"),
        (
            "{not json",
            None,
            "The model's plan is not valid JSON (Expecting property name enclosed in double quotes at line 1 column 2): '{not json'",
        ),
        (
            '{"steps": [{"name": "a"}]}',
            None,
            "The model's plan is invalid: steps.0.tool: Field required",
        ),
        (
            '{"steps": [{"name": "a", "tool": "t", "depends_on": [1]}, {"name": "b", "tool": "t", "depends_on": [0]}]}',
            None,
            "The model's plan is invalid: Plan has a dependency cycle: step 0 (a) -> step 1 (b) -> step 0 (a)",
        ),
        (
            '{"steps": [{"name": "a", "tool": "t"}, {"name": "b", "tool": "nope"}]}',
            {"t", "u"},
            "The model's plan uses unknown tools: step 1 (b) uses 'nope' (available: t, u)",
        ),
    ],
)
def test_parse_plan_errors(reply: str, tools: set[str] | None, message: str):
    with pytest.raises(PlanParseError) as ei:
        parse_plan(reply, tools=tools)
    assert str(ei.value) == message
