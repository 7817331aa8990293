"""``Session``: read a session file (runs, threads, paged events, checkpoints and their state).

Opening reads only the schema row and the table list, so a session with millions of events
opens at once; events are read a page at a time through the ``(run, seq)`` and
``(kind, run, seq)`` indexes (``events`` with ``seq_from``/``limit``, or ``iter_events``,
which pages by key, never by ``OFFSET``).  Checkpoints are read from the ``SqliteSaver``
tables of the same file.  Damage found while reading raises ``SessionError`` naming the file.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine import serde
from engine.checkpoint.base import make_config
from engine.checkpoint.leases import pid_alive
from engine.checkpoint.sqlite import SqliteSaver
from engine.errors import CheckpointError
from engine.events import EventBase, event_from_json
from engine.graph.drawing import DrawableGraph
from engine.recording.outline import OutlineReads
from engine.recording.request_prior import PriorResolver
from engine.recording.schema import (
    RECORDING_FAILED_KEY,
    SessionError,
    connect_existing,
    read_schema_version,
)
from engine.recording.session_info import CheckpointInfo, RunInfo

__all__ = ["CheckpointInfo", "RunInfo", "Session"]

_RUN_COLS = "id, run_id, thread_id, graph, status, started, finished, resumed, input, output, error"
_INTERNAL_PREFIXES = ("__", "branch:", "join:")


def _table(kinds: Sequence[str] | None) -> str:
    """The events table, for a query ordered by ``(run, seq)``.

    One kind: SQLite walks the ``(kind, run, seq)`` index, already in order.  Several kinds:
    it would merge them and sort every match for each page, so walk ``(run, seq)`` instead.
    """
    if kinds is not None and not isinstance(kinds, str) and len(kinds) > 1:
        return "session_events INDEXED BY session_events_run_seq"
    return "session_events"


def _loads(text: Any) -> Any:
    return None if text is None else json.loads(text)


class Session(OutlineReads):
    """A session file opened for reading.  Use ``Session.open(path)``.  Its reads of runs'
    outlines and of spans are ``OutlineReads``'."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._saver: SqliteSaver | None = None
        self._runs_by_id: dict[str, int] = {}
        self._priors = PriorResolver(self._request_row)
        """Joins a run's first model request to the thread's earlier one it continues."""
        self._lock = (
            threading.RLock()
        )  # one connection, usable from any thread, one query at a time

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Session:
        """Open a session file; ``SessionError`` if it is not one, is newer, or is damaged."""
        return cls(Path(path), connect_existing(path))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.ProgrammingError as exc:
            raise SessionError(
                f"{self.path}: the session is closed ({exc})", path=self.path
            ) from exc
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"{self.path} is damaged: {exc}", path=self.path) from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._guard(), self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    @property
    def schema_version(self) -> int:
        with self._guard(), self._lock:
            return read_schema_version(self._conn) or 0

    def integrity_check(self) -> None:
        """Run SQLite's full integrity check (reads the whole file); ``SessionError`` if damaged."""
        rows = self._query("PRAGMA integrity_check")
        result = "; ".join(str(r[0]) for r in rows[:5])
        if result != "ok":
            raise SessionError(f"{self.path} is damaged: {result}", path=self.path)

    # -- runs and threads ----------------------------------------------------------------------

    def runs(self, thread_id: str | None = None) -> list[RunInfo]:
        """Runs in recording order (optionally of one thread)."""
        if thread_id is None:
            rows = self._query(f"SELECT {_RUN_COLS} FROM session_runs ORDER BY id")
        else:
            rows = self._query(
                f"SELECT {_RUN_COLS} FROM session_runs WHERE thread_id=? ORDER BY id", (thread_id,)
            )
        return [self._run_info(r) for r in rows]

    def run(self, run_id: str) -> RunInfo:
        rows = self._query(f"SELECT {_RUN_COLS} FROM session_runs WHERE run_id=?", (run_id,))
        if not rows:
            raise KeyError(f"{self.path} has no run {run_id!r}")
        return self._run_info(rows[0])

    def _run_info(self, r: tuple[Any, ...]) -> RunInfo:
        try:
            return RunInfo(
                run_id=r[1],
                thread_id=r[2],
                graph=r[3],
                status=r[4],
                started=r[5],
                finished=r[6],
                resumed=bool(r[7]),
                input=_loads(r[8]),
                output=_loads(r[9]),
                error=_loads(r[10]),
                index=int(r[0]),
            )
        except (ValueError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise SessionError(
                f"{self.path} is damaged: run {r[1]!r} has unreadable data ({why})", path=self.path
            ) from None

    def agent_spec(self, graph_name: str | None = None) -> str | None:
        """The agent that produced the runs of ``graph_name`` (see ``SessionRecorder.set_agent``),
        or of the session when the graph is not named; None if it was not recorded."""
        keys = [f"agent:{graph_name}", "agent"] if graph_name else ["agent"]
        for key in keys:
            rows = self._query("SELECT value FROM stepwise_meta WHERE key=?", (key,))
            if rows:
                return str(rows[0][0])
        if not graph_name:
            rows = self._query("SELECT value FROM stepwise_meta WHERE key LIKE 'agent:%' LIMIT 1")
            if rows:
                return str(rows[0][0])
        return None

    def recording_failure(self) -> str | None:
        """Why recording into this file stopped (``database or disk is full``...), if it did."""
        rows = self._query("SELECT value FROM stepwise_meta WHERE key=?", (RECORDING_FAILED_KEY,))
        if not rows:
            return None
        try:
            return str(json.loads(rows[0][0]).get("error") or "unknown error")
        except (ValueError, AttributeError, RecursionError):
            return "unknown error"

    def abandoned_leases(self) -> list[tuple[str, str, int]]:
        """(thread, run, pid) of the runs that took a thread of this file in a process of this
        host that no longer exists (killed before it could let go), read without writing."""
        if not self._has_table("thread_leases"):
            return []
        host = socket.gethostname()
        rows = self._query(
            "SELECT thread_id, owner, pid, host FROM thread_leases ORDER BY thread_id"
        )
        return [
            (str(t), str(owner), int(pid))
            for t, owner, pid, where in rows
            if where == host and isinstance(pid, int) and not pid_alive(pid)
        ]

    def threads(self) -> list[str]:
        """Thread ids with runs or checkpoints in the file, in order of first appearance."""
        seen = [
            r[0]
            for r in self._query(
                "SELECT thread_id FROM session_runs WHERE thread_id IS NOT NULL GROUP BY thread_id ORDER BY MIN(id)"
            )
        ]
        if self._has_table("checkpoints"):
            for (t,) in self._query(
                "SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id"
            ):
                if t not in seen:
                    seen.append(t)
        return seen

    def _has_table(self, name: str) -> bool:
        return bool(
            self._query("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,))
        )

    def _run_index(self, run_id: str) -> int:
        idx = self._runs_by_id.get(run_id)
        if idx is None:
            rows = self._query("SELECT id FROM session_runs WHERE run_id=?", (run_id,))
            if not rows:
                raise KeyError(f"{self.path} has no run {run_id!r}")
            self._runs_by_id[run_id] = idx = int(rows[0][0])
        return idx

    # -- events --------------------------------------------------------------------------------

    def _where(
        self,
        run_id: str | None,
        kinds: Sequence[str] | None,
        seq_from: int | None,
        seq_to: int | None,
    ) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if run_id is not None:
            where.append("run=?")
            params.append(self._run_index(run_id))
        if kinds is not None:
            kinds = [kinds] if isinstance(kinds, str) else list(kinds)
            where.append(f"kind IN ({','.join('?' * len(kinds))})" if kinds else "0")
            params.extend(kinds)
        if seq_from is not None:
            where.append("seq>=?")
            params.append(seq_from)
        if seq_to is not None:
            where.append("seq<=?")
            params.append(seq_to)
        return where, params

    def count(self, run_id: str | None = None, *, kinds: Sequence[str] | None = None) -> int:
        """Number of events (of one run, of some kinds)."""
        where, params = self._where(run_id, kinds, None, None)
        sql = "SELECT COUNT(*) FROM session_events" + (
            " WHERE " + " AND ".join(where) if where else ""
        )
        return int(self._query(sql, params)[0][0])

    def last_seq(self, run_id: str) -> int:
        """The highest ``seq`` recorded for a run (0 when it has no events)."""
        rows = self._query(
            "SELECT MAX(seq) FROM session_events WHERE run=?", (self._run_index(run_id),)
        )
        return int(rows[0][0] or 0)

    def event_json(
        self,
        run_id: str | None = None,
        *,
        seq_from: int | None = None,
        seq_to: int | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = 1000,
        offset: int = 0,
    ) -> list[str]:
        """One page of events as their JSON text, in order (``run``, then ``seq``).

        ``seq_from``/``seq_to`` (inclusive) bound the ``seq`` of each run; pass a ``run_id``
        to page one run by seq (the fast way: ``seq_from=last_seen + 1``).
        """
        where, params = self._where(run_id, kinds, seq_from, seq_to)
        sql = f"SELECT data FROM {_table(kinds)}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY run, seq"
        if limit is not None or offset:
            sql += " LIMIT ? OFFSET ?"
            params += [-1 if limit is None else int(limit), int(offset)]
        return [self._whole(r[0]) for r in self._query(sql, params)]

    def _whole(self, text: str) -> str:
        """The event's text as recorded (``engine.recording.request_prior``)."""
        if not PriorResolver.marked(text):
            return text
        with self._lock:
            return self._priors.whole(text)

    def _request_row(self, run_id: str, seq: int) -> str | None:
        try:
            run = self._run_index(run_id)
        except KeyError:
            return None
        rows = self._query("SELECT data FROM session_events WHERE run=? AND seq=?", (run, seq))
        return str(rows[0][0]) if rows else None

    def events(
        self,
        run_id: str | None = None,
        *,
        seq_from: int | None = None,
        seq_to: int | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = 1000,
        offset: int = 0,
    ) -> list[EventBase]:
        """One page of events (see ``event_json``), decoded."""
        texts = self.event_json(
            run_id, seq_from=seq_from, seq_to=seq_to, kinds=kinds, limit=limit, offset=offset
        )
        return [self._decode(t) for t in texts]

    def iter_event_json(
        self,
        run_id: str | None = None,
        *,
        kinds: Sequence[str] | None = None,
        page_size: int = 1000,
    ) -> Iterator[str]:
        """Every matching event's JSON, read page by page (keyset paging on ``(run, seq)``)."""
        where, params = self._where(run_id, kinds, None, None)
        last: tuple[int, int] = (-1, -1)
        while True:
            clauses = [*where, "(run, seq) > (?, ?)"]
            rows = self._query(
                f"SELECT run, seq, data FROM {_table(kinds)} WHERE {' AND '.join(clauses)} "
                "ORDER BY run, seq LIMIT ?",
                [*params, *last, page_size],
            )
            for r in rows:
                yield self._whole(r[2])
            if len(rows) < page_size:
                return
            last = (int(rows[-1][0]), int(rows[-1][1]))

    def iter_events(
        self,
        run_id: str | None = None,
        *,
        kinds: Sequence[str] | None = None,
        page_size: int = 1000,
        skipped: list[str] | None = None,
    ) -> Iterator[EventBase]:
        """Every matching event, decoded, read page by page.

        An unreadable row raises ``SessionError``, unless a ``skipped`` list is given: then
        the row is left out and a one-line reason is appended to the list.
        """
        for text in self.iter_event_json(run_id, kinds=kinds, page_size=page_size):
            if skipped is None:
                yield self._decode(text)
                continue
            try:
                yield self._decode(text)
            except SessionError as exc:
                skipped.append(str(exc))

    def iter_valid_event_json(
        self, run_id: str | None = None, *, skipped: list[str], page_size: int = 1000
    ) -> Iterator[str]:
        """The JSON of every event that decodes; unreadable rows are counted in ``skipped``."""
        for text in self.iter_event_json(run_id, page_size=page_size):
            try:
                self._decode(text)
            except SessionError as exc:
                skipped.append(str(exc))
                continue
            yield text

    def _decode_whole(self, text: str) -> EventBase:
        return self._decode(self._whole(text))

    def _decode(self, text: str) -> EventBase:
        try:
            return event_from_json(text)
        except RecursionError:
            raise SessionError(
                f"{self.path} is damaged: an event cannot be read (nested too deeply)",
                path=self.path,
            ) from None
        except (ValidationError, ValueError, TypeError) as exc:
            first = str(exc).splitlines()[0][:100]
            raise SessionError(
                f"{self.path} is damaged: an event cannot be read ({first})", path=self.path
            ) from exc

    # -- graph shapes --------------------------------------------------------------------------

    def shape(self, run_id: str) -> dict[str, Any] | None:
        """The run's graph shape (``DrawableGraph.to_dict()``), if it was recorded."""
        rows = self._query(
            "SELECT s.shape FROM session_runs r JOIN session_shapes s ON s.digest = r.shape_digest WHERE r.run_id=?",
            (run_id,),
        )
        return json.loads(rows[0][0]) if rows else None

    def drawable(self, run_id: str) -> DrawableGraph | None:
        """The run's graph, if its shape was recorded; ``SessionError`` if the shape is damaged."""
        try:
            shape = self.shape(run_id)
            return None if shape is None else DrawableGraph.from_json(shape)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            raise SessionError(
                f"{self.path} is damaged: the graph shape of run {run_id} cannot be read "
                f"({type(exc).__name__}: {str(exc)[:80]})",
                path=self.path,
            ) from exc

    # -- checkpoints ---------------------------------------------------------------------------

    @property
    def checkpointer(self) -> SqliteSaver:
        """A ``SqliteSaver`` reading this file's checkpoints."""
        if self._saver is None:
            try:
                with self._guard(), self._lock:
                    self._saver = SqliteSaver(self._conn)
            except CheckpointError as exc:
                raise SessionError(f"{self.path}: {exc}", path=self.path) from exc
        return self._saver

    def checkpoints(self, thread_id: str, *, ns: str = "") -> list[CheckpointInfo]:
        """The thread's checkpoints, oldest first (all branches)."""
        if not self._has_table("checkpoints"):
            return []
        rows = self._query(
            "SELECT c.checkpoint_id, c.parent_id, c.metadata, sc.next, sc.step, sc.source, r.run_id "
            "FROM checkpoints c "
            "LEFT JOIN session_checkpoints sc "
            "  ON sc.thread_id = c.thread_id AND sc.ns = c.ns AND sc.checkpoint_id = c.checkpoint_id "
            "LEFT JOIN session_runs r ON r.id = sc.run "
            "WHERE c.thread_id=? AND c.ns=? ORDER BY c.checkpoint_id",
            (thread_id, ns),
        )
        out: list[CheckpointInfo] = []
        for cid, parent, meta_text, next_text, step, source, run_id in rows:
            try:
                meta = serde.loads(meta_text) or {}
                nxt = None if next_text is None else tuple(json.loads(next_text))
            except ValueError as exc:
                raise SessionError(
                    f"{self.path} is damaged: checkpoint {cid} ({exc})", path=self.path
                ) from exc
            out.append(
                CheckpointInfo(
                    checkpoint_id=cid,
                    thread_id=thread_id,
                    ns=ns,
                    parent_id=parent,
                    step=meta.get("step", step),
                    source=meta.get("source", source),
                    next=nxt,
                    run_id=run_id or meta.get("run_id"),
                )
            )
        return out

    def state(
        self,
        thread_id: str,
        checkpoint_id: str | None = None,
        *,
        ns: str = "",
        internal: bool = False,
    ) -> dict[str, Any]:
        """The state values at a checkpoint (the newest when ``checkpoint_id`` is None).

        These are the stored channel values: without the graph, a channel that was never
        written is absent (``get_state`` would show its default).  Internal channels
        (``__start__``, ``branch:to:x``, ...) are left out unless ``internal``.
        """
        conf = (
            make_config(thread_id, ns, checkpoint_id)
            if checkpoint_id
            else {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        )
        try:
            with self._guard(), self._lock:
                saved = self.checkpointer.get_tuple(conf)
        except CheckpointError as exc:
            raise SessionError(f"{self.path}: {exc}", path=self.path) from exc
        if saved is None:
            what = f"no checkpoint {checkpoint_id}" if checkpoint_id else "no checkpoints"
            raise KeyError(f"{self.path}: thread {thread_id!r} has {what}")
        values = dict(saved.checkpoint["channel_values"])
        if not internal:
            values = {k: v for k, v in values.items() if not k.startswith(_INTERNAL_PREFIXES)}
        return values
