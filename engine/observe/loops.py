"""Loop detection: a run that keeps doing the same thing is said, as a ``loop.detected`` event.

``LoopWatch`` reads one run's events as they are delivered (``RunEmitter`` feeds it) and finds
two patterns:

- **repeated call**: the same tool called with the same arguments ``repeat`` times (3) in the
  run;
- **failing calls**: a model whose answers are only tool calls that fail (an unknown tool,
  arguments that do not validate, a tool that raises), ``failing`` answers (3) in a row.

Each is reported when it reaches its threshold and again at every further multiple of it (so a
"break on loop" stops again if the loop goes on).  The watch keeps the open spans (to know the
node an event belongs to), one counter per distinct tool call, and the calls of the answers
still waiting for their results: its memory is bounded by the run's distinct calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase

__all__ = ["FAILING_ANSWERS", "REPEATED_CALLS", "LoopWatch"]

REPEATED_CALLS = 3
"""The same tool call (name and arguments) this many times in a run is a loop."""
FAILING_ANSWERS = 3
"""This many model answers in a row made only of failing tool calls is a loop."""


@dataclass
class _Repeat:
    count: int = 0
    seqs: list[int] = field(default_factory=list)


@dataclass
class _Answer:
    """A model answer's tool calls, waiting for their results."""

    lane: str
    node: str
    seq: int
    pending: set[str]
    failed: int = 0
    ok: int = 0


@dataclass
class _Lane:
    """The answers of one model (by graph namespace and node) in a row."""

    streak: int = 0
    seqs: list[int] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


class LoopWatch:
    """Reads a run's events; ``see(ev)`` returns the fields of a ``loop.detected`` event when
    ``ev`` completes a loop (see the module docstring)."""

    def __init__(self, repeat: int = REPEATED_CALLS, failing: int = FAILING_ANSWERS) -> None:
        self.repeat = max(2, repeat)
        self.failing = max(1, failing)
        self._spans: dict[str, tuple[str, str | None]] = {}
        """Open span -> (the node it belongs to, the node's own span)."""
        self._calls: dict[tuple[str, str, str], _Repeat] = {}
        self._answers: dict[str, _Answer] = {}
        """Tool call id -> the answer that made it."""
        self._lanes: dict[str, _Lane] = {}

    def see(self, ev: EventBase) -> dict[str, Any] | None:
        # read from the event's __dict__: a pydantic attribute goes through its __getattr__ hook
        d = ev.__dict__
        kind = d["kind"]  # loop.detected and debug.* neither open nor close a span
        if kind in SPAN_CLOSERS:
            found = self._closing(ev)
            span_id = d["span_id"]
            if span_id:
                self._spans.pop(span_id, None)
            return found
        if kind in SPAN_OPENERS:
            span_id = d["span_id"]
            if span_id:
                if kind == "node.started":
                    self._spans[span_id] = (str(d.get("node") or ""), span_id)
                    return None
                parent = self._spans.get(d["parent_span_id"] or "")
                self._spans[span_id] = parent if parent is not None else ("", None)
                if kind == "tool.started":
                    return self._tool_started(ev)
        return None

    # -- spans -----------------------------------------------------------------------------------

    def where(self, ev: EventBase) -> tuple[str, str | None]:
        """(node, the node's span) of an event, from its own or its parent span."""
        return (
            self._spans.get(ev.span_id or "")
            or self._spans.get(ev.parent_span_id or "")
            or ("", None)
        )

    # -- repeated calls --------------------------------------------------------------------------

    def _tool_started(self, ev: EventBase) -> dict[str, Any] | None:
        d = ev.__dict__
        tool = str(d.get("tool") or "")
        args = d.get("args")
        key = (ev.ns, tool, _canonical(args))
        rep = self._calls.get(key)
        if rep is None:
            rep = self._calls[key] = _Repeat()
        rep.count += 1
        rep.seqs.append(ev.seq)
        del rep.seqs[: -self.repeat]
        if rep.count % self.repeat:
            return None
        node, node_span = self.where(ev)
        return {
            "loop": "repeated_call",
            "node": node,
            "tool": tool,
            "args": args,
            "count": rep.count,
            "detail": f"{tool}({_short(args)}) called {rep.count} times with the same arguments",
            "seqs": list(rep.seqs),
            "parent_span_id": node_span or ev.parent_span_id,
        }

    # -- answers made only of failing calls ------------------------------------------------------

    def _closing(self, ev: EventBase) -> dict[str, Any] | None:
        if ev.kind == "model.response":
            self._answered(ev)
        elif ev.kind == "tool.finished":
            return self._tool_finished(ev)
        return None

    def _answered(self, ev: EventBase) -> None:
        d = ev.__dict__
        if d.get("error") is not None:
            return  # a failed call is not an answer (retries are another story)
        message = d.get("message")
        calls = _calls_of(message)
        node, _ = self.where(ev)
        lane = f"{ev.ns}|{node}"
        if not calls:
            self._lanes.pop(lane, None)  # a plain answer ends any streak
            return
        answer = _Answer(lane, node, ev.seq, {c for c, _ in calls})
        for call_id, _name in calls:
            self._answers[call_id] = answer
        state = self._lanes.setdefault(lane, _Lane())
        state.tools = [name for _, name in calls]

    def _tool_finished(self, ev: EventBase) -> dict[str, Any] | None:
        d = ev.__dict__
        call_id = d.get("tool_call_id")
        answer = self._answers.pop(call_id, None) if isinstance(call_id, str) else None
        if answer is None:
            return None
        answer.pending.discard(call_id)  # type: ignore[arg-type]
        failed = d.get("status") == "error" or d.get("error") is not None
        if failed:
            answer.failed += 1
        else:
            answer.ok += 1
        if answer.pending:
            return None
        lane = self._lanes.setdefault(answer.lane, _Lane())
        if answer.ok:
            lane.streak, lane.seqs = 0, []
            return None
        lane.streak += 1
        lane.seqs.append(answer.seq)
        del lane.seqs[: -self.failing]
        if lane.streak % self.failing:
            return None
        tools = ", ".join(dict.fromkeys(lane.tools)) or "tools"
        return {
            "loop": "failing_calls",
            "node": answer.node,
            "tool": lane.tools[0] if len(set(lane.tools)) == 1 else None,
            "count": lane.streak,
            "detail": (
                f"the model's last {lane.streak} answers were only tool calls that failed"
                f" (last: {tools})"
            ),
            "seqs": list(lane.seqs),
            "parent_span_id": self.where(ev)[1] or ev.parent_span_id,
        }


def _calls_of(message: Any) -> list[tuple[str, str]]:
    """(id, name) of an answer's tool calls, the invalid ones included."""
    if not isinstance(message, dict):
        return []
    out: list[tuple[str, str]] = []
    for key in ("tool_calls", "invalid_tool_calls"):
        for call in message.get(key) or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                out.append((call["id"], str(call.get("name") or "")))
    return out


def _canonical(args: Any) -> str:
    try:
        return json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(args)


def _short(args: Any, width: int = 60) -> str:
    text = _canonical(args) if not isinstance(args, str) else args
    if isinstance(args, dict) and len(args) == 1:
        text = _canonical(next(iter(args.values())))
    return text if len(text) <= width else text[: width - 1] + "…"
