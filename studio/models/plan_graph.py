"""The Plan dock's view state: a plan's steps as a DAG with each step's latest status.

Plain Python, no Qt.  Fed from a checkpoint (``load_state``: the plan agent keeps ``plan`` and
one ``StepResult`` JSON per step in ``steps``) and live from ``plan.step`` events (``apply``),
which also carry each step's name, tool and dependencies, so a plan executed outside the plan
agent (a bare ``execute_plan`` in some node) is drawn from its events alone.

``downstream(i)`` is the dependency chain a failure of step ``i`` takes down (hover highlight);
``retry_chain()`` is what "Retry failed steps with their dependency chain" re-runs: the failed
steps plus every step downstream of them, computed with ``engine.plan.build_dependency_chain``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine.events import EventBase
from engine.events import PlanStep as PlanStepEvent
from engine.graph.drawing import DrawableGraph
from engine.plan import SKIP_UPSTREAM_FAILED, build_dependency_chain

__all__ = [
    "STEP_STATUSES",
    "PlanGraphModel",
    "StepView",
    "retry_chain",
    "step_node_id",
]

StepStatus = Literal["pending", "running", "succeeded", "failed", "skipped"]
STEP_STATUSES: tuple[StepStatus, ...] = ("pending", "running", "succeeded", "failed", "skipped")


def step_node_id(index: int) -> str:
    return f"step{index}"


@dataclass(frozen=True)
class StepView:
    index: int
    name: str
    tool: str
    depends_on: tuple[int, ...] = ()
    status: StepStatus = "pending"
    code: str | None = None
    message: str | None = None
    attempt: int = 0
    """Attempts so far (0: never ran)."""
    retry_round: int = 0
    output: Any = None

    @property
    def skipped_upstream(self) -> bool:
        return self.status == "skipped" and self.code == SKIP_UPSTREAM_FAILED

    @property
    def reasons(self) -> list[str]:
        """Why a skipped step did not run: one line per failed upstream step."""
        text = self.message or ""
        if not self.skipped_upstream or " - " not in text:
            return []
        return [r.strip() for r in text.split(" - ", 1)[1].split("; ") if r.strip()]


def retry_chain(steps: Iterable[StepView]) -> list[int]:
    """Failed steps plus everything downstream of them, ascending (empty when none failed)."""
    items = sorted(steps, key=lambda s: s.index)
    failed = [s.index for s in items if s.status == "failed"]
    if not failed:
        return []
    return sorted(build_dependency_chain(items, failed))


@dataclass
class PlanGraphModel:
    """The steps of the plan on screen; listeners get called after every change."""

    objective: str = ""
    steps: list[StepView] = field(default_factory=list)
    listeners: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()

    @property
    def has_plan(self) -> bool:
        return bool(self.steps)

    def clear(self) -> None:
        if self.steps or self.objective:
            self.steps, self.objective = [], ""
            self._changed()

    # -- feeding --------------------------------------------------------------------------

    def load_state(self, values: Mapping[str, Any] | None) -> bool:
        """Show the plan in a checkpoint's values (``plan`` + ``steps``); False when it has none."""
        plan = (values or {}).get("plan")
        if not isinstance(plan, Mapping) or not isinstance(plan.get("steps"), list):
            self.clear()
            return False
        results = {
            int(r["index"]): r
            for r in (values or {}).get("steps") or []
            if isinstance(r, Mapping) and "index" in r
        }
        steps: list[StepView] = []
        for i, s in enumerate(plan["steps"]):
            r = results.get(i, {})
            status = r.get("status", "pending")
            steps.append(
                StepView(
                    index=i,
                    name=str(s.get("name", f"step {i}")),
                    tool=str(s.get("tool", "")),
                    depends_on=tuple(int(d) for d in s.get("depends_on") or ()),
                    status=status if status in STEP_STATUSES else "pending",
                    code=r.get("code"),
                    message=r.get("message"),
                    attempt=int(r.get("attempts") or 0),
                    retry_round=int(r.get("retry_round") or 0),
                    output=r.get("output"),
                )
            )
        self.objective = str(plan.get("objective") or "")
        self.steps = steps
        self._changed()
        return True

    def apply(self, event: EventBase) -> bool:
        """Apply a ``plan.step`` event; True when something changed."""
        if not isinstance(event, PlanStepEvent):
            return False
        i = event.index
        if i >= len(self.steps):
            self.steps.extend(
                StepView(index=k, name=f"step {k}", tool="") for k in range(len(self.steps), i + 1)
            )
        old = self.steps[i]
        attempt = old.attempt
        if event.status == "running":
            attempt = event.attempt
        elif event.status in ("succeeded", "failed"):
            attempt = max(attempt, event.attempt)
        new = replace(
            old,
            name=event.name,
            tool=event.tool or old.tool,
            depends_on=tuple(event.depends_on),
            status=event.status,
            code=event.code,
            message=event.message,
            attempt=attempt,
            retry_round=event.retry_round,
            output=event.output if event.status == "succeeded" else None,
        )
        if new == old:
            return False
        self.steps[i] = new
        return True

    def apply_all(self, events: Iterable[EventBase]) -> bool:
        changed = False
        for event in events:
            changed |= self.apply(event)
        if changed:
            self._changed()
        return changed

    # -- reading --------------------------------------------------------------------------

    def downstream(self, index: int) -> set[int]:
        """Step ``index`` and every step that depends on it, directly or not."""
        if not 0 <= index < len(self.steps):
            return set()
        return build_dependency_chain(self.steps, [index])

    def retry_chain(self) -> list[int]:
        return retry_chain(self.steps)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = dict.fromkeys(STEP_STATUSES, 0)
        for s in self.steps:
            out[s.status] += 1
        return out

    def drawable(self) -> DrawableGraph:
        """The plan as a graph for the layered layout: a node per step, an edge per dependency."""
        g = DrawableGraph(name="plan")
        for s in self.steps:
            g.add_node(step_node_id(s.index), "node", name=s.name, index=s.index, tool=s.tool)
        for s in self.steps:
            for d in s.depends_on:
                if 0 <= d < len(self.steps):
                    g.add_edge(step_node_id(d), step_node_id(s.index))
        return g
