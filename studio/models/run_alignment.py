"""Two runs or branches step by step, without Qt: what each node did, lined up side by side.

``node_steps(events)`` reduces a branch's events (``studio.models.branch_events``) to the node
visits it made, in order: step, node, how it ended, how long it took, and what it did in one
line (the model's answer, the tools called, the error).  ``align_steps(left, right)`` lines up
two such lists by node (a longest-common-subsequence match, so an extra step on one side shows
as a gap on the other), marking each pair ``same`` or ``changed`` (same node, different
outcome) and the unmatched ones ``left_only`` / ``right_only``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.events import (
    CheckpointSaved,
    EventBase,
    ModelResponse,
    NodeFinished,
    StateUpdated,
    ToolFinished,
)

__all__ = ["AlignedStep", "NodeStep", "align_steps", "node_steps"]

_MAX = 90


@dataclass(frozen=True)
class NodeStep:
    step: int | None
    node: str
    status: str
    duration_ms: float
    did: str
    """What the visit did, in one line."""
    run_id: str = ""

    @property
    def outcome(self) -> tuple[str, str, str]:
        return (self.node, self.status, self.did)


@dataclass(frozen=True)
class AlignedStep:
    left: NodeStep | None
    right: NodeStep | None
    status: Literal["same", "changed", "left_only", "right_only"]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX else text[: _MAX - 1] + "…"


def _answer(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    calls = [c.get("name") for c in message.get("tool_calls") or () if isinstance(c, dict)]
    if calls:
        return "calls " + ", ".join(str(c) for c in calls)
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return f"“{_short(str(content or ''))}”"


def node_steps(events: Iterable[EventBase]) -> list[NodeStep]:
    """The node visits of a run or branch (root graph only), in the order they finished."""
    opened: dict[tuple[str, str], EventBase] = {}
    node_of_span: dict[tuple[str, str], tuple[str, str]] = {}
    did: dict[tuple[str, str], list[str]] = {}
    out: list[NodeStep] = []
    edits: dict[str, list[Any]] = {}
    for ev in events:
        if ev.ns:
            continue
        if isinstance(ev, StateUpdated) and not ev.span_id and not ev.parent_span_id:
            edits[ev.run_id] = list(ev.changes or [])
            continue
        if isinstance(ev, CheckpointSaved) and ev.source == "update":
            out.append(_edit_step(ev, edits.pop(ev.run_id, [])))
            continue
        key = (ev.run_id, ev.span_id or "")
        if ev.kind == "node.started" and ev.span_id:
            opened[key] = ev
            node_of_span[key] = key
            did[key] = []
            continue
        parent = (ev.run_id, ev.parent_span_id or "")
        if ev.span_id and parent in node_of_span and key not in node_of_span:
            node_of_span[key] = node_of_span[parent]
        owner = node_of_span.get(parent) or node_of_span.get(key)
        if isinstance(ev, ModelResponse) and owner in did:
            if ev.error is None:
                did[owner].append(_answer(ev.message))
        elif isinstance(ev, ToolFinished) and owner in did:
            ok = ev.status != "error"
            did[owner].append(f"{ev.tool} {'✓' if ok else '✗'}")
        elif ev.kind == "interrupt.raised" and owner in did:
            did[owner].append("interrupted")
        elif isinstance(ev, NodeFinished) and key in opened:
            start = opened.pop(key)
            parts = [p for p in did.pop(key, []) if p]
            error = ev.error  # an ErrorInfo, or its dict in an event built by model_construct
            if error is not None:
                etype = getattr(error, "type", None) or (
                    error.get("type") if isinstance(error, dict) else ""
                )
                parts.append(f"failed: {etype}")
            if ev.cached:
                parts.append("cached")
            out.append(
                NodeStep(
                    step=start.step,
                    node=str(ev.node),
                    status=str(ev.status),
                    duration_ms=float(ev.duration_ms or 0.0),
                    did=_short("; ".join(parts)),
                    run_id=ev.run_id,
                )
            )
    return out


def _by_node(left: Sequence[NodeStep], right: Sequence[NodeStep]) -> list[AlignedStep]:
    """Steps whose outcomes differ, paired by node where the order allows."""
    rows: list[AlignedStep] = []
    matcher = difflib.SequenceMatcher(
        a=[s.node for s in left], b=[s.node for s in right], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for x, y in zip(left[i1:i2], right[j1:j2], strict=True):
                rows.append(AlignedStep(x, y, "same" if x.outcome == y.outcome else "changed"))
            continue
        rows.extend(AlignedStep(x, None, "left_only") for x in left[i1:i2])
        rows.extend(AlignedStep(None, y, "right_only") for y in right[j1:j2])
    return rows


def _edit_step(ev: CheckpointSaved, changes: list[Any]) -> NodeStep:
    """A state edit (``update_state``) as a step of the node it was made as."""
    writers = ev.writer_nodes or []
    answer = ""
    for change in changes:
        if not isinstance(change, dict) or change.get("channel") != "messages":
            continue
        new = change.get("appended") or change.get("value") or []
        if isinstance(new, list) and new:
            answer = _answer(new[-1]) if isinstance(new[-1], dict) else ""
    did = "state edited" + (f": {answer}" if answer else "")
    node = str(writers[0]) if writers else "update_state"
    return NodeStep(ev.step, node, "edited", 0.0, _short(did), ev.run_id)


def align_steps(left: Sequence[NodeStep], right: Sequence[NodeStep]) -> list[AlignedStep]:
    """Line up two visit lists: identical visits first (node and outcome), then, between
    them, visits of the same node (``changed``) and the ones only one side made."""
    rows: list[AlignedStep] = []
    matcher = difflib.SequenceMatcher(
        a=[s.outcome for s in left], b=[s.outcome for s in right], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows.extend(
                AlignedStep(x, y, "same") for x, y in zip(left[i1:i2], right[j1:j2], strict=True)
            )
        else:
            rows.extend(_by_node(left[i1:i2], right[j1:j2]))
    return rows
