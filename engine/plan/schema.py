"""``PlanStep`` and ``Plan``: a plan as data (pydantic, so a model can write one).

    Plan(
        "Summarize the sales data",
        [
            PlanStep("list files", "list_files", {"directory": "data"}),
            PlanStep("read sales", "read_file", {"path": "data/sales.csv"}, depends_on=[0]),
            PlanStep("summarize", "process_data", {"csv": "{{steps.1.output}}"}, depends_on=[1]),
        ],
    )

Building a ``Plan`` checks its dependencies: an unknown index, a step depending on itself,
a cycle, or an output reference to a step that is not a dependency is a ``ValidationError``
whose message names the steps involved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.plan.deps import find_cycle
from engine.plan.refs import referenced_steps

__all__ = ["Plan", "PlanStep", "PlanValidationError", "check_steps", "describe_step"]


class PlanValidationError(ValueError):
    """A plan's dependencies are inconsistent; ``problems`` lists each issue."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = list(problems)


class PlanStep(BaseModel):
    """One step: call ``tool`` with ``args`` once every step in ``depends_on`` succeeded."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1, description="A short name for the step, e.g. 'read sales data'."
    )
    tool: str = Field(min_length=1, description="The name of the tool this step calls.")
    args: dict[str, Any] = Field(
        default_factory=dict,
        description="The tool's arguments. '{{steps.N.output}}' stands for step N's output.",
    )
    depends_on: list[int] = Field(
        default_factory=list,
        description="0-based indices of the steps that must succeed before this one starts.",
    )

    def __init__(
        self,
        name: str | None = None,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        /,
        **data: Any,
    ) -> None:
        for key, value in (("name", name), ("tool", tool), ("args", args)):
            if value is not None:
                if key in data:
                    raise TypeError(f"PlanStep got two values for {key!r}")
                data[key] = value
        super().__init__(**data)

    @field_validator("depends_on")
    @classmethod
    def _dedupe(cls, value: list[int]) -> list[int]:
        return list(dict.fromkeys(value))


def describe_step(index: int, step: PlanStep | None) -> str:
    """``step 2 (parse)``: how messages name a step."""
    return f"step {index} ({step.name})" if step is not None else f"step {index}"


def check_steps(steps: Sequence[PlanStep]) -> None:
    """Raise ``PlanValidationError`` unless the steps form a consistent DAG."""
    n = len(steps)
    problems: list[str] = []
    for i, step in enumerate(steps):
        for d in step.depends_on:
            if d == i:
                problems.append(f"{describe_step(i, step)} depends on itself")
            elif not 0 <= d < n:
                known = f"steps 0-{n - 1}" if n > 1 else "only step 0"
                problems.append(
                    f"{describe_step(i, step)} depends on step {d}, which does not exist (the plan has {known})"
                )
    if problems:
        raise PlanValidationError("Invalid plan: " + "; ".join(problems), problems)
    cycle = find_cycle(steps)
    if cycle is not None:
        path = " -> ".join(describe_step(i, steps[i]) for i in cycle)
        problem = f"Plan has a dependency cycle: {path}"
        raise PlanValidationError(problem, [problem])
    for i, step in enumerate(steps):
        deps = set(step.depends_on)
        for r in sorted(referenced_steps(step.args) - deps):
            other = steps[r] if 0 <= r < n else None
            problems.append(
                f"{describe_step(i, step)} uses the output of {describe_step(r, other)} "
                f"but does not depend on it (add {r} to its depends_on)"
            )
    if problems:
        raise PlanValidationError("Invalid plan: " + "; ".join(problems), problems)


class Plan(BaseModel):
    """What to do to reach ``objective``: steps forming a DAG through ``depends_on``."""

    model_config = ConfigDict(extra="forbid")

    objective: str = Field(default="", description="What the plan achieves.")
    steps: list[PlanStep] = Field(
        description="The steps; a step refers to others by 0-based index."
    )

    def __init__(
        self, objective: str | None = None, steps: Sequence[PlanStep] | None = None, /, **data: Any
    ) -> None:
        for key, value in (("objective", objective), ("steps", steps)):
            if value is not None:
                if key in data:
                    raise TypeError(f"Plan got two values for {key!r}")
                data[key] = list(value) if key == "steps" else value
        super().__init__(**data)

    @model_validator(mode="after")
    def _check(self) -> Plan:
        check_steps(self.steps)
        return self

    def describe(self, index: int) -> str:
        """``step 2 (parse)``."""
        return describe_step(index, self.steps[index])
