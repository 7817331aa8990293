"""What the status bar shows about the current run, fed by events (plain Python, no Qt).

``RunStats.apply(batch)`` folds a batch of events into: the superstep, the node(s) running now,
the run's start and end (monotonic ns, as stamped on the events), how many model calls were
made and how many tokens they used.  Only the root graph's nodes count as "the current node"
(subgraph events carry ``ns``).  ``text_parts(now_ns)`` renders the status bar's fields; ``now_ns=None`` when the
run shown is not the live one (a past checkpoint, a recorded session): it ends at its latest
event, never at this process's clock.  A new run (not a resumed one) starts its clock and
its paused time from zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.events import (
    AttemptFinished,
    DebugPaused,
    EventBase,
    ModelResponse,
    NodeFinished,
    NodeStarted,
    RunStarted,
)
from studio.models.ns import ns_path

__all__ = ["RunStats", "format_elapsed"]

STATE_LABELS = {
    "idle": "Ready",
    "running": "Running",
    "paused": "Paused",
    "done": "Done",
    "interrupted": "Interrupted",
    "error": "Error",
    "cancelled": "Stopped",
    "replay": "Replay",
    "loading": "Loading",
}


def format_elapsed(seconds: float) -> str:
    """``0.4 s``, ``12.3 s``, ``2:05``, ``1:02:03``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass
class RunStats:
    """Counters of the run being shown (reset when a new run starts)."""

    superstep: int | None = None
    running: list[str] = field(default_factory=list)
    last_node: str | None = None
    started_ns: int | None = None
    finished_ns: int | None = None
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failed_attempts: int = 0
    paused_at: str | None = None
    """Where the debugger paused: "before tools", "tool.started create_file", ..."""
    paused_ns: int = 0
    """Time spent paused at breakpoints and steps (closed pauses)."""
    pause_since: int | None = None
    last_ns: int | None = None
    """The clock reading of the latest event applied: "now" for a run that is not live (a
    past checkpoint, a recorded session), whose events came from another moment or process."""

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def current_node(self) -> str | None:
        if self.running:
            return ", ".join(dict.fromkeys(self.running))
        return self.last_node

    def paused(self, now_ns: int) -> float:
        """Seconds the run has sat paused (the current pause included)."""
        open_pause = now_ns - self.pause_since if self.pause_since is not None else 0
        return (self.paused_ns + max(0, open_pause)) / 1e9

    def _now(self, now_ns: int | None) -> int:
        if now_ns is not None:
            return now_ns
        return self.last_ns if self.last_ns is not None else self.started_ns or 0

    def elapsed(self, now_ns: int | None) -> float:
        """Active seconds: from the run's start, less the time it sat paused.  ``now_ns``
        None: the run is not live, it ends at its latest event."""
        if self.started_ns is None:
            return 0.0
        end = self.finished_ns if self.finished_ns is not None else self._now(now_ns)
        return max(0.0, (end - self.started_ns) / 1e9 - self.paused(end))

    def apply(self, batch: Iterable[EventBase]) -> None:
        for ev in batch:
            self._apply(ev)

    def _apply(self, ev: EventBase) -> None:
        kind = ev.kind
        root = not ev.ns
        if ev.mono_ns:
            self.last_ns = ev.mono_ns
        if isinstance(ev, RunStarted) and root:
            before = 0
            resumed = bool(ev.resumed)
            if resumed and self.started_ns is not None and self.finished_ns is not None:
                before = self.finished_ns - self.started_ns  # a resumed run continues the clock
            elif not resumed:  # a new run: nothing of an earlier one is carried over
                self.paused_ns, self.pause_since = 0, None
            self.started_ns = ev.mono_ns - before
            self.finished_ns = None
            self.paused_at = None
        elif kind == "run.finished" and root:
            self.finished_ns = ev.mono_ns
            if self.pause_since is not None:  # a run stopped while paused: the pause ends here
                self.paused_ns += max(0, ev.mono_ns - self.pause_since)
                self.pause_since = None
            self.running.clear()
            self.paused_at = None
        elif kind == "superstep.started" and root:
            self.superstep = ev.step
        elif isinstance(ev, NodeStarted) and root:
            self.running.append(ev.node)
            self.last_node = ev.node
        elif isinstance(ev, NodeFinished) and root:
            if ev.node in self.running:
                self.running.remove(ev.node)
        elif isinstance(ev, ModelResponse):
            self.model_calls += 1
            usage = ev.usage or {}
            self.input_tokens += _int(usage.get("input_tokens"))
            self.output_tokens += _int(usage.get("output_tokens"))
        elif isinstance(ev, AttemptFinished) and ev.outcome == "error":
            self.failed_attempts += 1
        elif isinstance(ev, DebugPaused):
            self.pause_since = ev.mono_ns or None  # 0: no clock reading, nothing to time
            where = ev.breakpoint
            where = where if where else f"{ev.reason or 'step'} at {ev.at_kind}"
            inside = ns_path(ev.ns)
            # a subgraph's node of the same name as the root's: say whose (once: a breakpoint
            # set in that subgraph says so itself)
            suffix = f" (in {' › '.join(inside)})" if inside else ""
            self.paused_at = where if where.endswith(suffix) else where + suffix
        elif kind == "debug.resumed":
            self.paused_at = None
            if self.pause_since is not None:
                self.paused_ns += max(0, ev.mono_ns - self.pause_since)
                self.pause_since = None

    def _elapsed_text(self, now_ns: int | None) -> str:
        end = self.finished_ns if self.finished_ns is not None else self._now(now_ns)
        active = format_elapsed(self.elapsed(now_ns))
        paused = self.paused(end)
        return f"{active} (+{format_elapsed(paused)} paused)" if paused >= 0.05 else active

    def text_parts(
        self, status: str, now_ns: int | None, earlier: RunStats | None = None
    ) -> dict[str, str]:
        """The status bar's fields, already worded (``now_ns`` None: not live, see
        ``elapsed``); ``earlier``: the model calls of runs not applied (a session's older
        runs left unloaded) count too."""
        state = STATE_LABELS.get(status, status.capitalize())
        if status == "paused" and self.paused_at:
            state = f"Paused: {self.paused_at}"
        step = "-" if self.superstep is None else str(self.superstep)
        calls, tokens_n = self.model_calls, self.tokens
        if earlier is not None:
            calls, tokens_n = calls + earlier.model_calls, tokens_n + earlier.tokens
        tokens = f"{tokens_n:,}" if tokens_n else "0"
        return {
            "state": state,
            "step": f"Step {step}",
            "node": f"Node {self.current_node or '-'}",
            "elapsed": self._elapsed_text(now_ns),
            "models": f"{calls} model call{'s' if calls != 1 else ''}",
            "tokens": f"{tokens} tokens",
        }


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0
