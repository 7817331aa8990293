"""The rows a batch of events writes to a session file, made before the file is locked.

Besides its ``session_events`` row, a run's first and last events update its
``session_runs`` row and a ``checkpoint.saved`` adds a ``session_checkpoints`` row.  They are
all made on the writer thread before it takes the file's write lock (the run's own checkpoint
writes wait for that lock), each naming its run by id: numbering a new run is the one thing
done in the transaction (``SessionRecorder._commit``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase
from engine.recording.filtered import TextFilter, filter_strings
from engine.redaction import scrub
from engine.serde import to_jsonable

__all__ = ["INSERT_CHECKPOINT", "INSERT_EVENT", "BatchRows", "dumps_filtered", "insert_events"]


def dumps_filtered(value: Any, filters: list[TextFilter] | None = None) -> str | None:
    """A run row's value as JSON text, filtered and scrubbed (None stays NULL)."""
    if value is None:
        return None
    if not filters:
        try:  # an event's payload is plain JSON already: ``to_jsonable`` would copy it as it is
            return scrub(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        except (TypeError, ValueError):  # not plain JSON after all: rendered as always
            pass
    data = filter_strings(to_jsonable(value), filters or [])
    return scrub(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


INSERT_EVENT = (
    "INSERT OR IGNORE INTO session_events(run, seq, kind, step, node, span_id, parent_span_id, ts, data) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_CHUNKS = (64, 16, 4)
"""Rows per statement of ``insert_events``: a few sizes (each is prepared once per connection),
the largest with 576 parameters (SQLite before 3.32 takes at most 999 in a statement)."""
_INSERT_ROWS = {
    n: INSERT_EVENT.replace(
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "VALUES " + ",".join(["(?,?,?,?,?,?,?,?,?)"] * n)
    )
    for n in _CHUNKS
}


def insert_events(conn: sqlite3.Connection, rows: list[list[Any]]) -> None:
    """``conn.executemany(INSERT_EVENT, rows)``: the same rows in the same order (a row whose
    ``(run, seq)`` is there already ignored, as there), most of them in statements of many rows
    each.  Every statement costs a step and a reset of SQLite's VM, its mutexes and a hand-over
    of Python's interpreter lock around the step; ``executemany`` pays them for every row, a
    many-row statement once for all its rows (a seed-000 run's events: 13.7M -> 12.6M
    instructions written)."""
    i, n = 0, len(rows)
    for size in _CHUNKS:
        if n - i >= size:
            sql = _INSERT_ROWS[size]
            while n - i >= size:
                conn.executemany(sql, [[v for r in rows[i : i + size] for v in r]])
                i += size
    if i < n:
        conn.executemany(INSERT_EVENT, rows[i:] if i else rows)


INSERT_CHECKPOINT = (
    "INSERT OR REPLACE INTO session_checkpoints"
    "(thread_id, ns, checkpoint_id, run, seq, parent_id, step, source, next) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


_NOTED_KINDS = frozenset({"run.started", "run.finished", "checkpoint.saved"})
"""The kinds whose events say something about their run or checkpoint (``BatchRows._note``)."""


class BatchRows:
    """What one batch writes besides its events: its runs (id -> thread), their rows'
    updates and its checkpoints' rows, each naming its run by id until the run is numbered."""

    __slots__ = ("checkpoints", "filters", "runs", "shape_by_name", "span_node", "updates")

    def __init__(
        self,
        span_node: dict[str, str],
        shape_by_name: dict[str, str],
        filters: list[TextFilter],
    ) -> None:
        self.span_node = span_node
        """The node each open span runs in (the recorder's, kept from batch to batch)."""
        self.shape_by_name = shape_by_name
        self.filters = filters
        self.runs: dict[str, str | None] = {}
        self.updates: list[tuple[str, tuple[Any, ...]]] = []
        self.checkpoints: list[tuple[Any, ...]] = []

    def row(self, ev: EventBase, shape: str | None, text: str) -> list[Any]:
        """The ``session_events`` row of ``ev`` (whose JSON is ``text``; its run named by id,
        for ``_commit`` to number), noting in ``plan`` what it says about its run and
        checkpoint.  Fields are read from the event's ``__dict__`` (a pydantic attribute goes
        through its ``__getattr__`` hook): this runs for every event written."""
        d = ev.__dict__
        run_id = d["run_id"]
        if run_id not in self.runs:
            self.runs[run_id] = d["thread_id"]
        kind = d["kind"]
        if kind in _NOTED_KINDS:
            self._note(d, kind, run_id, shape)
        parent = d["parent_span_id"]
        node = d.get("node") or d.get("from_node") or self.span_node.get(parent or "")
        span_id = d["span_id"]
        if span_id:
            if kind in SPAN_OPENERS:
                if node:
                    self.span_node[span_id] = node
            elif kind in SPAN_CLOSERS:
                self.span_node.pop(span_id, None)
        # a list: ``_commit`` puts the run's number in place of its id
        return [run_id, d["seq"], kind, d["step"], node or None, span_id, parent, d["ts"], text]

    def _note(self, d: Mapping[str, Any], kind: str, run_id: str, shape: str | None) -> None:
        """What a run's first and last events say about the run, and a checkpoint's event
        about the checkpoint (``d``: the event's fields)."""
        if kind == "run.started" and not d["ns"]:
            graph = str(d.get("graph") or "graph")
            if shape is None:
                shape = self.shape_by_name.get(graph)
            self.updates.append(
                (
                    "UPDATE session_runs SET thread_id=?, graph=?, shape_digest=?, status='running', started=?, "
                    "resumed=?, input=? WHERE id=?",
                    (
                        d["thread_id"],
                        graph,
                        shape,
                        d["ts"],
                        int(bool(d.get("resumed"))),
                        dumps_filtered(d.get("input"), self.filters),
                        run_id,
                    ),
                )
            )
        elif kind == "run.finished" and not d["ns"]:
            error = d.get("error")
            self.updates.append(
                (
                    "UPDATE session_runs SET status=?, finished=?, output=?, error=? WHERE id=?",
                    (
                        d.get("status"),
                        d["ts"],
                        dumps_filtered(d.get("output"), self.filters),
                        dumps_filtered(error, self.filters),
                        run_id,
                    ),
                )
            )
        elif kind == "checkpoint.saved" and d["thread_id"] is not None and d["checkpoint_id"]:
            self.checkpoints.append(
                (
                    d["thread_id"],
                    d["ns"],
                    d["checkpoint_id"],
                    run_id,
                    d["seq"],
                    d.get("parent_id"),
                    d["step"],
                    d.get("source"),
                    json.dumps(list(d.get("next") or [])),
                )
            )
