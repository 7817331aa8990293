"""Checkpointer protocol and the storage-independent half of every saver.

A checkpoint row holds versions and a *blob index* ``{channel: version}``; each channel value
is stored once per version as a blob.  An ``AppendLog`` value (``messages``, ``operator.add``
lists) that only grew since a blob we
already stored is written as an *append* blob (the new messages plus the base version), so a
1,000-message thread stores each message about once, not once per step.  A saver that keeps a
file (``WRITE_REFS``) stores a pending write to a log as a reference to the next checkpoint's
blob of the same items (``engine.checkpoint.write_refs``).  Everything is JSON through
``engine.serde`` (long texts may be stored deflated: ``engine.checkpoint.packing``); nothing
is pickled.

The checkpoint's own types and channel versions live in ``engine.checkpoint.values`` (offered
here too).  Subclasses implement a handful of storage primitives (``_put_row``, ``_get_row``, ...); the
async methods are the real ones and the sync API wraps them (``engine.core.aio.run_sync``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Generic, TypeVar

from engine import serde
from engine.checkpoint.blobs import BlobCodec
from engine.checkpoint.thread_leases import ThreadLeases
from engine.checkpoint.values import (
    ERROR,
    INTERRUPT,
    NO_WRITES,
    NULL_TASK_ID,
    RESUME,
    SCHEMA_VERSION,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    StoredRow,
    copy_checkpoint,
    empty_checkpoint,
    make_config,
    next_version,
    timestamp_of,
    version_number,
)
from engine.checkpoint.write_refs import FreshWrites, WriteRef, find_refs, parse_ref
from engine.core.aio import iter_sync, run_sync
from engine.errors import CheckpointError

V = TypeVar("V", int, float, str)

__all__ = [
    "ERROR",
    "INTERRUPT",
    "NO_WRITES",
    "NULL_TASK_ID",
    "RESUME",
    "SCHEMA_VERSION",
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "StoredRow",
    "copy_checkpoint",
    "empty_checkpoint",
    "ensure_valid_checkpointer",
    "make_config",
    "next_version",
    "timestamp_of",
    "version_number",
]

_SPECIAL_IDX = {ERROR: -1, INTERRUPT: -3, RESUME: -4}
"""Control writes keep their own slot, so a task's later writes (after a resume) do not
replace the interrupt it raised: history still shows which interrupt the task answered."""


def _conf(config: dict[str, Any]) -> dict[str, Any]:
    return config.get("configurable", {}) if config else {}


class BaseCheckpointSaver(BlobCodec, ThreadLeases, Generic[V]):
    """Saves checkpoints of threads. Use ``InMemorySaver`` or ``SqliteSaver``."""

    WRITE_REFS = False
    """Store a pending write to a log channel as a reference to the next checkpoint's blob of
    the same items (``engine.checkpoint.write_refs``): savers that keep a file do."""

    def __init__(self) -> None:
        super().__init__()
        self._leases: dict[str, str] = {}
        self._lease_lock = threading.Lock()
        self._fresh = FreshWrites()  # the newest checkpoint's writes, for the next one

    # -- versions ----------------------------------------------------------------------------

    def get_next_version(self, current: str | None, channel: Any = None) -> str:
        """The version a channel written in this step gets (LangGraph's signature: the
        channel argument is unused)."""
        return next_version(current)

    # -- storage primitives (subclasses) -----------------------------------------------------

    def _put_row(
        self,
        row: StoredRow,
        blobs: list[tuple[str, str, str]],
        refs: list[tuple[str, int, str, str]] = [],  # noqa: B006 - never changed
    ) -> None:
        """Store a checkpoint row and its new blobs ``(channel, version, json)`` atomically.
        The pending writes of its parent stay: they are what the parent's tasks did (their
        results in the history, what time travel re-runs); ``refs`` (``(task_id, idx, text,
        reference)``, only for a saver with ``WRITE_REFS``) replace the parent's writes that
        still hold ``text`` by a reference to the same items in these blobs."""
        raise NotImplementedError

    def _get_row(self, thread_id: str, ns: str, checkpoint_id: str | None) -> StoredRow | None:
        """The row with this id, or the newest row of the thread/namespace when id is None."""
        raise NotImplementedError

    def _get_blob(self, thread_id: str, ns: str, channel: str, version: str) -> str | bytes | None:
        """A blob as stored: its text, or packed (``engine.checkpoint.packing``)."""
        raise NotImplementedError

    def _list_rows(
        self, thread_id: str | None, ns: str | None, before: str | None, limit: int | None
    ) -> Iterator[StoredRow]:
        """Rows newest first (across all branches)."""
        raise NotImplementedError

    def _put_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: list[tuple[int, str, str]],
        task_path: str = "",
    ) -> None:
        """Store pending writes ``(index, channel, json)`` of one task (replacing same index).
        ``task_path``: the task's path (``engine.graph.algo.task_path_str``), by which
        LangGraph's savers order a checkpoint's pending writes: ``(task_path, task_id,
        index)``; a saver that cannot keep it returns them in the order they were put."""
        raise NotImplementedError

    def _get_writes(
        self, thread_id: str, ns: str, checkpoint_id: str
    ) -> list[tuple[str, str, str]]:
        """``(task_id, channel, json)`` in the order they were written."""
        raise NotImplementedError

    def _delete_thread(self, thread_id: str) -> None:
        raise NotImplementedError

    @property
    def location(self) -> str:
        return type(self).__name__

    def _row_to_tuple(self, row: StoredRow, with_writes: bool = True) -> CheckpointTuple:
        try:
            body = json.loads(row.body)
            metadata = serde.decode(json.loads(row.metadata))
        except ValueError as exc:
            raise CheckpointError(
                f"Checkpoint {row.checkpoint_id} of thread '{row.thread_id}' in {self.location} is corrupt: {exc}",
                thread_id=row.thread_id,
                checkpoint_id=row.checkpoint_id,
            ) from exc
        if body.get("v", 0) > SCHEMA_VERSION:
            raise CheckpointError(
                f"Checkpoint {row.checkpoint_id} of thread '{row.thread_id}' in {self.location} was written by a "
                f"newer Stepwise (checkpoint format {body.get('v')}, this version reads up to {SCHEMA_VERSION})",
                thread_id=row.thread_id,
                checkpoint_id=row.checkpoint_id,
            )
        versions = body["versions"]
        values = {
            ch: self._load_value(row.thread_id, row.ns, ch, versions[ch], row.checkpoint_id)
            for ch in body["values"]
        }
        if "parents" not in metadata:  # stored without an empty one: back in its place
            metadata = _with_parents(metadata)
        checkpoint = Checkpoint(
            v=body["v"],
            id=row.checkpoint_id,
            ts=body.get("ts") or timestamp_of(row.checkpoint_id),
            channel_values=values,
            channel_versions=versions,
            versions_seen=body["seen"],
            updated_channels=body.get("updated"),  # absent from files older than the key
        )
        writes: list[tuple[str, str, Any]] | None = None
        if with_writes:
            writes = []
            for task_id, channel, text in self._get_writes(
                row.thread_id, row.ns, row.checkpoint_id
            ):
                try:
                    ref = parse_ref(text)
                    if ref is None:
                        writes.append((task_id, channel, serde.loads(text)))
                    else:
                        writes.append((task_id, channel, self._referred(row, ref)))
                except ValueError as exc:
                    raise CheckpointError(
                        f"Pending writes of checkpoint {row.checkpoint_id} of thread '{row.thread_id}' in "
                        f"{self.location} are corrupt: {exc}",
                        thread_id=row.thread_id,
                        checkpoint_id=row.checkpoint_id,
                    ) from exc
        parent = make_config(row.thread_id, row.ns, row.parent_id) if row.parent_id else None
        return CheckpointTuple(
            make_config(row.thread_id, row.ns, row.checkpoint_id),
            checkpoint,
            metadata,
            parent,
            writes,
        )

    def _referred(self, row: StoredRow, ref: WriteRef) -> Any:
        """The value of a pending write stored as ``ref`` (decoded from the blob's items);
        ``ValueError`` when the blob does not hold them."""
        stored = self._get_blob(row.thread_id, row.ns, ref.channel, ref.version)
        if stored is None:
            raise ValueError(
                f"the blob of '{ref.channel}' at {ref.version} it refers to is missing"
            )
        texts = ref.texts_in(stored)
        items = serde.decode_lists([json.loads("[" + ",".join(texts) + "]")])[0]
        return items[0] if ref.n is None else items

    # -- the implementation (sync: the storage primitives are) ------------------------------

    def _get_tuple_impl(self, config: dict[str, Any]) -> CheckpointTuple | None:
        c = _conf(config)
        thread_id = c.get("thread_id")
        if thread_id is None:
            return None
        row = self._get_row(str(thread_id), c.get("checkpoint_ns", ""), c.get("checkpoint_id"))
        return self._row_to_tuple(row) if row else None

    def _list_impl(
        self,
        config: dict[str, Any] | None,
        filter: dict[str, Any] | None,
        before: dict[str, Any] | None,
        limit: int | None,
    ) -> Iterator[CheckpointTuple]:
        c = _conf(config or {})
        thread_id = c.get("thread_id")
        ns = c.get("checkpoint_ns")
        before_id = _conf(before or {}).get("checkpoint_id")
        count = 0
        page = None if filter else limit
        for row in self._list_rows(
            str(thread_id) if thread_id is not None else None, ns, before_id, page
        ):
            if c.get("checkpoint_id") and row.checkpoint_id != c["checkpoint_id"]:
                continue
            t = self._row_to_tuple(row)
            if filter and any(t.metadata.get(k) != v for k, v in filter.items()):
                continue
            yield t
            count += 1
            if limit is not None and count >= limit:
                return

    def _put_impl(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: dict[str, str],
    ) -> dict[str, Any]:
        c = _conf(config)
        thread_id = str(c["thread_id"])
        ns = c.get("checkpoint_ns", "")
        parent_id = c.get("checkpoint_id")
        present: list[str] = []
        new_blobs: list[tuple[str, str, str]] = []
        fresh = self._fresh.take(thread_id, ns, parent_id) if self.WRITE_REFS else []
        refs: list[tuple[str, int, str, str]] = []
        for ch, value in checkpoint["channel_values"].items():
            ver = checkpoint["channel_versions"].get(ch)
            if ver is None:
                continue
            present.append(ch)
            if ch in new_versions:
                text, added = self._encode_blob(thread_id, ns, ch, ver, value)
                new_blobs.append((ch, ver, text))
                if fresh and added:
                    refs += find_refs(fresh, ch, ver, added)
        body_dict: dict[str, Any] = {
            "v": SCHEMA_VERSION,
            "versions": checkpoint["channel_versions"],
            "seen": checkpoint["versions_seen"],
            "values": present,
        }
        updated = checkpoint.get("updated_channels")
        if updated is not None:
            body_dict["updated"] = list(updated)
        if checkpoint["ts"] != timestamp_of(checkpoint["id"]):
            body_dict["ts"] = checkpoint["ts"]  # only when it is not the id's own timestamp
        body = json.dumps(body_dict, separators=(",", ":"))
        meta = {k: v for k, v in metadata.items() if not (k == "parents" and not v)}
        row = StoredRow(thread_id, ns, checkpoint["id"], parent_id, body, serde.dumps(meta))
        if refs:
            self._put_row(row, new_blobs, refs)
        else:
            self._put_row(row, new_blobs)
        return make_config(thread_id, ns, checkpoint["id"])

    def _put_writes_impl(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        c = _conf(config)
        rows = [(_SPECIAL_IDX.get(ch, i), ch, serde.dumps(v)) for i, (ch, v) in enumerate(writes)]
        thread_id, ns, checkpoint_id = (
            str(c["thread_id"]),
            c.get("checkpoint_ns", ""),
            c["checkpoint_id"],
        )
        if task_path:
            self._put_writes(thread_id, ns, checkpoint_id, task_id, rows, task_path)
        else:
            self._put_writes(thread_id, ns, checkpoint_id, task_id, rows)
        if self.WRITE_REFS:
            self._fresh.hold(thread_id, ns, checkpoint_id, task_id, rows)

    def _delete_thread_impl(self, thread_id: str) -> None:
        self._delete_thread(str(thread_id))
        self._fresh.forget(str(thread_id))
        with self._cache_lock:
            for key in [k for k in self._cache if k[0] == str(thread_id)]:
                del self._cache[key]
            for key in [k for k in self._tips if k[0] == str(thread_id)]:
                del self._tips[key]

    def _overrides(self, name: str) -> bool:
        """Does a subclass define its own ``name`` (e.g. a saver that wraps ``put``)?  The
        sync and async methods then reach each other, so an override of either one is seen
        by runs of both kinds (as with LangGraph's savers)."""
        return getattr(type(self), name) is not getattr(BaseCheckpointSaver, name)

    # -- async API ---------------------------------------------------------------------------

    async def aget_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        if self._overrides("get_tuple"):
            return self.get_tuple(config)
        return self._get_tuple_impl(config)

    async def aget(self, config: dict[str, Any]) -> Checkpoint | None:
        t = await self.aget_tuple(config)
        return t.checkpoint if t else None

    async def alist(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        if self._overrides("list"):
            items = self.list(config, filter=filter, before=before, limit=limit)
        else:
            items = self._list_impl(config, filter, before, limit)
        for t in items:
            yield t

    async def aput(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: dict[str, str],
    ) -> dict[str, Any]:
        if self._overrides("put"):
            return self.put(config, checkpoint, metadata, new_versions)
        return self._put_impl(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        if self._overrides("put_writes"):
            self.put_writes(config, writes, task_id)
            return
        self._put_writes_impl(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        if self._overrides("delete_thread"):
            self.delete_thread(thread_id)
            return
        self._delete_thread_impl(thread_id)

    # -- sync API ----------------------------------------------------------------------------

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        if self._overrides("aget_tuple"):
            return run_sync(self.aget_tuple(config))
        return self._get_tuple_impl(config)

    def get(self, config: dict[str, Any]) -> Checkpoint | None:
        t = self.get_tuple(config)
        return t.checkpoint if t else None

    def list(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        if self._overrides("alist"):
            return iter_sync(self.alist(config, filter=filter, before=before, limit=limit))
        return self._list_impl(config, filter, before, limit)

    def put(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: dict[str, str],
    ) -> dict[str, Any]:
        if self._overrides("aput"):
            return run_sync(self.aput(config, checkpoint, metadata, new_versions))
        return self._put_impl(config, checkpoint, metadata, new_versions)

    def put_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        if self._overrides("aput_writes"):
            run_sync(self.aput_writes(config, writes, task_id))
            return
        self._put_writes_impl(config, writes, task_id, task_path)

    def delete_thread(self, thread_id: str) -> None:
        if self._overrides("adelete_thread"):
            run_sync(self.adelete_thread(thread_id))
            return
        self._delete_thread_impl(thread_id)


def ensure_valid_checkpointer(checkpointer: Any) -> Any:
    """``checkpointer`` itself when it is a saver, True, False or None; else a TypeError."""
    if checkpointer in (None, True, False) or isinstance(checkpointer, BaseCheckpointSaver):
        return checkpointer
    raise TypeError(
        "Invalid checkpointer provided. Expected an instance of `BaseCheckpointSaver`, `True`, "
        f"`False`, or `None`. Received {type(checkpointer).__name__}. Pass a proper saver "
        "(e.g., InMemorySaver, SqliteSaver)."
    )


def _with_parents(metadata: Any) -> Any:
    """``metadata`` with empty ``parents`` where LangGraph's savers keep it: after the loop's
    own ``source`` and ``step``, before what the run's config added (``user_id``, say)."""
    keys = list(metadata)
    at = max((keys.index(k) + 1 for k in ("source", "step") if k in metadata), default=0)
    items = list(metadata.items())
    return dict([*items[:at], ("parents", {}), *items[at:]])


def checked_serde(serde: Any) -> Any:
    """A saver's ``serde=``: only the JSON serializer a ported program names
    (``engine.checkpoint.serde.jsonplus.JsonPlusSerializer``), which stores what the saver
    stores anyway.  Another (an encrypting one, say) would be silently ignored: refused."""
    from engine.checkpoint.serde.jsonplus import JsonPlusSerializer

    if serde is not None and not isinstance(serde, JsonPlusSerializer):
        raise TypeError(
            f"this saver stores the engine's own JSON and takes no other serializer "
            f"(serde={type(serde).__name__}); JsonPlusSerializer is accepted"
        )
    return serde
