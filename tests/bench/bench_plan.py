"""Plan execution on a 10,000-step random DAG: plan validation, ``build_dependency_chain``
(next to seed 003's repeated sweep), and ``execute_plan`` scheduling with no-op tools -
a full run, a run whose root fails (every dependant skipped), and the retry of that chain.

Run: ``python -m tests.bench.bench_plan``.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from engine.plan import Plan, PlanStep, build_dependency_chain, execute_plan, plan_retry
from engine.tools import BaseTool, tool
from tests.bench.report import Figure, best_of

STEPS = 10_000
MAX_DEPS = 3
WINDOW = 200
SWEEP_WORST = 2_000
REPEAT = 3
"""A step depends on up to MAX_DEPS of the WINDOW steps before it: long chains and wide joins."""


def random_plan(n: int = STEPS, seed: int = 0) -> Plan:
    rng = random.Random(seed)
    steps = [PlanStep("root", "root")]
    for i in range(1, n):
        lo = max(0, i - WINDOW)
        deps = rng.sample(range(lo, i), rng.randint(1, min(MAX_DEPS, i - lo)))
        steps.append(PlanStep(f"s{i}", "noop", depends_on=deps))
    return Plan("bench", steps)


def _tools(root_fails: bool) -> list[BaseTool]:
    @tool
    async def noop() -> None:
        """Does nothing."""

    @tool
    async def root() -> str:
        """The first step."""
        if root_fails:
            raise ConnectionError("root down")
        return "ok"

    return [noop, root]


def _sweep(plan: Plan, sources: list[int]) -> set[int]:
    """Seed 003's buildDependencyChain: sweep every step until nothing changes."""
    result = set(sources)
    changed = True
    while changed:
        changed = False
        for i, step in enumerate(plan.steps):
            if i not in result and any(d in result for d in step.depends_on):
                result.add(i)
                changed = True
    return result


def _timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def run() -> list[Figure]:
    figs: list[Figure] = []
    plan = random_plan()
    edges = sum(len(s.depends_on) for s in plan.steps)
    raw = [s.model_dump() for s in plan.steps]
    build = best_of(lambda: _timed(lambda: Plan.model_validate({"steps": raw})), 3)
    figs.append(
        Figure(
            f"Plan validation, {STEPS:,} steps / {edges:,} edges",
            build * 1e3,
            "ms",
            note="incl. cycle check",
        )
    )

    rng = random.Random(1)
    mid = rng.sample(range(STEPS // 2, STEPS), 10)
    for label, sources in (("from the root (whole DAG)", [0]), ("from 10 random steps", mid)):
        chain = build_dependency_chain(plan.steps, sources)
        t = best_of(lambda s=sources: _timed(lambda: build_dependency_chain(plan.steps, s)), 5)
        figs.append(
            Figure(
                f"build_dependency_chain {label}",
                t * 1e3,
                "ms",
                note=f"{len(chain):,} steps in the chain",
            )
        )
    sweep = _timed(lambda: _sweep(plan, mid))
    assert _sweep(plan, mid) == build_dependency_chain(plan.steps, mid)
    figs.append(
        Figure("  seed 003's repeated sweep, same 10 sources", sweep * 1e3, "ms", note="reference")
    )
    # the sweep's worst case: dependencies pointing to later steps (one step gained per pass)
    rev_chain = Plan(
        "rev",
        [PlanStep(f"r{i}", "noop", depends_on=[i + 1]) for i in range(SWEEP_WORST - 1)]
        + [PlanStep("last", "noop")],
    )
    ours = best_of(
        lambda: _timed(lambda: build_dependency_chain(rev_chain.steps, [SWEEP_WORST - 1])), 5
    )
    theirs = _timed(lambda: _sweep(rev_chain, [SWEEP_WORST - 1]))
    assert build_dependency_chain(rev_chain.steps, [SWEEP_WORST - 1]) == set(range(SWEEP_WORST))
    figs.append(
        Figure(
            f"build_dependency_chain, {SWEEP_WORST:,}-step chain in reverse order", ours * 1e3, "ms"
        )
    )
    figs.append(
        Figure("  seed 003's repeated sweep, same chain", theirs * 1e3, "ms", note="O(n^2) here")
    )

    loop = asyncio.new_event_loop()

    def timed_run(**kwargs: Any) -> float:
        t = time.perf_counter()
        loop.run_until_complete(execute_plan(plan, **kwargs))
        return time.perf_counter() - t

    try:
        for conc in (8, 64):
            dt = best_of(lambda c=conc: timed_run(tools=_tools(False), max_concurrency=c), REPEAT)
            figs.append(
                Figure(
                    f"execute_plan, all {STEPS:,} steps succeed, max_concurrency={conc}",
                    dt * 1e3,
                    "ms",
                    note=f"{dt / STEPS * 1e6:.1f} us/step",
                )
            )
        failed = loop.run_until_complete(execute_plan(plan, _tools(True)))
        assert failed.failed == [0] and len(failed.skipped) == STEPS - 1
        dt = best_of(lambda: timed_run(tools=_tools(True)), REPEAT)
        figs.append(
            Figure(f"execute_plan, root fails ({STEPS - 1:,} skips propagate)", dt * 1e3, "ms")
        )
        chain = plan_retry(plan, failed.results).chain
        retried = loop.run_until_complete(
            execute_plan(plan, _tools(False), retry_steps=chain, prior=failed, retry_round=1)
        )
        assert retried.all_succeeded and retried.attempted == len(chain)
        dt = best_of(
            lambda: timed_run(tools=_tools(False), retry_steps=chain, prior=failed, retry_round=1),
            REPEAT,
        )
        figs.append(Figure(f"retry of the root's chain ({len(chain):,} steps)", dt * 1e3, "ms"))
    finally:
        loop.close()
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
