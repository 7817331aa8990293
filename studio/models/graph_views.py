"""What the Graph dock's state hands its painters: immutable node snapshots, badges, tool calls,
the route taken, a scrubbed moment, and the change notices (plain Python, no Qt)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.events import AttemptFinished

__all__ = [
    "Badge",
    "GraphChange",
    "LiveNode",
    "Moment",
    "NodeView",
    "RouteTaken",
    "Status",
    "ToolCall",
    "attempt_badge",
    "attempt_head",
    "short_middleware",
]

Status = Literal["idle", "visited", "running", "failed", "interrupted", "pending"]
Tone = Literal["info", "warn", "error", "ok"]


@dataclass(frozen=True)
class GraphChange:
    nodes: frozenset[str] = frozenset()
    route: bool = False
    """The highlighted route changed."""
    everything: bool = False
    """Graph replaced or state reset: redraw it all."""
    edges: bool = False
    """A route was taken that the drawing has no edge for (``undrawn_routes``): lay out again."""


@dataclass(frozen=True)
class Badge:
    text: str
    tone: Tone


@dataclass(frozen=True)
class ToolCall:
    tool_call_id: str
    tool: str
    attempt: int = 1
    max_attempts: int | None = None

    @property
    def text(self) -> str:
        if self.attempt <= 1:
            return self.tool
        return f"{self.tool} (attempt {_fraction(self.attempt, self.max_attempts)})"


@dataclass(frozen=True)
class RouteTaken:
    from_node: str
    to: tuple[str, ...]


@dataclass(frozen=True)
class Moment:
    next: tuple[str, ...] = ()
    interrupts: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeView:
    """Everything a painter needs about one node, as one immutable snapshot."""

    id: str
    status: Status
    visits: int
    breakpoint: bool
    wrappers: tuple[str, ...]
    badge: Badge | None
    tool_calls: tuple[ToolCall, ...]
    error: str | None
    retried_visits: tuple[int, ...] = ()
    """The visits (1-based) in which an attempt was retried, once per retry."""

    @property
    def retry_note(self) -> str:
        """``no retries``, ``1 retry (visit 1)``, ``3 retries (visits 1, 4)``."""
        n = len(self.retried_visits)
        if not n:
            return "no retries"
        visits = sorted(set(self.retried_visits))
        where = ", ".join(str(v) for v in visits)
        return f"{n} retr{'y' if n == 1 else 'ies'} (visit{'s' if len(visits) > 1 else ''} {where})"

    cost: str = ""
    """Tokens and cost of the node's model calls (``1.2k tok · $0.003``), empty if none."""
    cost_tip: str = ""
    loop: str | None = None
    """What ``loop.detected`` said about this node in the run shown."""


@dataclass
class LiveNode:
    """One node's live state (mutable, kept by ``GraphStateModel``)."""

    visits: int = 0
    retried_visits: list[int] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    interrupted: bool = False
    badge: Badge | None = None
    calls: dict[str, ToolCall] = field(default_factory=dict)
    loop: str | None = None


def short_middleware(name: str) -> str:
    """``ModelRetryMiddleware`` -> ``ModelRetry`` (names without the suffix stay as they are)."""
    return name.removesuffix("Middleware") or name


def attempt_badge(ev: AttemptFinished) -> Badge | None:
    """The badge after an attempt ends, e.g. ``ModelRetry attempt 2/3 - TimeoutError, retrying in 1.0 s``.

    A failed attempt that will be retried announces the *next* attempt; a first attempt that
    succeeds needs no badge.
    """
    error = ev.error.type if ev.error else "error"
    if ev.outcome == "ok":
        if ev.attempt <= 1:
            return None
        return Badge(
            f"{attempt_head(ev.middleware, ev.attempt, ev.max_attempts)} - succeeded", "ok"
        )
    if not ev.will_retry:
        return Badge(
            f"{attempt_head(ev.middleware, ev.attempt, ev.max_attempts)} - {error}, giving up",
            "error",
        )
    if ev.fallback_model:
        then = f"switching to {ev.fallback_model}"
    elif ev.delay_s:
        then = (
            f"retrying in {ev.delay_s:.1f} s"
            if ev.delay_s >= 0.1
            else f"retrying in {ev.delay_s:.2f} s"
        )
    else:
        then = "retrying"
    return Badge(
        f"{attempt_head(ev.middleware, ev.attempt + 1, ev.max_attempts)} - {error}, {then}", "warn"
    )


def attempt_head(middleware: str, attempt: int, max_attempts: int | None) -> str:
    return f"{short_middleware(middleware)} attempt {_fraction(attempt, max_attempts)}"


def _fraction(attempt: int, max_attempts: int | None) -> str:
    return f"{attempt}/{max_attempts}" if max_attempts else str(attempt)
