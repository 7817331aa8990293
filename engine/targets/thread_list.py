"""The saved threads of a checkpointer (ours or LangGraph's), as a thread browser lists them.

Savers have no "list threads" call, so the newest checkpoints are read (``scan`` of them, newest
first) and grouped by thread: a database with a long history lists its active threads first.
The read runs on a worker thread for a sync saver, on the loop for an async one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from engine.targets.base import ThreadInfo, ThreadQuery

__all__ = ["SCAN", "list_threads", "thread_infos"]

SCAN = 2000
"""How many of the newest checkpoints a listing reads."""


def _sync_only(saver: Any) -> bool:
    """Does the saver refuse the async API (LangGraph's sync savers raise there)?"""
    method = getattr(type(saver), "alist", None)
    code = getattr(method, "__code__", None)
    if code is None:
        return False
    names = set(code.co_names)
    return "NotImplementedError" in names and len(names) <= 2


def _async_only(saver: Any) -> bool:
    """Does the saver refuse the sync API from a running loop (``AsyncSqliteSaver``)?"""
    return type(saver).__name__.startswith("Async")


def thread_infos(tuples: Iterable[Any], query: ThreadQuery) -> list[ThreadInfo]:
    """Group checkpoint tuples (newest first) into threads, filtered and paged by ``query``."""
    seen: dict[str, ThreadInfo] = {}
    counts: dict[str, int] = {}
    for saved in tuples:
        conf = saved.config.get("configurable") or {}
        thread = conf.get("thread_id")
        if thread is None or conf.get("checkpoint_ns"):
            continue
        tid = str(thread)
        counts[tid] = counts.get(tid, 0) + 1
        if tid in seen:
            continue
        meta = dict(saved.metadata or {})
        writes = saved.pending_writes or []
        interrupted = any(w[1] == "__interrupt__" for w in writes)
        checkpoint = saved.checkpoint
        ts = checkpoint.get("ts") if isinstance(checkpoint, dict) else None
        seen[tid] = ThreadInfo(
            thread_id=tid,
            updated_at=str(ts) if ts else None,
            status="interrupted" if interrupted else "idle",
            checkpoint_id=str(conf.get("checkpoint_id") or ""),
            metadata=meta,
        )
    out = []
    for tid, info in seen.items():
        if query.status is not None and info.status != query.status:
            continue
        if any(info.metadata.get(k) != v for k, v in query.metadata.items()):
            continue
        out.append(
            ThreadInfo(
                info.thread_id,
                info.updated_at,
                info.status,
                info.checkpoint_id,
                info.next,
                info.metadata,
                counts[tid],
            )
        )
    # the most recently updated first, whichever order the saver lists its checkpoints in
    # (LangGraph's InMemorySaver lists them thread by thread)
    out.sort(key=lambda info: info.updated_at or "", reverse=True)
    return out[query.offset : query.offset + query.limit]


async def list_threads(saver: Any, query: ThreadQuery) -> list[ThreadInfo]:
    """The threads ``saver`` holds, newest first (see module docstring)."""
    if _async_only(saver) and not _sync_only(saver):
        tuples = [t async for t in saver.alist(None, limit=SCAN)]
        return thread_infos(tuples, query)
    return await asyncio.to_thread(lambda: thread_infos(list(saver.list(None, limit=SCAN)), query))
