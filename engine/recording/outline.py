"""The outline of recorded runs: their spans and model responses, read without their events.

A replay loads a long session's newest runs only (``studio.history.replay``), yet what the
whole thread spent and how often each node ran are the older runs' too.  Decoding those runs'
events to count them would cost seconds (about 160 us an event); their outline costs a
fraction: SQLite reads each span opener's ids, node, namespace and attempt out of the
recorded JSON itself, and only the model responses (one or two an agent turn) are decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.events import SPAN_OPENERS, EventBase, ModelResponse

__all__ = ["RunsOutline", "SpanRow", "read_outline"]


@dataclass(frozen=True)
class SpanRow:
    """One span opener of a recorded run."""

    kind: str
    span_id: str
    parent_span_id: str | None
    node: str | None
    ns: str
    attempt: int
    """A ``node.started``'s attempt (1: a visit; more: a retry of it)."""


@dataclass
class RunsOutline:
    spans: list[SpanRow] = field(default_factory=list)
    responses: list[ModelResponse] = field(default_factory=list)
    forked: bool = False
    """A root run among them started from a chosen checkpoint (a fork, a replay): the runs do
    not all lie on one line of checkpoints."""


_KINDS = (*SPAN_OPENERS, "model.response")
_SQL = (
    "SELECT kind, span_id, parent_span_id, node,"
    " CASE WHEN json_valid(data) THEN json_extract(data, '$.ns') END,"
    " CASE WHEN json_valid(data) AND kind='node.started' THEN json_extract(data, '$.attempt') END,"
    " CASE WHEN json_valid(data) AND kind='run.started'"
    "  THEN json_extract(data, '$.config.checkpoint_id') END,"
    " CASE WHEN kind='model.response' THEN data END"
    " FROM session_events WHERE run IN ({runs}) AND kind IN ({kinds}) ORDER BY run, seq"
)
_CHUNK = 400
"""Runs read by one query (SQLite binds at most 999 values in older builds)."""


def read_outline(
    query: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]],
    runs: Sequence[int],
    decode: Callable[[str], EventBase],
    *,
    starts_only: bool = False,
) -> RunsOutline:
    """The outline of the runs numbered ``runs`` (their rows in ``session_events``), in order.
    ``decode`` reads a model response's JSON (raising ``SessionError`` on damage).
    ``starts_only``: read the runs' starts only (``forked``; their ``run.started`` spans)."""
    out = RunsOutline()
    kinds = ("run.started",) if starts_only else _KINDS
    for i in range(0, len(runs), _CHUNK):
        chunk = runs[i : i + _CHUNK]
        sql = _SQL.format(runs=",".join("?" * len(chunk)), kinds=",".join("?" * len(kinds)))
        for kind, span, parent, node, ns, attempt, start_at, response in query(
            sql, (*chunk, *kinds)
        ):
            if response is not None:
                ev = decode(response)
                if isinstance(ev, ModelResponse):
                    out.responses.append(ev)
                continue
            if kind == "run.started" and not ns and start_at:
                out.forked = True
            if span:
                out.spans.append(
                    SpanRow(
                        str(kind),
                        str(span),
                        None if parent is None else str(parent),
                        None if node is None else str(node),
                        str(ns or ""),
                        attempt if isinstance(attempt, int) else 1,
                    )
                )
    return out
