"""A task's pending writes, held until the next checkpoint so both take one transaction.

Within a run, a superstep saves its task's writes and, a moment later, the next checkpoint:
two transactions (two commits, and the writes' text rewritten as references by the second,
``engine.checkpoint.write_refs``).  ``SqliteSaver`` holds such writes in memory instead and
stores them in the transaction of the next checkpoint (as references at once).  The file is
never in a state a crash could not have left before: a checkpoint is stored with the writes
of the tasks that led to it, and writes still held are those of tasks whose superstep has not
been saved (a crash then re-runs them, as it would a moment earlier).

Writes are held only while this process runs the thread (it holds the thread's lease), never
those of an interrupt, an error or a resume (after them the run usually ends), and never for
long: anything else the saver does first stores them (a read, a delete, the end of the run),
and a background thread stores what has waited ``delay`` seconds (a slow parallel task, a run
paused at a breakpoint).

A saver that holds its checkpoints too (``SqliteSaver(hold_checkpoints=True)``: the session
recorder's, whose writer thread commits them with the run's events) keeps a checkpoint's
statements here as well, in order, instead of committing each in a transaction of its own.
The same rules apply (held only while this process runs the thread, stored before anything
else the saver does, and after ``delay`` at the latest), and they are stored in the order they
were made, so the file is always one a crash could have left a moment earlier.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["HOLD_DELAY", "HeldWrite", "HeldWrites", "Statements", "held_statements"]

Statements = list[tuple[str, list[tuple[object, ...]]]]
"""``(statement, rows)`` pairs, each run with ``executemany`` in one transaction."""

HOLD_DELAY = 0.2
"""Seconds a write may wait for its checkpoint before it is stored on its own."""


@dataclass(slots=True)
class HeldWrite:
    """One task's writes ``(index, channel, json)`` to one checkpoint, not stored yet."""

    thread_id: str
    ns: str
    checkpoint_id: str
    task_id: str
    rows: list[tuple[int, str, str]]


class HeldWrites:
    """The held writes of one saver (the caller holds the saver's lock around every call but
    the flusher's) and the thread that stores what waits too long (``flush``, which takes
    that lock itself)."""

    def __init__(self, flush: Callable[[], object], delay: float = HOLD_DELAY) -> None:
        self._flush = flush
        self.delay = delay
        self.items: list[HeldWrite] = []
        self.statements: Statements = []
        """Statements of held checkpoints (and what they stored first), oldest first."""
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __bool__(self) -> bool:
        return bool(self.items or self.statements)

    def add(self, item: HeldWrite) -> None:
        self.items.append(item)
        self._nudge()

    def hold_statements(self, statements: Statements) -> None:
        """Keep a held checkpoint's statements (after those already kept) for the next commit."""
        self.statements += statements
        self._nudge()

    def take_statements(self) -> Statements:
        """The held statements, oldest first (the caller commits them, or restores them)."""
        out, self.statements = self.statements, []
        if not self.items:
            self._wake.clear()
        return out

    def restore_statements(self, statements: Statements) -> None:
        """Put back statements whose transaction failed, before any kept since."""
        self.statements[:0] = statements

    def _nudge(self) -> None:
        if not self._wake.is_set():
            self._wake.set()
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="stepwise-held-writes", daemon=True
            )
            self._thread.start()

    def take(self) -> list[HeldWrite]:
        items, self.items = self.items, []
        if not self.statements:
            self._wake.clear()
        return items

    def restore(self, items: list[HeldWrite]) -> None:
        """Put back writes whose transaction failed (stored, or reported, by the next try)."""
        self.items[:0] = items

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            if self._stop.wait(self.delay):
                return
            try:
                if self._flush() is False:  # its saver is gone
                    return
            except Exception:  # kept held: the run's next use of the saver reports it
                pass

    def close(self) -> None:
        self._stop.set()
        self._wake.set()


class _Row(Protocol):
    thread_id: str
    ns: str
    parent_id: str | None


WRITES_IN_ORDER = (
    "INSERT OR REPLACE INTO checkpoint_writes"
    " (thread_id, ns, checkpoint_id, task_id, idx, channel, data, seq)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoint_writes"
    " WHERE thread_id=? AND ns=? AND checkpoint_id=?))"
)
"""A write goes after the checkpoint's earlier ones (a write stored again moves last, as a
new rowid did in layout 1)."""


def held_statements(
    held: list[HeldWrite],
    in_order: bool,
    row: _Row | None = None,
    refs: list[tuple[str, int, str, str]] | None = None,
) -> list[tuple[str, list[tuple[object, ...]]]]:
    """The statements storing ``held`` (``in_order``: the file orders writes by a ``seq``
    column).  A write whose items the checkpoint ``row`` stores is stored as the reference to
    them at once (``refs``: ``(task_id, idx, text, reference)``, the used ones taken out)."""
    by_key: dict[tuple[str, int, str], str] = {}
    if refs and row is not None:
        by_key = {(t, i, text): ref for t, i, text, ref in refs}
    used: set[tuple[str, int, str]] = set()
    out: list[tuple[str, list[tuple[object, ...]]]] = []
    for h in held:
        mine = (
            row is not None
            and h.thread_id == row.thread_id
            and h.ns == row.ns
            and h.checkpoint_id == row.parent_id
        )
        texts: list[tuple[int, str, str]] = []
        for idx, ch, text in h.rows:
            ref = by_key.get((h.task_id, idx, text)) if mine and by_key else None
            if ref is not None:
                used.add((h.task_id, idx, text))
                text = ref
            texts.append((idx, ch, text))
        out.append(_writes_sql(h, texts, in_order))
    if used and refs is not None:
        refs[:] = [r for r in refs if (r[0], r[1], r[2]) not in used]
    return out


def _writes_sql(
    h: HeldWrite, writes: list[tuple[int, str, str]], in_order: bool
) -> tuple[str, list[tuple[object, ...]]]:
    t, ns, c, task = h.thread_id, h.ns, h.checkpoint_id, h.task_id
    if in_order:
        return WRITES_IN_ORDER, [(t, ns, c, task, i, ch, text, t, ns, c) for i, ch, text in writes]
    # layout 1: the rowid keeps the order
    return "INSERT OR REPLACE INTO checkpoint_writes VALUES (?, ?, ?, ?, ?, ?, ?)", [
        (t, ns, c, task, i, ch, text) for i, ch, text in writes
    ]
