"""``execute_plan``: run a plan's steps as a DAG, concurrently, with dependency-aware retry.

Scheduling: a step is queued the moment its last dependency finishes; a pool of
``max_concurrency`` workers takes queued steps in order.  A step whose dependency failed or
was skipped never runs: it is recorded as skipped (``SKIP_UPSTREAM_FAILED``) and its own
dependants follow at once.  Every step is touched O(1) times and every edge once.

Retry mode (``retry_steps`` given): only those steps are handled; every other step keeps
its result from ``prior`` (so a dependency outside the retry set counts as succeeded or
failed according to its earlier outcome).  Retry a failed step together with its
dependants: ``retry_steps=build_dependency_chain(plan.steps, failed)``.

Observability: every status change (pending at the start, running, succeeded, failed,
skipped) is a ``plan.step`` event on the current run, when one is active, and a
``StepUpdate`` given to ``on_step``, in the same order.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.events import PlanStep as PlanStepEvent
from engine.observe.bus import RunEmitter, current_emitter
from engine.plan.deps import dependants
from engine.plan.refs import resolve_refs
from engine.plan.results import (
    INVALID_ARGS,
    SKIP_UPSTREAM_FAILED,
    TOOL_ERROR,
    UNKNOWN_TOOL,
    PlanExecution,
    StepResult,
    StepUpdate,
    skip_message,
)
from engine.plan.schema import Plan
from engine.serde import to_jsonable
from engine.tools import BaseTool, ToolArgsValidationError, as_tool

__all__ = ["OnStep", "PriorResults", "ToolsLike", "execute_plan", "tool_map"]

ToolsLike = Sequence[BaseTool | Callable[..., Any]] | Mapping[str, BaseTool | Callable[..., Any]]
PriorResults = PlanExecution | Sequence[StepResult] | Mapping[int, StepResult]
OnStep = Callable[[StepUpdate], Any]
"""Called with every ``StepUpdate``; may be a coroutine function (it is awaited)."""

EVENT_OUTPUT_CHARS = 2000


def tool_map(tools: ToolsLike) -> dict[str, BaseTool]:
    """Tools by name (a mapping's keys are the names the plan uses)."""
    if isinstance(tools, Mapping):
        return {str(name): as_tool(t) for name, t in tools.items()}
    out: dict[str, BaseTool] = {}
    for t in tools:
        bt = as_tool(t)
        if bt.name in out:
            raise ValueError(f"Two tools are named {bt.name!r}")
        out[bt.name] = bt
    return out


def _prior_map(prior: PriorResults | None) -> dict[int, StepResult]:
    if prior is None:
        return {}
    if isinstance(prior, PlanExecution):
        return {r.index: r for r in prior.results}
    if isinstance(prior, Mapping):
        return dict(prior)
    return {r.index: r for r in prior}


class _Execution:
    """The bookkeeping of one ``execute_plan`` call."""

    def __init__(
        self,
        plan: Plan,
        tools: dict[str, BaseTool],
        retry_steps: Iterable[int] | None,
        prior: PriorResults | None,
        retry_round: int,
        on_step: OnStep | None,
    ) -> None:
        self.plan = plan
        self.steps = plan.steps
        self.tools = tools
        self.retry_round = retry_round
        self.on_step = on_step
        self.emitter: RunEmitter | None = current_emitter()
        n = len(self.steps)
        self.ran = list(range(n)) if retry_steps is None else sorted(set(retry_steps))
        bad = [i for i in self.ran if not 0 <= i < n]
        if bad:
            raise ValueError(f"retry_steps {bad} are not steps of the plan (it has {n} steps)")
        self.in_run = bytearray(n)
        for i in self.ran:
            self.in_run[i] = 1
        prior_results = _prior_map(prior)
        missing = [i for i in range(n) if not self.in_run[i] and i not in prior_results]
        if missing:
            names = ", ".join(plan.describe(i) for i in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise ValueError(
                f"Steps outside retry_steps keep their prior result, but there is none for {names}{more}; "
                "pass prior=<the previous PlanExecution>"
            )
        self.results: list[StepResult] = []
        for i, step in enumerate(self.steps):
            p = prior_results.get(i)
            if self.in_run[i]:
                attempts = p.attempts if p is not None else 0
                self.results.append(
                    StepResult.model_construct(
                        index=i,
                        name=step.name,
                        tool=step.tool,
                        attempts=attempts,
                        retry_round=retry_round,
                    )
                )
            else:
                assert p is not None
                self.results.append(p.model_copy())
        self.rev = dependants(self.steps)
        self.waiting = [0] * n
        for i in self.ran:
            self.waiting[i] = sum(self.in_run[d] for d in self.steps[i].depends_on)
        self.remaining = len(self.ran)
        self.queue: asyncio.Queue[int | None] = asyncio.Queue()
        self.workers = 0

    # -- scheduling ----------------------------------------------------------------------

    async def run(self, max_concurrency: int) -> None:
        if not self.ran:
            return
        for i in self.ran:
            await self._notify(i, "pending", self.results[i].attempts + 1)
        self.workers = min(max_concurrency, len(self.ran))
        tasks = [asyncio.create_task(self._worker()) for _ in range(self.workers)]
        try:
            await self._advance([i for i in self.ran if self.waiting[i] == 0])
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _worker(self) -> None:
        while True:
            i = await self.queue.get()
            if i is None:
                return
            await self._run_step(i)
            await self._advance(self._finish(i))

    def _finish(self, i: int) -> list[int]:
        """Step ``i`` is settled: the dependants it was the last unsettled dependency of."""
        self.remaining -= 1
        ready: list[int] = []
        for j in self.rev[i]:
            if self.in_run[j]:
                self.waiting[j] -= 1
                if self.waiting[j] == 0:
                    ready.append(j)
        if self.remaining == 0:
            for _ in range(self.workers):
                self.queue.put_nowait(None)
        return ready

    async def _advance(self, ready: Iterable[int]) -> None:
        """Queue steps whose dependencies all succeeded; skip (and settle) the others."""
        work = deque(ready)
        while work:
            i = work.popleft()
            step = self.steps[i]
            failed = [d for d in step.depends_on if self.results[d].status != "succeeded"]
            if not failed:
                self.queue.put_nowait(i)
                continue
            message = skip_message([(self.plan.describe(d), self.results[d]) for d in failed])
            prev = self.results[i]
            self.results[i] = StepResult.model_construct(
                index=i,
                name=step.name,
                tool=step.tool,
                status="skipped",
                code=SKIP_UPSTREAM_FAILED,
                message=message,
                attempts=prev.attempts,
                retry_round=self.retry_round,
            )
            await self._notify(
                i, "skipped", prev.attempts + 1, code=SKIP_UPSTREAM_FAILED, message=message
            )
            work.extend(self._finish(i))

    # -- one step ------------------------------------------------------------------------

    async def _run_step(self, i: int) -> None:
        attempt = self.results[i].attempts + 1
        await self._notify(i, "running", attempt)
        result = await self._call(i, attempt)
        self.results[i] = result
        await self._notify(
            i,
            result.status,
            attempt,
            code=result.code,
            message=result.message,
            output=result.output,
        )

    async def _call(self, i: int, attempt: int) -> StepResult:
        step = self.steps[i]
        base: dict[str, Any] = {
            "index": i,
            "name": step.name,
            "tool": step.tool,
            "attempts": attempt,
            "retry_round": self.retry_round,
        }
        tool = self.tools.get(step.tool)
        if tool is None:
            available = ", ".join(sorted(self.tools)) or "none"
            message = f"unknown tool '{step.tool}' (available: {available})"
            return StepResult.model_construct(
                **base, status="failed", code=UNKNOWN_TOOL, message=message
            )
        try:
            outputs = {d: self.results[d].output for d in step.depends_on}
            args = tool.validate_args(resolve_refs(step.args, outputs))
        except ToolArgsValidationError as exc:
            return StepResult.model_construct(
                **base, status="failed", code=INVALID_ARGS, message=str(exc)
            )
        except KeyError as exc:
            return StepResult.model_construct(
                **base, status="failed", code=INVALID_ARGS, message=str(exc.args[0])
            )
        try:
            output = await tool.arun(
                args, **tool.default_injections(f"plan-{self.retry_round}-{i}")
            )
        except Exception as exc:
            return StepResult(
                **base,
                status="failed",
                code=TOOL_ERROR,
                message=str(exc) or type(exc).__name__,
                error_type=type(exc).__name__,
            )
        return StepResult.model_construct(**base, status="succeeded", output=output)

    async def _notify(
        self,
        i: int,
        status: Any,
        attempt: int,
        *,
        code: str | None = None,
        message: str | None = None,
        output: Any = None,
    ) -> None:
        step = self.steps[i]
        if self.on_step is not None:
            update = StepUpdate(
                index=i,
                name=step.name,
                tool=step.tool,
                status=status,
                attempt=attempt,
                retry_round=self.retry_round,
                depends_on=list(step.depends_on),
                code=code,
                message=message,
                output=output,
            )
            returned = self.on_step(update)
            if inspect.isawaitable(returned):
                await returned
        em = self.emitter
        if em is not None and em.active:
            await em.emit(
                PlanStepEvent,
                index=i,
                name=step.name,
                tool=step.tool,
                status=status,
                code=code,
                message=message,
                attempt=attempt,
                output=to_jsonable(output, max_str=EVENT_OUTPUT_CHARS),
                depends_on=list(step.depends_on),
                retry_round=self.retry_round,
            )


async def execute_plan(
    plan: Plan,
    tools: ToolsLike,
    *,
    retry_steps: Iterable[int] | None = None,
    max_concurrency: int = 8,
    prior: PriorResults | None = None,
    retry_round: int = 0,
    on_step: OnStep | None = None,
) -> PlanExecution:
    """Run ``plan``'s steps with ``tools``; see the module docstring for the rules.

    ``retry_steps``: handle only these steps (retry mode); the others keep their result
    from ``prior`` (a ``PlanExecution``, or ``StepResult``s).  ``retry_round`` numbers the
    round in results and events.  Tool failures never raise: they become step results
    (``TOOL_ERROR``, ``UNKNOWN_TOOL``, ``INVALID_ARGS``).  Cancellation and errors raised by
    ``on_step`` propagate (the running steps are cancelled).
    """
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    execution = _Execution(plan, tool_map(tools), retry_steps, prior, retry_round, on_step)
    await execution.run(max_concurrency)
    return PlanExecution(retry_round=retry_round, ran=execution.ran, results=execution.results)
