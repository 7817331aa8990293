"""Where a timeline's checkpoint records come from: a checkpointer's row listing (no state
values loaded), a thread's history, or a list of recorded events."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine import serde
from engine.checkpoint.base import version_number
from engine.events import EventBase
from engine.graph.algo import TASKS
from engine.targets.records import CheckpointRecord

__all__ = ["records_from_events", "records_from_history", "records_from_saver", "stored_row_parts"]


def records_from_events(
    events: Iterable[EventBase], thread_id: str | None = None
) -> list[CheckpointRecord]:
    """Checkpoint records from ``checkpoint.saved`` events (root namespace only)."""
    return [
        CheckpointRecord.from_event(ev)
        for ev in events
        if ev.kind == "checkpoint.saved"
        and ev.checkpoint_id
        and not ev.ns
        and (thread_id is None or ev.thread_id == thread_id)
    ]


def stored_row_parts(
    body: dict[str, Any],
) -> tuple[dict[str, str], dict[str, dict[str, str]], set[str]]:
    """``(channel versions, versions seen, channels holding a value)`` of a stored row body
    (both the current ``versions/seen/values`` layout and the older ``blobs`` one)."""
    versions = body.get("versions", body.get("channel_versions")) or {}
    seen = body.get("seen", body.get("versions_seen")) or {}
    present = body.get("values", body.get("blobs")) or ()
    return versions, seen, set(present)


def records_from_saver(
    saver: Any, thread_id: str, nodes: dict[str, Any] | None = None
) -> list[CheckpointRecord]:
    """Every checkpoint of a thread from a checkpointer, without loading any state values.

    Reads the saver's row listing (ids, parents, metadata, versions) only; writer nodes are
    the nodes whose ``versions_seen`` changed since the parent.  With the graph's ``nodes``,
    ``next`` is planned from channel versions (pull tasks; ``Send`` targets need one blob).
    """
    rows = list(saver._list_rows(thread_id, "", None, None))
    seen_by_id: dict[str, dict[str, dict[str, str]]] = {}
    out: list[CheckpointRecord] = []
    for row in reversed(rows):  # oldest first, so parents are parsed before children
        versions, seen, present = stored_row_parts(json.loads(row.body))
        seen_by_id[row.checkpoint_id] = seen
        meta = serde.loads(row.metadata) or {}
        source = str(meta.get("source") or "loop")
        writers: tuple[str, ...] = ()
        if source == "update":
            writers = tuple((meta.get("writes") or {}).keys())
        elif source == "loop":
            parent_seen = seen_by_id.get(row.parent_id or "", {})
            writers = tuple(
                n for n, s in seen.items() if n != "__interrupt__" and s != parent_seen.get(n)
            )
        nxt = _plan_next(saver, row, versions, seen, present, nodes) if nodes is not None else None
        step = meta.get("step")
        out.append(
            CheckpointRecord(
                checkpoint_id=row.checkpoint_id,
                parent_id=row.parent_id,
                step=int(step) if step is not None else None,
                source=source,
                writers=writers,
                next=nxt,
                run_id=meta.get("run_id"),
            )
        )
    return out


def _plan_next(
    saver: Any,
    row: Any,
    versions: dict[str, str],
    seen_all: dict[str, dict[str, str]],
    present: set[str],
    nodes: dict[str, Any],
) -> tuple[str, ...]:
    """``next`` from versions alone (mirrors ``engine.graph.algo.plan_tasks``)."""
    out: list[str] = []
    if TASKS in present and TASKS in versions:
        try:
            sends = saver._load_value(
                row.thread_id, row.ns, TASKS, versions[TASKS], row.checkpoint_id
            )
            out.extend(getattr(s, "node", "?") for s in sends or ())
        except Exception:  # a damaged blob must not break the listing
            pass
    for name, node in nodes.items():
        seen = seen_all.get(name, {})
        if any(
            c in present and version_number(versions.get(c)) > version_number(seen.get(c))
            for c in node.triggers
        ):
            out.append(name)
    return tuple(out)


def records_from_history(history: Iterable[Any]) -> list[CheckpointRecord]:
    """Checkpoint records, oldest first, from a thread's history (``StateSnapshot``s, newest
    first, as LangGraph's ``get_state_history`` and a server's history give them).  A loop
    checkpoint's writers are the nodes its parent had due next; an ``update_state``
    checkpoint's is not recorded by LangGraph."""
    history = list(history)
    due: dict[str, tuple[str, ...]] = {}
    out: list[CheckpointRecord] = []
    for snap in reversed(history):
        cid = str(snap.config["configurable"]["checkpoint_id"])
        parent = ((snap.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
        meta = snap.metadata or {}
        source = str(meta.get("source") or "loop")
        nxt = tuple(str(n) for n in snap.next)
        due[cid] = nxt
        step = meta.get("step")
        out.append(
            CheckpointRecord(
                checkpoint_id=cid,
                parent_id=None if parent is None else str(parent),
                step=step if isinstance(step, int) else None,
                source=source,
                writers=due.get(str(parent), ()) if source == "loop" and parent else (),
                next=nxt,
                run_id=meta.get("run_id"),
            )
        )
    return out
