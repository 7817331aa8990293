"""What a checkpoint is, as every saver and the loop see it: the ``Checkpoint`` dict, its
metadata and tuple, the control-write channels, a stored row, and channel versions."""

from __future__ import annotations

import datetime as dt
import functools
import random
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

__all__ = [
    "ERROR",
    "INTERRUPT",
    "NO_WRITES",
    "NULL_TASK_ID",
    "RESUME",
    "SCHEMA_VERSION",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "StoredRow",
    "copy_checkpoint",
    "empty_checkpoint",
    "make_config",
    "next_version",
    "timestamp_of",
    "version_number",
]

SCHEMA_VERSION = 1
ERROR = "__error__"
INTERRUPT = "__interrupt__"
RESUME = "__resume__"
NO_WRITES = "__no_writes__"
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


class Checkpoint(TypedDict):
    v: int
    id: str
    ts: str
    channel_values: dict[str, Any]
    channel_versions: dict[str, str]
    versions_seen: dict[str, dict[str, str]]
    updated_channels: list[str] | None
    """The channels the step that made this checkpoint updated, sorted (``None`` for a
    checkpoint ``update_state`` made, or one stored without them)."""


class CheckpointMetadata(TypedDict, total=False):
    source: str
    step: int
    parents: dict[str, str]
    run_id: str
    writes: dict[str, Any]


class CheckpointTuple(NamedTuple):
    config: dict[str, Any]
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    parent_config: dict[str, Any] | None = None
    pending_writes: list[tuple[str, str, Any]] | None = None


def copy_checkpoint(c: Checkpoint) -> Checkpoint:
    """A copy the loop may change (values are shared; the version maps are copied)."""
    return Checkpoint(
        v=c["v"],
        id=c["id"],
        ts=c["ts"],
        channel_values=dict(c["channel_values"]),
        channel_versions=dict(c["channel_versions"]),
        versions_seen={k: dict(v) for k, v in c["versions_seen"].items()},
        updated_channels=c.get("updated_channels"),
    )


def empty_checkpoint() -> Checkpoint:
    from engine.core.ids import uuid7

    return Checkpoint(
        v=SCHEMA_VERSION,
        id=uuid7(),
        ts="",
        channel_values={},
        channel_versions={},
        versions_seen={},
        updated_channels=None,
    )


@dataclass
class StoredRow:
    """One checkpoint as the storage layer keeps it (values by reference to blobs)."""

    thread_id: str
    ns: str
    checkpoint_id: str
    parent_id: str | None
    body: str
    """JSON: ``v`` (format), ``ts``, ``versions`` {channel: version}, ``seen`` {node: {channel:
    version}}, ``values`` [channels holding a value; each read from its blob at that version]."""
    metadata: str


def make_config(thread_id: str, ns: str, checkpoint_id: str) -> dict[str, Any]:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": ns,
            "checkpoint_id": checkpoint_id,
        }
    }


@functools.lru_cache(maxsize=256)
def timestamp_of(checkpoint_id: str) -> str:
    """The ISO-8601 UTC time embedded in a UUIDv7 checkpoint id, or "".

    Microseconds carry the id's in-millisecond sequence number (capped at 999), so ids made
    in the same millisecond still sort by creation time when sorted by timestamp.  Memoized:
    a new checkpoint's id is read when the loop makes it and again when the saver stores it.
    """
    digits = checkpoint_id.replace("-", "")
    if len(digits) != 32 or digits[12] != "7":  # not a UUIDv7 (LangGraph's ids are UUIDv6)
        return ""
    try:
        ms = int(digits[:12], 16)
        seq = int(digits[13:16], 16)
    except ValueError:
        return ""
    stamp = dt.datetime.fromtimestamp(ms // 1000, dt.UTC) + dt.timedelta(
        milliseconds=ms % 1000, microseconds=min(seq, 999)
    )
    return stamp.isoformat(timespec="microseconds")


def version_number(version: str | int | float | None) -> int:
    """The ordinal of a channel version (``"12.9f3a01bc"`` -> 12; None -> 0; a number, as a
    saver subclass may return from ``get_next_version``, is its own ordinal)."""
    if not version:
        return 0
    if isinstance(version, int | float):
        return int(version)
    dot = version.find(".")
    return int(version[:dot] if dot >= 0 else version)


def next_version(current: str | None) -> str:
    """The version after ``current``: its ordinal plus one, with a random suffix so that
    versions written on different branches of a thread never collide."""
    return f"{version_number(current) + 1}.{random.getrandbits(32):08x}"
