"""``SessionRecorder``: record the events (and checkpoints) of runs into one session file.

    rec = SessionRecorder("run.stepwise")
    graph = graph_compiled_with(rec.checkpointer)   # checkpoints go to the same file
    rec.attach(graph)                               # or pass rec.listener to any subscriber API
    graph.invoke(...)
    rec.close()

Write path: ``record`` (the bus callback, called on the run's loop thread) only appends the
event to an in-memory list.  A background writer thread serializes and commits what has
accumulated in one transaction at least every ``flush_interval`` seconds (100 ms), and at once
when a run finishes.  So a ``kill -9`` loses at most the events of the last interval, and since
every batch is one SQLite transaction in WAL mode, the file is never left half-written.
Events are serialized on the writer thread: the runtime never mutates an event after
delivering it.  The session's checkpointer holds a run's checkpoints for the same transactions
(``SqliteSaver(hold_checkpoints=True)``): each goes in before the events that name it, a read of
the checkpointer stores what it holds first, and the run's end stores the rest (a checkpoint
that cannot be stored is reported by the checkpointer's next use, and by the recorder).

Nothing secret is written: events carry no API keys, and the recorder adds only the graph's
drawable shape (``graph.get_graph().to_dict()``) to what the events say.  Personal data the
graph's ``PIIMiddleware`` redacts is redacted in everything written (events, run rows,
checkpoints), with the same rules (``engine.recording.filtered``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from engine.checkpoint.held_writes import Statements
from engine.checkpoint.sqlite import open_sqlite
from engine.errors import CheckpointError
from engine.events import EventBase
from engine.observe.bus import Subscription
from engine.observe.token_runs import TokenMerge
from engine.recording.compact import (
    KEEP_TOKENS,
    LARGE_VALUE,
    MAX_TOKEN_TEXT,
    TokenCoalescer,
    shrink_state_update,
)
from engine.recording.filtered import FilteringSaver, TextFilter, filter_strings
from engine.recording.request_prior import RequestPriors, with_prior
from engine.recording.rows import INSERT_CHECKPOINT, BatchRows, insert_events
from engine.recording.schema import (
    RECORDING_FAILED_KEY,
    SessionError,
    check_recordable,
    create_tables,
)
from engine.redaction import scrub
from engine.serde import to_jsonable

__all__ = ["SessionRecorder"]


class _Graph(Protocol):
    name: str

    def get_graph(self) -> Any: ...

    def subscribe(self, callback: Any) -> Subscription: ...


def _json_text(ev: EventBase) -> str:
    """``ev.model_dump_json(warnings=False)``, the same text, without the keyword plumbing of
    that method (the writer calls this once per recorded event)."""
    return type(ev).__pydantic_serializer__.to_json(ev, warnings=False).decode()


def event_json(ev: EventBase, filters: list[TextFilter] | None = None) -> str:
    """The event as JSON text (never raises: odd payloads fall back to a display rendering).

    Registered secrets (``engine.redaction``) are scrubbed out; ``filters`` rewrite its strings
    (the personal data a graph's PII middleware redacts)."""
    try:
        text = _json_text(ev)
        if filters:
            text = json.dumps(filter_strings(json.loads(text), filters), ensure_ascii=False)
        return scrub(text)
    except Exception:
        data = filter_strings(to_jsonable(dict(ev.__dict__)), filters or [])
        return scrub(json.dumps(data, ensure_ascii=False))


_KINDS_OF_THEIR_OWN = frozenset({"model.request", "run.finished", "state.updated"})
"""The kinds ``SessionRecorder._event_json`` writes in ways of their own."""
_WRITE_AT_ONCE = frozenset({"run.started", "run.finished"})
"""The kinds the writer is woken for at once: a run's row is written when it starts and ends."""


class _Listener:
    """The recorder's event callback for one graph.  It takes a call's token events past the
    first ``KEEP_TOKENS`` merged (``merge_tokens``), as the writer would merge them anyway."""

    __slots__ = ("merge_tokens", "recorder", "shape")

    def __init__(self, recorder: SessionRecorder, shape: str | None) -> None:
        self.recorder = recorder
        self.shape = shape
        self.merge_tokens = (
            TokenMerge(KEEP_TOKENS, MAX_TOKEN_TEXT, recorder.flush_interval)
            if recorder.coalesce_tokens
            else None
        )

    def __call__(self, event: EventBase) -> None:
        self.recorder.record(event, shape=self.shape)


class SessionRecorder:
    """Records the events of one or more runs, and refers to their checkpoints, in one file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        flush_interval: float = 0.1,
        coalesce_tokens: bool = True,
        large_value: int = LARGE_VALUE,
        continue_requests: bool = True,
    ) -> None:
        self.path = Path(path)
        self.flush_interval = flush_interval
        self.coalesce_tokens = coalesce_tokens
        """Past a call's first 200 token events, write each run of adjacent ``model.token``
        events of that call as one event (see ``engine.recording.compact``)."""
        self.large_value = large_value
        """Strings longer than this in ``state.updated`` are written as a reference to the
        checkpoint that holds them (the checkpoint stores the value once)."""
        self.continue_requests = continue_requests
        """Write a run's first model request as the continuation of the thread's last one
        in this file (``engine.recording.request_prior``; read back whole)."""
        _prepare(self.path)
        try:
            self._conn = open_sqlite(self.path, what="Stepwise session")
        except CheckpointError as exc:
            raise SessionError(str(exc), path=self.path) from exc
        try:
            create_tables(self._conn, str(self.path))
            self._saver = FilteringSaver(self.path, hold_checkpoints=True)
        except CheckpointError as exc:
            self._conn.close()
            raise SessionError(str(exc), path=self.path) from exc
        except BaseException:
            self._conn.close()
            raise
        self._lock = threading.Lock()
        self._pending: list[tuple[EventBase, str | None]] = []
        self._wake = threading.Event()
        self._progress = threading.Condition()
        self._queued = 0
        self._written = 0
        self._closing = False
        self._closed = False
        self.error: BaseException | None = None
        """The error that stopped recording (disk full, ...), if any."""
        self._shape_by_name: dict[str, str] = {}
        self._new_shapes: dict[str, tuple[str, str]] = {}
        self._run_rows: dict[str, int] = {}
        self._span_node: dict[str, str] = {}
        self._tokens = TokenCoalescer()
        self._subs: list[Subscription] = []
        self._filters: list[TextFilter] = []
        """What the attached graphs' PII middleware redact (applied to all that is written)."""
        self._priors = RequestPriors()
        self._priors_filters = self._filters
        self._thread = threading.Thread(
            target=self._writer, name="stepwise-session-writer", daemon=True
        )
        self._thread.start()

    # -- wiring --------------------------------------------------------------------------------

    @property
    def checkpointer(self) -> FilteringSaver:
        """A ``SqliteSaver`` on the same file: compile (or configure) the graph with it."""
        return self._saver

    @property
    def listener(self) -> Any:
        """The event callback: pass it anywhere a sync event subscriber is accepted."""
        return _Listener(self, None)

    def add_graph(self, graph: Any) -> str | None:
        """Store ``graph``'s drawable shape; runs of a graph with its name refer to it."""
        try:
            shape = graph.get_graph().to_dict()
            text = json.dumps(
                to_jsonable(shape), sort_keys=True, ensure_ascii=False, separators=(",", ":")
            )
        except Exception:  # a graph that cannot be drawn is still recorded
            return None
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
        name = str(getattr(graph, "name", "graph"))
        with self._lock:
            self._new_shapes[digest] = (name, text)
            self._shape_by_name[name] = digest
        return digest

    def set_agent(self, spec: str, graph_name: str | None = None) -> None:
        """Note which agent (``path/to/file.py:attr`` or ``package.module:attr``) produced the
        runs of ``graph_name``, so a re-run from the session knows what code to load (only when
        the user asks: the session never runs code by itself)."""
        key = f"agent:{graph_name}" if graph_name else "agent"
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO stepwise_meta(key, value) VALUES (?, ?)", (key, spec)
            )

    def attach(self, graph: _Graph) -> Subscription:
        """Record every run of ``graph`` (via ``graph.subscribe``); returns the subscription.

        A graph that keeps its checkpoints in a saver of its own (attach mode) is asked to copy
        them into this file too, so the session replays with its states."""
        digest = self.add_graph(graph)
        self.add_text_filter(_pii_filter(graph))
        mirror = getattr(graph, "mirror_checkpoints", None)
        if callable(mirror):
            mirror(self.checkpointer)

        sub = graph.subscribe(_Listener(self, digest))
        self._subs.append(sub)
        return sub

    def add_text_filter(self, flt: TextFilter | None) -> None:
        """Rewrite every string written from now on (events, run rows, checkpoints) with
        ``flt``: an agent's PII redaction, so the raw value never reaches the file."""
        if flt is None:
            return
        with self._lock:
            self._filters = [*self._filters, flt]
        self._saver.text_filters.append(flt)

    def record(self, event: EventBase, *, shape: str | None = None) -> None:
        """Queue one event (cheap; safe from any thread)."""
        with self._lock:
            if self._closing:
                return
            self._pending.append((event, shape))
            self._queued += 1
        if event.__dict__["kind"] in _WRITE_AT_ONCE:
            self._wake.set()

    # -- flushing and closing ------------------------------------------------------------------

    def flush(self, timeout: float | None = 10.0) -> None:
        """Block until every event queued so far is committed to the file."""
        with self._lock:
            target = self._queued
        self._wake.set()
        with self._progress:
            ok = self._progress.wait_for(
                lambda: (
                    self._written >= target or self.error is not None or not self._thread.is_alive()
                ),
                timeout,
            )
        if self.error is not None:
            raise SessionError(
                f"Recording to {self.path} failed: {self.error}", path=self.path
            ) from self.error
        if not ok:
            raise SessionError(
                f"Recording to {self.path} is not keeping up (flush timed out)", path=self.path
            )

    def close(self) -> None:
        """Flush, stop the writer thread, detach from graphs and close the file."""
        if self._closed:
            return
        for sub in self._subs:
            sub.close()
        self._subs.clear()
        with self._lock:
            self._closing = True
        self._wake.set()
        self._thread.join()
        self._closed = True
        self._saver.close()
        self._conn.close()
        if self.error is not None:
            raise SessionError(
                f"Recording to {self.path} failed: {self.error}", path=self.path
            ) from self.error

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the writer thread ---------------------------------------------------------------------

    def _writer(self) -> None:
        while True:
            self._wake.wait(self.flush_interval)
            self._wake.clear()
            with self._lock:
                batch, self._pending = self._pending, []
                shapes, self._new_shapes = self._new_shapes, {}
                closing = self._closing
            if (batch or shapes or (closing and self._tokens.holding)) and self.error is None:
                try:
                    self._write(batch, shapes, final=closing)
                except Exception as exc:
                    self.error = exc
                    print(f"stepwise: recording to {self.path} stopped: {exc}", file=sys.stderr)
                    self._note_failure(exc)
            with self._progress:
                self._written += len(batch)
                self._progress.notify_all()
            if closing:  # nothing can be queued once closing is set
                return

    def _note_failure(self, exc: BaseException) -> None:
        """Say in the file why recording stopped, so replay does not take the runs it left
        unfinished for killed ones (a one-row update: it often fits where a batch did not)."""
        note = json.dumps({"error": scrub(str(exc))[:300], "ts": time.time()})
        try:
            self._conn.execute(
                "INSERT OR REPLACE INTO stepwise_meta(key, value) VALUES (?, ?)",
                (RECORDING_FAILED_KEY, note),
            )
        except sqlite3.Error:  # the disk is that full: replay says what it can
            pass

    def _write(
        self,
        batch: list[tuple[EventBase, str | None]],
        shapes: dict[str, tuple[str, str]],
        *,
        final: bool,
    ) -> None:
        conn = self._conn
        if self.coalesce_tokens:  # a token run still growing waits for the next batch
            batch = self._tokens.feed(batch, final=final)
        # the events' JSON is made before the file's write lock is taken: the run's own
        # checkpoint writes wait for that lock (SQLite sleeps a millisecond or more when it
        # is held), so it is held only for the inserts; the rows are made before it too (only
        # numbering new runs needs the file)
        plan = BatchRows(self._span_node, self._shape_by_name, self._filters)
        event_json, row = self._event_json, self._row
        rows = [row(ev, shape, event_json(ev, ev.__dict__["kind"]), plan) for ev, shape in batch]
        # the session's checkpointer writes to the same file from the run's thread: taking its
        # lock hands the file over between the two at once (SQLite itself would make the one
        # waiting sleep and poll, a millisecond and more at a time).  It holds a run's
        # checkpoints for this transaction (before the events, which may name them)
        saver = self._saver
        with saver.write_lock:
            held = saver.take_held_statements()
            try:
                self._commit(conn, shapes, plan, rows, held)
            except BaseException:
                saver.restore_held_statements(held)  # the saver stores (or reports) them
                raise

    def _commit(
        self,
        conn: sqlite3.Connection,
        shapes: dict[str, tuple[str, str]],
        plan: BatchRows,
        rows: list[list[Any]],
        held: Statements = [],  # noqa: B006 - never changed
    ) -> None:
        """One transaction: the checkpointer's held checkpoints, then the batch's shapes,
        runs, checkpoints and events (``rows`` and ``plan`` name runs by id: numbered here,
        the only part that needs the file)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, params in held:
                conn.executemany(sql, params)
            if shapes:
                conn.executemany(
                    "INSERT OR IGNORE INTO session_shapes(digest, graph, shape) VALUES (?, ?, ?)",
                    [(d, name, text) for d, (name, text) in shapes.items()],
                )
            ids = {
                run_id: self._run_row(run_id, thread_id) for run_id, thread_id in plan.runs.items()
            }
            for sql, params in plan.updates:
                conn.execute(sql, (*params[:-1], ids[params[-1]]))
            if plan.checkpoints:
                conn.executemany(
                    INSERT_CHECKPOINT, [(*r[:3], ids[r[3]], *r[4:]) for r in plan.checkpoints]
                )
            for r in rows:  # each row names its run by id until here
                r[0] = ids[r[0]]
            insert_events(conn, rows)
            conn.execute("COMMIT")
        except BaseException:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._run_rows.clear()  # rows inserted in the failed transaction are gone
            raise

    def _run_row(self, run_id: str, thread_id: str | None) -> int:
        rid = self._run_rows.get(run_id)
        if rid is not None:
            return rid
        conn = self._conn
        cur = conn.execute(
            "INSERT OR IGNORE INTO session_runs(run_id, thread_id) VALUES (?, ?)",
            (run_id, thread_id),
        )
        if cur.rowcount == 1 and cur.lastrowid is not None:  # a new row: ``id`` is its rowid
            rid = cur.lastrowid
        else:  # the run is in the file already (recorded by an earlier recorder)
            row = conn.execute("SELECT id FROM session_runs WHERE run_id=?", (run_id,)).fetchone()
            rid = int(row[0])
        self._run_rows[run_id] = rid
        return rid

    def _row(self, ev: EventBase, shape: str | None, text: str, plan: BatchRows) -> list[Any]:
        return plan.row(ev, shape, text)

    def _event_json(self, ev: EventBase, kind: str) -> str:
        if kind not in _KINDS_OF_THEIR_OWN:  # most events: ``event_json``, its common case inline
            filters = self._filters
            if not filters:
                try:
                    return scrub(
                        type(ev).__pydantic_serializer__.to_json(ev, warnings=False).decode()
                    )
                except Exception:
                    pass
            return event_json(ev, filters)
        if kind == "model.request" and self.continue_requests:
            return self._request_json(ev)
        if kind == "run.finished" and not ev.ns:
            self._priors.run_finished(ev.run_id)
        if kind != "state.updated":
            return event_json(ev, self._filters)
        if self._filters:  # filters may change a string's length: shrink first, as always
            return event_json(shrink_state_update(ev, self.large_value), self._filters)
        try:
            text = _json_text(ev)
        except Exception:
            return event_json(shrink_state_update(ev, self.large_value))
        # a JSON text no longer than the limit holds no string longer than it: nothing to shrink
        if len(text) > self.large_value:
            shrunk = shrink_state_update(ev, self.large_value)
            if shrunk is not ev:
                return event_json(shrunk)
        return scrub(text)

    def _request_json(self, ev: EventBase) -> str:
        """A ``model.request``, written as the continuation of the thread's last recorded
        request when it starts with the same messages (``engine.recording.request_prior``)."""
        if self._filters is not self._priors_filters:  # what was written was filtered otherwise
            self._priors.forget()
            self._priors_filters = self._filters
        prior = self._priors.prior(ev)
        if prior is None:
            return event_json(ev, self._filters)
        tail = ev.model_copy(update={"messages": ev.__dict__["messages"][prior[2] :]})
        return with_prior(event_json(tail, self._filters), prior)


def _prepare(path: Path) -> None:
    """Make sure a session can be written at ``path``, or say why not in one line."""
    folder = path.parent
    if not folder.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionError(
                f"cannot record to {path}: cannot create the folder {folder}: "
                f"{exc.strerror or exc}",
                path=path,
            ) from None
    check_recordable(path)
    try:
        with open(path, "ab"):  # creates it if needed, changes nothing that is there
            pass
    except OSError as exc:
        raise SessionError(f"cannot record to {path}: {exc.strerror or exc}", path=path) from None


def _pii_filter(graph: Any) -> TextFilter | None:
    from engine.middleware.pii import pii_text_filter

    return pii_text_filter(graph)
