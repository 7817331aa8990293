"""``InMemorySaver``: checkpoints in process memory (JSON-encoded, like the SQLite saver)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from engine.checkpoint.base import BaseCheckpointSaver, StoredRow, checked_serde

__all__ = ["InMemorySaver", "MemorySaver"]


class InMemorySaver(BaseCheckpointSaver):
    """Keeps every checkpoint of every thread in memory; lost when the process ends."""

    def __init__(self, *, serde: Any = None) -> None:
        super().__init__()
        self.serde = checked_serde(serde)
        """``serde=JsonPlusSerializer()`` of a ported program (``checked_serde``)."""
        self._lock = threading.RLock()
        # (thread, ns) -> {checkpoint_id: row}; ids are time-ordered, the newest is kept aside
        self._rows: dict[tuple[str, str], dict[str, StoredRow]] = {}
        self._newest: dict[tuple[str, str], str] = {}
        self._blobs: dict[tuple[str, str, str, str], str] = {}
        self._writes: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, str, str]]] = {}
        """(thread, ns, checkpoint) -> {(task id, index): (channel, json, task path)}."""

    def _put_row(
        self,
        row: StoredRow,
        blobs: list[tuple[str, str, str]],
        refs: list[tuple[str, int, str, str]] = [],  # noqa: B006 - never changed (none here)
    ) -> None:
        with self._lock:
            for ch, ver, text in blobs:
                self._blobs[(row.thread_id, row.ns, ch, ver)] = text
            key = (row.thread_id, row.ns)
            self._rows.setdefault(key, {})[row.checkpoint_id] = row
            if row.checkpoint_id > self._newest.get(key, ""):
                self._newest[key] = row.checkpoint_id

    def _get_row(self, thread_id: str, ns: str, checkpoint_id: str | None) -> StoredRow | None:
        with self._lock:
            rows = self._rows.get((thread_id, ns))
            if not rows:
                return None
            if checkpoint_id is None:
                return rows[self._newest[(thread_id, ns)]]
            return rows.get(checkpoint_id)

    def _get_blob(self, thread_id: str, ns: str, channel: str, version: str) -> str | None:
        return self._blobs.get((thread_id, ns, channel, version))

    def _list_rows(
        self, thread_id: str | None, ns: str | None, before: str | None, limit: int | None
    ) -> Iterator[StoredRow]:
        # as LangGraph's InMemorySaver lists them: by thread, then by namespace (each in the
        # order first saved), newest first within a namespace
        with self._lock:
            keys = [
                k
                for k in self._rows
                if (thread_id is None or k[0] == thread_id) and (ns is None or k[1] == ns)
            ]
            order = {t: i for i, t in enumerate(dict.fromkeys(k[0] for k in keys))}
            keys.sort(key=lambda k: order[k[0]])  # stable: namespaces keep their order
            rows: list[StoredRow] = []
            for k in keys:
                rows += sorted(
                    (
                        r
                        for r in self._rows[k].values()
                        if before is None or r.checkpoint_id < before
                    ),
                    key=lambda r: r.checkpoint_id,
                    reverse=True,
                )
        yield from rows[:limit] if limit is not None else rows

    def _put_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: list[tuple[int, str, str]],
        task_path: str = "",
    ) -> None:
        with self._lock:
            bucket = self._writes.setdefault((thread_id, ns, checkpoint_id), {})
            for idx, ch, text in writes:
                bucket[(task_id, idx)] = (ch, text, task_path)

    def _get_writes(
        self, thread_id: str, ns: str, checkpoint_id: str
    ) -> list[tuple[str, str, str]]:
        # as LangGraph's InMemorySaver orders them: by task path, task id, index (the order a
        # superstep applies its tasks' writes), not the order the tasks finished in
        with self._lock:
            bucket = self._writes.get((thread_id, ns, checkpoint_id), {})
            keys = sorted(bucket, key=lambda k: (bucket[k][2], k[0], k[1]))
            return [(k[0], bucket[k][0], bucket[k][1]) for k in keys]

    def _delete_thread(self, thread_id: str) -> None:
        with self._lock:
            for key in [k for k in self._rows if k[0] == thread_id]:
                del self._rows[key]
                self._newest.pop(key, None)
            for key in [k for k in self._blobs if k[0] == thread_id]:
                del self._blobs[key]
            for key in [k for k in self._writes if k[0] == thread_id]:
                del self._writes[key]


MemorySaver = InMemorySaver
