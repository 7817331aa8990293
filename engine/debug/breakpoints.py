"""Breakpoints: where the debugger stops (nodes, hooks, wrappers, tools, failures, interrupts,
loops, state conditions)."""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.events import EventBase

__all__ = ["BreakKind", "Breakpoint", "FailureEchoes", "failure_key", "graph_path"]

BreakKind = Literal[
    "before_node", "after_node", "hook", "wrapper", "tool", "failure", "interrupt", "loop", "state"
]
_ids = itertools.count(1)
_SAFE_NAMES = (
    "len",
    "any",
    "all",
    "min",
    "max",
    "sum",
    "abs",
    "bool",
    "int",
    "float",
    "str",
    "list",
    "dict",
    "set",
    "sorted",
    "isinstance",
)
_SAFE_BUILTINS = {name: getattr(builtins, name) for name in _SAFE_NAMES}
"""What a condition expression may call (the user's own expression, typed in their debugger)."""


def graph_path(ns: str | None) -> tuple[str, ...]:
    """The graph an event happened in, as the node names that lead to it from the root graph:
    ``""`` -> ``()``; ``"outer:task1|inner:task2"`` -> ``("outer", "inner")`` (task ids
    dropped)."""
    if not ns:
        return ()
    return tuple(part.split(":", 1)[0] for part in ns.split("|") if part and not part.isdigit())


@dataclass
class Breakpoint:
    """Where to stop. ``target`` is a node, middleware or tool name depending on ``kind``."""

    kind: BreakKind
    target: str | None = None
    detail: str | None = None
    """``hook``: the hook name (before_model, ...); ``wrapper``: wrap_model_call / wrap_tool_call."""
    condition: Callable[[dict[str, Any]], bool] | str | None = None
    enabled: bool = True
    id: int = field(default_factory=lambda: next(_ids))
    hits: int = 0
    _last_truth: bool = False
    once: bool = False
    """Removed once it has stopped the run ("Run to here")."""
    graph: tuple[str, ...] | None = None
    """The graph a node, hook, wrapper or tool breakpoint is in: the node names that lead to it
    from the root graph (``()``: the root graph itself; ``("research",)``: the subgraph or agent
    the node ``research`` runs).  None: a node of that name in any graph (an agent's ``tools``
    node and the ``tools`` node of every agent it calls)."""

    def describe(self) -> str:
        what = self._what() + self._where()
        if not self.once:
            return what
        return f"run to {what.removeprefix('before ')}"  # "run to node tools"

    def _where(self) -> str:
        """Where a breakpoint in a nested graph is ("(in research)"); nothing for the root
        graph or any graph, as a pause there is described too."""
        if not self.graph or self.kind not in _IN_A_GRAPH:
            return ""
        return f" (in {' › '.join(self.graph)})"

    def _what(self) -> str:
        k = self.kind
        if k == "before_node":
            return f"before node {self.target}"
        if k == "after_node":
            return f"after node {self.target}"
        if k == "hook":
            return f"hook {self.target}.{self.detail or '*'}"
        if k == "wrapper":
            return f"wrapper {self.target}.{self.detail or '*'}"
        if k == "tool":
            return f"tool {self.target}"
        if k == "failure":
            return "any failure"
        if k == "interrupt":
            return "interrupt"
        if k == "loop":
            return "loop detected"
        cond = (
            self.condition
            if isinstance(self.condition, str)
            else getattr(self.condition, "__name__", "predicate")
        )
        return f"when {cond}"

    def matches(self, ev: EventBase, state: Callable[[], dict[str, Any] | None]) -> bool:
        if not self.enabled:
            return False
        k, kind = self.kind, ev.kind
        d = ev.__dict__
        if self.graph is not None and k in _IN_A_GRAPH and graph_path(d["ns"]) != self.graph:
            return False
        if k == "before_node":
            return kind == "node.started" and d.get("node") == self.target
        if k == "after_node":
            return kind == "node.finished" and d.get("node") == self.target
        if k == "hook":
            return (
                kind == "hook.started"
                and _same_middleware(d.get("middleware"), self.target)
                and (self.detail is None or d.get("hook") == self.detail)
            )
        if k == "wrapper":
            return (
                kind == "wrapper.started"
                and _same_middleware(d.get("middleware"), self.target)
                and (self.detail is None or d.get("wrapper") == self.detail)
            )
        if k == "tool":
            return kind == "tool.started" and d.get("tool") == self.target
        if k == "failure":
            return failure_key(ev) is not None
        if k == "interrupt":
            return kind == "interrupt.raised"
        if k == "loop":
            return kind == "loop.detected"
        if k == "state" and kind in ("state.updated", "checkpoint.saved"):
            values = state()
            if values is None:
                return False
            truth = self._evaluate(values)
            fire = truth and not self._last_truth
            self._last_truth = truth
            return fire
        return False

    def _evaluate(self, values: dict[str, Any]) -> bool:
        cond = self.condition
        try:
            if cond is None:
                return False
            if isinstance(cond, str):
                return bool(
                    eval(cond, {"__builtins__": _SAFE_BUILTINS}, {"state": values, **values})
                )
            return bool(cond(values))
        except Exception:
            return False


_IN_A_GRAPH = frozenset({"before_node", "after_node", "hook", "wrapper", "tool"})
"""The kinds a breakpoint's ``graph`` narrows down."""


def _same_middleware(actual: Any, wanted: str | None) -> bool:
    if wanted is None:
        return True
    if not isinstance(actual, str):
        return False
    return actual == wanted or actual.removesuffix("Middleware") == wanted.removesuffix(
        "Middleware"
    )


_FAILED_OUTCOME = ("attempt.finished", "wrapper.finished")
_FAILED_STATUS = ("node.finished", "tool.finished", "superstep.finished", "run.finished")


def failure_key(ev: EventBase) -> tuple[str, str] | None:
    """``(error type, message)`` when ``ev`` reports a failure, else None.

    A failure is reported by the call that failed (``model.response`` with an error, a
    ``tool.finished`` in error) and again by every span it propagates through (the attempt,
    the wrapper, the node, the run); ``FailureEchoes`` tells the first report from the echoes.
    """
    d = ev.__dict__
    kind = ev.kind
    failed = (
        (kind == "model.response" and d.get("error") is not None)
        or (kind in _FAILED_OUTCOME and d.get("outcome") == "error")
        or (kind in _FAILED_STATUS and d.get("status") == "error")
    )
    if not failed:
        return None
    err = d.get("error")
    return (str(getattr(err, "type", "") or ""), str(getattr(err, "message", "") or ""))


class FailureEchoes:
    """Remembers which spans reported which failures, so that one failure stops once.

    A failure event whose own span had a child report the same error is an echo of it (the
    attempt that wraps a failed tool call, the node the error then fails...)."""

    def __init__(self) -> None:
        self._by_parent: dict[str, set[tuple[str, str]]] = {}

    def is_echo(self, ev: EventBase) -> bool:
        """Note ``ev``; True when it reports a failure a child span already reported."""
        key = failure_key(ev)
        if key is None:
            return False
        children = self._by_parent.get(ev.span_id, set()) if ev.span_id is not None else set()
        if key == ("", ""):  # no error details (a superstep): it reports its children's failure
            echo, keys = bool(children), children or {key}
        else:
            echo, keys = key in children, {key}
        if ev.parent_span_id is not None:
            self._by_parent.setdefault(ev.parent_span_id, set()).update(keys)
        return echo
