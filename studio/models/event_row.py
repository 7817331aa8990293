"""A row of the event log: one span (opening event + closing event) or one point event.

Plain Python, no Qt.  ``Row`` keeps what the views need cheaply: the events, the tree links,
the node and middleware it belongs to, failure flags and, for model calls, the streamed tokens
(a counter and the text).  Its summary and search text are computed lazily and cached until
the row changes.
"""

from __future__ import annotations

from typing import Any

from engine.events import (
    SPAN_OPENERS,
    AttemptFinished,
    DebugPaused,
    EventBase,
    HookFinished,
    InterruptRaised,
    LoopDetected,
    MiddlewareAction,
    ModelResponse,
    NodeFinished,
    PlanStep,
    RunFinished,
    SuperstepFinished,
    ToolFinished,
    ToolStarted,
    WrapperFinished,
)
from studio.models.event_summary import error_text, is_stop, short, summarize

__all__ = [
    "CONTAINS_FAILURE",
    "FAILED",
    "FAMILIES",
    "INTERRUPTED",
    "LOOP",
    "TOKEN",
    "Row",
    "family",
    "status_flags",
]

FAILED = 1
"""The row's own span or event failed (an error attempt, tool, node, model call...)."""
CONTAINS_FAILURE = 2
"""A descendant failed."""
INTERRUPTED = 4
LOOP = 8
"""The row reports a loop (``loop.detected``)."""

#: Kind families offered by the kind filter, in tree order.
FAMILIES = (
    "run",
    "superstep",
    "node",
    "hook",
    "wrapper",
    "attempt",
    "model",
    "tool",
    "route",
    "state",
    "checkpoint",
    "interrupt",
    "middleware",
    "plan",
    "custom",
    "store",
    "loop",
)
"""(Debugger pauses are marks on the row they happened at, not rows: no "debug" family.)"""
TOKEN = "model.token"
_EMPTY: list[Row] = []


def family(kind: str) -> str:
    """``"attempt.finished"`` → ``"attempt"``; ``"middleware.action"`` → ``"middleware"``."""
    return kind.split(".", 1)[0]


def status_flags(ev: EventBase) -> int:
    # ``error`` read off the fields (events without one: ``getattr`` would have pydantic raise
    # and catch an AttributeError), the rule looked up by the event's class (a ``match`` of
    # class patterns is an isinstance per case): a fifth of what it was per event
    if is_stop(ev.__dict__.get("error")):  # declared by the events that can fail
        return 0  # cut short by the user's Stop: not a failure
    cls = type(ev)
    rule = _STATUS_RULES.get(cls)
    if rule is None:
        rule = _STATUS_RULES[cls] = next(
            (r for classes, r in _STATUS_BY_CLASS if issubclass(cls, classes)), _no_status
        )
    return rule(ev)


def _outcome(ev: Any) -> int:
    outcome = ev.outcome
    return FAILED if outcome == "error" else INTERRUPTED if outcome == "interrupted" else 0


def _status(ev: Any) -> int:
    status = ev.status
    return FAILED if status == "error" else INTERRUPTED if status == "interrupted" else 0


def _no_status(_ev: Any) -> int:
    return 0


_FAILED_ACTIONS = frozenset({"retry_exhausted", "checkpoint_not_saved", "checkpoint_save_unknown"})
"""Middleware actions that report a failure: retries used up, and a checkpoint the app's saver
failed to save (or whose save was cut off with the connection: ``engine.attach.save_outcome``)."""

_STATUS_BY_CLASS: tuple[tuple[type | tuple[type, ...], Any], ...] = (
    ((AttemptFinished, WrapperFinished), _outcome),
    ((NodeFinished, SuperstepFinished, RunFinished), _status),
    (ToolFinished, lambda ev: FAILED if ev.status == "error" or ev.error else 0),
    (ModelResponse, lambda ev: FAILED if ev.error else 0),
    (HookFinished, lambda ev: FAILED if ev.error else _outcome(ev)),
    (PlanStep, lambda ev: FAILED if ev.status == "failed" else 0),
    (MiddlewareAction, lambda ev: FAILED if ev.action in _FAILED_ACTIONS else 0),
    (InterruptRaised, lambda _ev: INTERRUPTED),
    (LoopDetected, lambda _ev: LOOP),
)
"""The status rule of each kind of event, first match (as the cases of a ``match``)."""
_STATUS_RULES: dict[type, Any] = {}
"""Event class -> its rule in ``_STATUS_BY_CLASS``."""


class Row:
    """One line of the log: a span (``event`` opens it, ``end`` closes it) or a point event."""

    __slots__ = (
        "_hay",
        "_summary",
        "children",
        "end",
        "event",
        "flags",
        "index",
        "kind",
        "middleware",
        "node",
        "parent",
        "paused_at",
        "paused_ms",
        "pauses",
        "streamed",
        "tokens",
        "uid",
    )

    def __init__(self, uid: int, kind: str, event: Any, parent: Row | None, index: int) -> None:
        self.uid = uid
        self.kind = kind
        """The opening event's kind (for a lone closer: the kind of the opener it lacks)."""
        self.event: EventBase = event
        self.end: EventBase | None = None
        self.parent = parent
        self.children: list[Row] = []
        self.index = index
        """Position among ``parent.children`` (all children, not only the visible ones)."""
        self.node: str | None = None
        """The graph node this row belongs to (its own, else inherited)."""
        self.middleware: str | None = None
        """The middleware this row belongs to (its own, else the nearest ancestor's)."""
        self.flags = 0
        self.paused_at = 0.0
        """Time the run had spent paused (ms) when this row opened."""
        self.paused_ms = 0.0
        """Time spent paused (breakpoints, steps) while this span was open."""
        self.pauses: list[DebugPaused] | None = None
        """The ``debug.paused`` events of the times the run paused at this row's event (a
        mark on the row, not rows of their own)."""
        self.tokens = 0
        self.streamed: list[str] | None = None
        self._summary: str | None = None
        self._hay: str | None = None

    def __repr__(self) -> str:
        return f"Row({self.uid}, {self.summary()!r})"

    @property
    def family(self) -> str:
        return family(self.kind)

    @property
    def is_span(self) -> bool:
        return self.kind in SPAN_OPENERS

    @property
    def is_open(self) -> bool:
        return self.kind in SPAN_OPENERS and self.end is None

    @property
    def failed(self) -> bool:
        return bool(self.flags & FAILED)

    @property
    def contains_failure(self) -> bool:
        return bool(self.flags & CONTAINS_FAILURE)

    @property
    def interrupted(self) -> bool:
        return bool(self.flags & INTERRUPTED)

    @property
    def loop(self) -> bool:
        return bool(self.flags & LOOP)

    @property
    def seq(self) -> int:
        return self.event.seq

    @property
    def events(self) -> list[EventBase]:
        """The row's own events: the opener and the closer (tokens are not listed)."""
        if self.end is None or self.end is self.event:
            return [self.event]
        return [self.event, self.end]

    @property
    def streamed_text(self) -> str:
        return "".join(self.streamed) if self.streamed else ""

    def pause_note(self) -> str:
        """``▮▮`` / ``▮▮×3`` when the run paused at this row, else empty (a glyph common fonts have)."""
        n = len(self.pauses) if self.pauses else 0
        return "" if not n else "▮▮" if n == 1 else f"▮▮×{n}"

    def own_middleware(self) -> str | None:
        # the hooks, wrappers, attempts and actions of a middleware declare ``middleware``
        return getattr(self.event, "middleware", None) if self.event is not None else None

    def summary(self) -> str:
        if self._summary is None:
            self._summary = summarize(
                self.kind,
                self.event,
                self.end,
                step=self.event.step,
                tokens=self.tokens,
                streamed=self._tail(),
                paused_ms=self.paused_ms,
            )
        return self._summary

    def haystack(self) -> str:
        """Lower-case text the free-text filter searches: summary, node, kind, payload bits."""
        if self._hay is None:
            d, e = self.event, self.end
            extra = [self.kind, self.node or "", self.middleware or ""]
            if isinstance(e, ModelResponse) and e.message is not None:
                extra.append(short(e.message, 2000))
            elif self.kind == "tool.started":
                extra.append(short(d.args if isinstance(d, ToolStarted) else None, 1000))
                extra.append(short(e.result if isinstance(e, ToolFinished) else None, 1000))
            # declared by the closers and the events that can fail
            err = getattr(e, "error", None) or getattr(d, "error", None)
            if err is not None:
                extra.append(error_text(err, 1000))
            self._hay = " ".join([self.summary(), *extra]).lower()
        return self._hay

    def wall_ms(self) -> float | None:
        """Wall-clock time from the span's start to its end (paused time included)."""
        if self.end is None or self.end is self.event:
            return None
        e = self.end  # closers declare ``duration_ms``, except ``model.response``: ``latency_ms``
        ms = getattr(e, "duration_ms", None) or getattr(e, "latency_ms", None)
        if isinstance(ms, int | float) and ms > 0:
            return float(ms)
        if self.end.mono_ns and self.event.mono_ns:
            return (self.end.mono_ns - self.event.mono_ns) / 1e6
        return None

    def duration_ms(self) -> float | None:
        """Active time: the wall-clock duration less the time the run sat paused inside it."""
        wall = self.wall_ms()
        return None if wall is None else max(0.0, wall - self.paused_ms)

    def _tail(self, width: int = 80) -> str:
        if not self.streamed:
            return ""
        parts: list[str] = []
        size = 0
        for piece in reversed(self.streamed):
            parts.append(piece)
            size += len(piece)
            if size >= width:
                break
        return "".join(reversed(parts))[-width:]

    def _touched(self) -> None:
        self._summary = None
        self._hay = None
