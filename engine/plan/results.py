"""What executing a plan produced: per-step results, the execution summary, step updates.

Result codes: None for a success; ``TOOL_ERROR`` (the tool raised), ``UNKNOWN_TOOL``,
``INVALID_ARGS`` (the args do not match the tool's schema, or reference a missing output),
``SKIP_UPSTREAM_FAILED`` (not run because a dependency failed or was skipped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, computed_field

from engine.serde import to_jsonable

__all__ = [
    "INVALID_ARGS",
    "NON_RETRYABLE_CODES",
    "SKIP_UPSTREAM_FAILED",
    "TOOL_ERROR",
    "UNKNOWN_TOOL",
    "PlanExecution",
    "StepResult",
    "StepStatus",
    "StepUpdate",
    "skip_message",
]

TOOL_ERROR = "TOOL_ERROR"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
INVALID_ARGS = "INVALID_ARGS"
SKIP_UPSTREAM_FAILED = "SKIP_UPSTREAM_FAILED"
#: Failures a retry with the same plan cannot fix.
NON_RETRYABLE_CODES = frozenset({UNKNOWN_TOOL, INVALID_ARGS})

StepStatus = Literal["pending", "succeeded", "failed", "skipped"]


class StepResult(BaseModel):
    """The latest outcome of one step (carried over from earlier rounds when not re-run)."""

    model_config = ConfigDict(extra="ignore")

    index: int
    name: str
    tool: str
    status: StepStatus = "pending"
    code: str | None = None
    message: str | None = None
    output: Any = None
    error_type: str | None = None
    """The exception's class name when the tool raised."""
    attempts: int = 0
    """How many times the tool was run for this step, over all rounds (skips do not count)."""
    retry_round: int = 0
    """The round that produced this result (0 = the first execution)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def success(self) -> bool:
        return self.status == "succeeded"

    @property
    def reason(self) -> str:
        """Why the step did not succeed, for messages about its dependants."""
        if self.status == "skipped":
            return "skipped (upstream step failed)"
        return self.message or self.code or self.status

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the output rendered with ``serde.to_jsonable``)."""
        data = self.model_dump(exclude={"output"})
        data["output"] = to_jsonable(self.output)
        return data


class PlanExecution(BaseModel):
    """One call of ``execute_plan``: the steps it handled and every step's current result."""

    retry_round: int = 0
    ran: list[int]
    """Indices this execution handled (run or skipped), ascending."""
    results: list[StepResult]
    """One per plan step, by index (steps outside ``ran`` keep their prior result)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attempted(self) -> int:
        return len(self.ran)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def succeeded(self) -> int:
        return sum(1 for i in self.ran if self.results[i].status == "succeeded")

    @property
    def failed(self) -> list[int]:
        """Steps handled here that ran and failed."""
        return [i for i in self.ran if self.results[i].status == "failed"]

    @property
    def skipped(self) -> list[int]:
        return [i for i in self.ran if self.results[i].status == "skipped"]

    @property
    def all_succeeded(self) -> bool:
        """True when every step of the plan has succeeded (in this round or before)."""
        return all(r.status == "succeeded" for r in self.results)

    def summary(self) -> dict[str, Any]:
        """Counts and indices of this execution, as JSON."""
        return {
            "retry_round": self.retry_round,
            "ran": list(self.ran),
            "attempted": self.attempted,
            "succeeded": self.succeeded,
            "failed": self.failed,
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class StepUpdate:
    """A step changed status (what ``plan.step`` events carry; given to ``on_step``)."""

    index: int
    name: str
    tool: str
    status: Literal["pending", "running", "succeeded", "failed", "skipped"]
    attempt: int
    retry_round: int
    depends_on: list[int] = field(default_factory=list)
    code: str | None = None
    message: str | None = None
    output: Any = None


def skip_message(failed_upstream: Sequence[tuple[str, StepResult]]) -> str:
    """``Skipped: upstream step failed - step 1 (read_file): file not found``.

    ``failed_upstream`` pairs each failed or skipped dependency's description with its result.
    """
    reasons = "; ".join(f"{label}: {result.reason}" for label, result in failed_upstream)
    return f"Skipped: upstream step failed - {reasons}"
