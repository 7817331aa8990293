"""The outline of recorded runs: their spans and model responses, read without their events;
and the span openers a part of a run refers to (``OutlineReads``, which ``Session`` has).

A replay loads a long session's newest runs only (``studio.history.replay``), yet what the
whole thread spent and how often each node ran are the older runs' too.  Decoding those runs'
events to count them would cost seconds (about 160 us an event); their outline costs a
fraction: SQLite reads each span opener's ids, node, namespace and attempt out of the
recorded JSON itself, and only the model responses (one or two an agent turn) are decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.events import SPAN_OPENERS, EventBase, ModelResponse

__all__ = ["CheckpointAt", "OutlineReads", "RunsOutline", "SpanRow", "read_outline"]


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
    at: tuple[int, int] = (0, 0)
    """Where it lies: its run's row number in the file and its ``seq`` (rows come in order)."""


@dataclass(frozen=True)
class CheckpointAt:
    """Where a root checkpoint of the runs was saved, and its superstep."""

    at: tuple[int, int]
    """Its ``checkpoint.saved``'s run row number and ``seq``."""
    step: int | None
    parent_id: str | None = None
    place: Literal["unloaded run", "left out", "loaded"] = "unloaded run"
    """Where its ``checkpoint.saved`` is: in a run read whole ("unloaded run"), or in a run
    read in part (``read_outline``'s ``loaded``: a run cut at the load limit), in the part left
    out ("left out") or in the part loaded ("loaded")."""


@dataclass
class RunsOutline:
    spans: list[SpanRow] = field(default_factory=list)
    responses: list[ModelResponse] = field(default_factory=list)
    response_at: list[tuple[int, int]] = field(default_factory=list)
    """Where each of ``responses`` lies (as ``SpanRow.at``)."""
    checkpoints: dict[str, CheckpointAt] = field(default_factory=dict)
    """The runs' root checkpoints by id (loaded ones too), so figures can be counted up to
    any of them."""
    forked: bool = False
    """A root run among them started from a chosen checkpoint (a fork, a replay): the runs do
    not all lie on one line of checkpoints."""


_KINDS = (*SPAN_OPENERS, "model.response")
_SQL = (
    "SELECT run, seq, kind, span_id, parent_span_id, node,"
    " CASE WHEN json_valid(data) THEN json_extract(data, '$.ns') END,"
    " CASE WHEN json_valid(data) AND kind='node.started' THEN json_extract(data, '$.attempt') END,"
    " CASE WHEN json_valid(data) AND kind='run.started'"
    "  THEN json_extract(data, '$.config.checkpoint_id') END,"
    " CASE WHEN kind='model.response' THEN data END"
    " FROM session_events INDEXED BY session_events_kind"
    " WHERE run IN ({runs}) AND kind IN ({kinds}) ORDER BY run, seq"
)
_THREADS_SQL = "SELECT DISTINCT thread_id FROM session_runs WHERE id IN ({runs})"
_CHECKPOINTS_SQL = (
    "SELECT checkpoint_id, run, seq, step, parent_id FROM session_checkpoints"
    " WHERE thread_id=? AND ns=''"
)
_CHUNK = 400
"""Runs read by one query (SQLite binds at most 999 values in older builds)."""


def read_outline(
    query: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]],
    runs: Sequence[int],
    decode: Callable[[str], EventBase],
    *,
    starts_only: bool = False,
    loaded: Mapping[int, Callable[[int], bool]] | None = None,
) -> RunsOutline:
    """The outline of the runs numbered ``runs`` (their rows in ``session_events``), in order.
    ``decode`` reads a model response's JSON (raising ``SessionError`` on damage).
    ``starts_only``: read the runs' starts only (``forked``; their ``run.started`` spans).
    ``loaded``: per run, which of its events (by ``seq``) are loaded: those are left out."""
    out = RunsOutline()
    threads: set[str] = set()
    loaded = loaded or {}
    kinds = ("run.started",) if starts_only else _KINDS
    for i in range(0, len(runs), _CHUNK):
        chunk = runs[i : i + _CHUNK]
        sql = _SQL.format(runs=",".join("?" * len(chunk)), kinds=",".join("?" * len(kinds)))
        for run, seq, kind, span, parent, node, ns, attempt, start_at, response in query(
            sql, (*chunk, *kinds)
        ):
            skip = loaded.get(run)
            if skip is not None and skip(seq):
                continue
            if response is not None:
                ev = decode(response)
                if isinstance(ev, ModelResponse):
                    out.responses.append(ev)
                    out.response_at.append((run, seq))
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
                        (run, seq),
                    )
                )
        if not starts_only:
            sql = _THREADS_SQL.format(runs=",".join("?" * len(chunk)))
            threads.update(t for (t,) in query(sql, chunk) if t is not None)
    wanted = set(runs)
    for thread in sorted(threads):  # the threads' root checkpoints: a range of the key
        for cid, run, seq, step, parent in query(_CHECKPOINTS_SQL, (thread,)):
            if run in wanted:
                skip = loaded.get(run)
                out.checkpoints[str(cid)] = CheckpointAt(
                    (run, seq),
                    step if isinstance(step, int) else None,
                    None if parent is None else str(parent),
                    _place(skip, seq),
                )
    return out


def _place(
    loaded: Callable[[int], bool] | None, seq: int | None
) -> Literal["unloaded run", "left out", "loaded"]:
    if loaded is None:
        return "unloaded run"
    return "loaded" if seq is not None and loaded(seq) else "left out"


class OutlineReads:
    """The reads of a session file that skip most of a run's events (``Session`` has them):
    runs' outlines, and the span openers a part of a run refers to."""

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _run_index(self, run_id: str) -> int:
        raise NotImplementedError

    def _decode_whole(self, text: str) -> EventBase:
        raise NotImplementedError

    def outline(
        self,
        run_ids: Sequence[str],
        *,
        starts_only: bool = False,
        loaded: Mapping[str, Callable[[int], bool]] | None = None,
    ) -> RunsOutline:
        """The spans and model responses of some runs, read without their other events;
        ``loaded``: per run id, which of its events (by ``seq``) to leave out."""
        runs = [self._run_index(r) for r in run_ids]
        by_index = {self._run_index(r): keep for r, keep in (loaded or {}).items()}
        return read_outline(
            self._query, runs, self._decode_whole, starts_only=starts_only, loaded=by_index
        )

    def span_openers(self, run_id: str, span_ids: Sequence[str]) -> list[EventBase]:
        """The events of a run that opened the spans ``span_ids`` (those it recorded), in
        order."""
        if not span_ids:
            return []
        rows = self._query(
            f"SELECT data FROM session_events WHERE run=? AND kind IN ({_OPENERS})"
            f" AND span_id IN ({','.join('?' * len(span_ids))}) ORDER BY seq",
            (self._run_index(run_id), *SPAN_OPENERS, *span_ids),
        )
        return [self._decode_whole(r[0]) for r in rows]

    def checkpoint_seq(self, run_id: str, checkpoint_id: str) -> int | None:
        """The ``seq`` of the run's ``checkpoint.saved`` of ``checkpoint_id`` (None: the run
        saved no such checkpoint)."""
        rows = self._query(
            "SELECT seq FROM session_checkpoints WHERE checkpoint_id=? AND run=?",
            (checkpoint_id, self._run_index(run_id)),
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def step_start(self, run_id: str, seq: int) -> int | None:
        """The ``seq`` of the run's first root superstep to start at or after ``seq``."""
        rows = self._query(
            "SELECT MIN(seq) FROM session_events INDEXED BY session_events_kind"
            " WHERE kind='superstep.started' AND run=? AND seq>=?"
            " AND json_valid(data) AND json_extract(data, '$.ns')=''",
            (self._run_index(run_id), seq),
        )
        found = rows[0][0] if rows else None
        return int(found) if found is not None else None


_OPENERS = ",".join("?" * len(SPAN_OPENERS))
