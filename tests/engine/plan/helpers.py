"""Shared helpers for the plan tests: scripted tools, plan builders, an ordered step recorder."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from typing import Any

from engine.plan import Plan, PlanStep, StepUpdate
from engine.tools import BaseTool, StructuredTool

ANY_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


class ScriptedTool:
    """A tool whose calls consume ``outcomes``: a value is returned, an exception raised, a
    callable called with the args (awaited if it returns an awaitable).  When the script
    runs out, ``default`` applies.  ``calls`` records the args of every call."""

    def __init__(self, name: str, *outcomes: Any, default: Any = None, yields: int = 0) -> None:
        self.name = name
        self.outcomes = list(outcomes)
        self.default = f"{name} ok" if default is None else default
        self.yields = yields
        self.calls: list[dict[str, Any]] = []

        async def run(**kwargs: Any) -> Any:
            return await self._run(kwargs)

        self.tool: BaseTool = StructuredTool(
            coroutine=run, name=name, description=f"The {name} tool.", args_schema=ANY_ARGS
        )

    async def _run(self, args: dict[str, Any]) -> Any:
        self.calls.append(args)
        for _ in range(self.yields):  # give other steps a chance to interleave
            await asyncio.sleep(0)
        outcome = self.outcomes.pop(0) if self.outcomes else self.default
        if isinstance(outcome, BaseException):
            raise outcome
        if callable(outcome):
            outcome = outcome(args)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        return outcome


def make_plan(deps: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> Plan:
    """A plan whose step i is named (and calls the tool) ``names[i]``, depending on ``deps[i]``."""
    names = list(names) if names is not None else [f"s{i}" for i in range(len(deps))]
    return Plan(
        "test", [PlanStep(names[i], names[i], {}, depends_on=list(d)) for i, d in enumerate(deps)]
    )


def tools_for(
    plan: Plan, **scripted: ScriptedTool
) -> tuple[list[BaseTool], dict[str, ScriptedTool]]:
    """A ``ScriptedTool`` per distinct tool of ``plan`` (those given, or ones that succeed)."""
    by_name = dict(scripted)
    for step in plan.steps:
        by_name.setdefault(step.tool, ScriptedTool(step.tool))
    return [t.tool for t in by_name.values()], by_name


class Recorder:
    """An ``on_step`` callback keeping every update in order: the position is the sequence."""

    def __init__(self) -> None:
        self.updates: list[StepUpdate] = []

    def __call__(self, update: StepUpdate) -> None:
        self.updates.append(update)

    def where(self, **match: Any) -> list[int]:
        """Positions of the updates whose fields equal ``match``."""
        return [
            pos
            for pos, u in enumerate(self.updates)
            if all(getattr(u, k) == v for k, v in match.items())
        ]

    def pos(self, **match: Any) -> int:
        """The position of the single update matching ``match``."""
        found = self.where(**match)
        assert len(found) == 1, f"expected one update matching {match}, found {len(found)}"
        return found[0]

    def started(self, retry_round: int | None = None) -> list[int]:
        """Indices of the steps that started running, in start order."""
        return [
            u.index
            for u in self.updates
            if u.status == "running" and (retry_round is None or u.retry_round == retry_round)
        ]

    def touched(self, retry_round: int) -> set[int]:
        return {u.index for u in self.updates if u.retry_round == retry_round}

    def statuses(self, index: int) -> list[str]:
        return [u.status for u in self.updates if u.index == index]


def assert_dependencies_first(plan: Plan, updates: Sequence[Any]) -> None:
    """No step starts before each of its dependencies has succeeded (in the sequence given).

    ``updates`` are ``StepUpdate``s or ``plan.step`` events, in order; a dependency that
    succeeded in an earlier round (and was not re-run) counts from that round.
    """
    succeeded: set[int] = set()
    for u in updates:
        if u.status == "running":
            missing = [d for d in plan.steps[u.index].depends_on if d not in succeeded]
            assert not missing, (
                f"step {u.index} started before its dependencies {missing} succeeded"
            )
            succeeded.discard(u.index)
        elif u.status in ("pending", "failed", "skipped"):
            succeeded.discard(u.index)
        elif u.status == "succeeded":
            succeeded.add(u.index)


def final_codes(results: Sequence[Any]) -> list[str | None]:
    return [r.code for r in results]


def final_statuses(results: Sequence[Any]) -> list[str]:
    return [r.status for r in results]
