"""The plan agent's prompts: how to plan with the available tools, and how to report."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from engine.plan.results import StepResult
from engine.plan.schema import Plan
from engine.serde import to_jsonable
from engine.tools import BaseTool

__all__ = ["ANSWER_SYSTEM_PROMPT", "PLANNER_RULES", "answer_request", "planner_system_prompt"]

PLANNER_RULES = """\
You are a planner. Break the user's objective into steps; each step calls exactly one tool.
Reply with only a JSON object matching the Plan schema:
{"objective": "...", "steps": [{"name": "...", "tool": "...", "args": {...}, "depends_on": [...]}]}
Rules:
- Steps are numbered from 0 in list order. "depends_on" lists the steps that must succeed first.
- Steps that do not depend on each other run in parallel, so only add real dependencies.
- To pass a step's output to another step, write "{{steps.N.output}}" as an argument value;
  step N must then be in that step's depends_on.
- Use only the tools listed below, with arguments matching their schema."""

ANSWER_SYSTEM_PROMPT = """\
You report the outcome of an executed plan to the user. Be brief and factual: say what was
achieved, and for every step that failed or was skipped, say why."""

OUTPUT_PREVIEW_CHARS = 600


def planner_system_prompt(tools: Mapping[str, BaseTool], extra: str | None = None) -> str:
    """The planner's system prompt: the rules, then each tool with its argument schema."""
    lines = [PLANNER_RULES, "", "Tools:"]
    for name, tool in sorted(tools.items()):
        schema = json.dumps(tool.parameters_json_schema, sort_keys=True)
        lines.append(f"- {name}: {tool.description or '(no description)'} Arguments: {schema}")
    if extra:
        lines += ["", extra]
    return "\n".join(lines)


def _output_text(result: StepResult) -> str:
    out = result.output
    text = out if isinstance(out, str) else json.dumps(to_jsonable(out), ensure_ascii=False)
    return text if len(text) <= OUTPUT_PREVIEW_CHARS else text[:OUTPUT_PREVIEW_CHARS] + "…"


def answer_request(
    objective: str, plan: Plan, results: Sequence[StepResult], retry_rounds: int
) -> str:
    """The user turn of the final model call: the objective and every step's outcome."""
    lines = [f"Objective: {objective}", f"Retry rounds used: {retry_rounds}", "", "Step results:"]
    for r in results:
        head = f"- {plan.describe(r.index)} [{r.tool}]: {r.status} after {r.attempts} attempt(s)"
        if r.status == "succeeded":
            lines.append(f"{head}. Output: {_output_text(r)}")
        else:
            lines.append(f"{head}. {r.code}: {r.message}")
    return "\n".join(lines)
