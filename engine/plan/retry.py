"""Deciding what to retry: the failed steps plus their whole downstream dependency chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.plan.deps import build_dependency_chain
from engine.plan.results import NON_RETRYABLE_CODES, StepResult
from engine.plan.schema import Plan

__all__ = ["RetryDecision", "plan_retry"]


@dataclass(frozen=True)
class RetryDecision:
    """Which steps failed, which of them a retry can help, and what must run again."""

    failed: list[int]
    """Steps that ran and failed (skipped steps are not failures of their own)."""
    retryable: list[int]
    """``failed`` minus failures a retry cannot fix (``NON_RETRYABLE_CODES``)."""
    chain: list[int]
    """``retryable`` plus every step downstream of them, ascending: the retry set."""

    def to_json(self) -> dict[str, Any]:
        return {"failed": self.failed, "retryable": self.retryable, "chain": self.chain}


def plan_retry(plan: Plan, results: Sequence[StepResult]) -> RetryDecision:
    """The retry set for ``results`` (one per step of ``plan``).

    Seed 003's problem scenario: step 1 failed and steps 2 and 3 were skipped, so
    ``failed == [1]`` and ``chain == [1, 2, 3]``.
    """
    failed = [r.index for r in results if r.status == "failed"]
    retryable = [
        r.index for r in results if r.status == "failed" and r.code not in NON_RETRYABLE_CODES
    ]
    chain = sorted(build_dependency_chain(plan.steps, retryable))
    return RetryDecision(failed=failed, retryable=retryable, chain=chain)
