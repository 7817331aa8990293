"""Plan-and-execute with dependency-chain retry (seed 003).

- ``Plan`` / ``PlanStep``: a plan as data; steps form a DAG through ``depends_on``.
- ``build_dependency_chain``: a set of steps plus everything downstream of them.
- ``execute_plan``: run a plan concurrently in dependency order; in retry mode re-run only
  some steps, skipping those whose upstream failed (``SKIP_UPSTREAM_FAILED``).
- ``plan_retry``: the retry set after an execution (failed steps + downstream chain).
- ``create_plan_agent``: planner -> executor -> evaluator -> retry executor -> answer, as a
  graph whose state holds the plan and every step's result.
"""

from engine.plan.agent import PlanAgentState, create_plan_agent
from engine.plan.deps import build_dependency_chain, dependants, find_cycle
from engine.plan.executor import execute_plan, tool_map
from engine.plan.refs import referenced_steps, resolve_refs, step_ref
from engine.plan.results import (
    INVALID_ARGS,
    NON_RETRYABLE_CODES,
    SKIP_UPSTREAM_FAILED,
    TOOL_ERROR,
    UNKNOWN_TOOL,
    PlanExecution,
    StepResult,
    StepUpdate,
    skip_message,
)
from engine.plan.retry import RetryDecision, plan_retry
from engine.plan.schema import Plan, PlanStep, PlanValidationError, check_steps
from engine.plan.structured import PlanParseError, parse_plan, plan_response_format

__all__ = [
    "INVALID_ARGS",
    "NON_RETRYABLE_CODES",
    "SKIP_UPSTREAM_FAILED",
    "TOOL_ERROR",
    "UNKNOWN_TOOL",
    "Plan",
    "PlanAgentState",
    "PlanExecution",
    "PlanParseError",
    "PlanStep",
    "PlanValidationError",
    "RetryDecision",
    "StepResult",
    "StepUpdate",
    "build_dependency_chain",
    "check_steps",
    "create_plan_agent",
    "dependants",
    "execute_plan",
    "find_cycle",
    "parse_plan",
    "plan_response_format",
    "plan_retry",
    "referenced_steps",
    "resolve_refs",
    "skip_message",
    "step_ref",
    "tool_map",
]
