"""Plan-and-execute: read_file fails, and the retry re-runs it with its whole dependency chain.

Seed 003's problem scenario, offline.  The scripted planner writes a five-step plan:

    step 0  list_files    data/
    step 1  read_file     data/sales.csv          depends on 0
    step 2  process_data  totals per region       depends on 1
    step 3  write_result  out/summary.md          depends on 2 and 4
    step 4  read_file     data/notes.txt          depends on 0

On the first execution the sales export has not landed yet: step 1 fails with "file not
found", so steps 2 and 3 are skipped (SKIP_UPSTREAM_FAILED) while step 4 runs in parallel
and succeeds.  The evaluator retries the dependency chain of step 1 - steps 1, 2 and 3, in
dependency order - and keeps step 4's result.  By then the file is there, every step
succeeds, and the model reports.  Each tool takes a moment so the Plan view can be watched.
The export lands late in every run, so re-running (or forking) shows the retry again.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from engine.checkpoint import InMemorySaver
from engine.checkpoint.base import BaseCheckpointSaver
from engine.graph.compiled import CompiledStateGraph
from engine.graph.runtime import current_run
from engine.messages import BaseMessage
from engine.models import ScriptedChatModel
from engine.plan import Plan, PlanStep, create_plan_agent
from engine.plan.prompts import PLANNER_RULES
from engine.tools import BaseTool, tool

__all__ = ["INPUT", "OBJECTIVE", "agent", "build_agent", "reply", "scripted_plan"]

OBJECTIVE = "Summarize this month's sales by region into out/summary.md, with the data notes."
INPUT = OBJECTIVE

SALES_CSV = "region,amount\nnorth,1200\nsouth,800\nnorth,300\neast,450\n"
NOTES = "Amounts are in EUR, before refunds."

ANSWER = (
    "Done: out/summary.md holds the sales totals per region (north 1500, south 800, east 450) "
    "and the data notes. The first read of data/sales.csv failed because the export had not "
    "landed yet; the retry re-ran read_file, process_data and write_result in order, and reused "
    "the notes read in the first round."
)


def scripted_plan() -> Plan:
    """The plan the scripted model replies with."""
    return Plan(
        OBJECTIVE,
        [
            PlanStep("list data files", "list_files", {"directory": "data"}),
            PlanStep("read sales", "read_file", {"path": "data/sales.csv"}, depends_on=[0]),
            PlanStep(
                "total per region", "process_data", {"csv": "{{steps.1.output}}"}, depends_on=[1]
            ),
            PlanStep(
                "write summary",
                "write_result",
                {
                    "path": "out/summary.md",
                    "totals": "{{steps.2.output}}",
                    "notes": "{{steps.4.output}}",
                },
                depends_on=[2, 4],
            ),
            PlanStep("read notes", "read_file", {"path": "data/notes.txt"}, depends_on=[0]),
        ],
    )


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
    """The scripted model: the plan when asked to plan, else a report of the results."""
    if messages and messages[0].text.startswith(PLANNER_RULES):
        return json.dumps(scripted_plan().model_dump(mode="json"))
    report = messages[-1].text if messages else ""
    problems = [
        line
        for line in report.splitlines()
        if ": failed after" in line or ": skipped after" in line
    ]
    if not problems:
        return ANSWER
    return "Not everything worked:\n" + "\n".join(problems)


def make_tools(delay: float) -> tuple[list[BaseTool], dict[str, str]]:
    """The four tools over a small in-memory disk, and the disk itself."""
    disk: dict[str, str] = {"data/notes.txt": NOTES, "data/sales.csv": SALES_CSV}
    missed: set[str] = set()
    """(run id, path) of the late exports already missed once in that run."""

    @tool
    async def list_files(directory: str) -> list[str]:
        """List the files in a directory.

        Args:
            directory: the directory, e.g. "data"
        """
        await asyncio.sleep(delay)
        prefix = directory.rstrip("/") + "/"
        return sorted(p for p in disk if p.startswith(prefix))

    @tool
    async def read_file(path: str) -> str:
        """Read a text file.

        Args:
            path: the file's path
        """
        await asyncio.sleep(delay)
        run = current_run()
        late = f"{run.run_id if run else ''}:{path}"
        if path == "data/sales.csv" and late not in missed:  # lands just after the first read
            missed.add(late)
            raise FileNotFoundError(f"file not found: {path}")
        if path not in disk:
            raise FileNotFoundError(f"file not found: {path}")
        return disk[path]

    @tool
    async def process_data(csv: str) -> dict[str, int]:
        """Total the amounts of a region,amount CSV per region.

        Args:
            csv: the CSV text, with a header line
        """
        await asyncio.sleep(delay)
        totals: dict[str, int] = {}
        for line in csv.strip().splitlines()[1:]:
            region, amount = line.split(",")
            totals[region] = totals.get(region, 0) + int(amount)
        return totals

    @tool
    async def write_result(path: str, totals: dict[str, int], notes: str = "") -> str:
        """Write a markdown summary of totals per region.

        Args:
            path: where to write it
            totals: the amount per region
            notes: text to append
        """
        await asyncio.sleep(delay)
        rows = "\n".join(f"| {region} | {amount} |" for region, amount in sorted(totals.items()))
        disk[path] = f"| region | amount |\n|---|---|\n{rows}\n\n{notes}\n"
        return f"wrote {len(disk[path])} characters to {path}"

    return [list_files, read_file, process_data, write_result], disk


def build_agent(
    *, delay: float = 0.6, checkpointer: BaseCheckpointSaver | None = None, **kwargs: Any
) -> CompiledStateGraph:
    """A fresh agent: the scripted planner (enough replies for 100 runs) and a fresh disk."""
    tools, _disk = make_tools(delay)
    model = ScriptedChatModel([reply] * 200, name="scripted-planner")
    return create_plan_agent(
        model,
        tools,
        max_retry_rounds=1,
        checkpointer=checkpointer or InMemorySaver(),
        name="plan_retry",
        **kwargs,
    )


agent = build_agent()
