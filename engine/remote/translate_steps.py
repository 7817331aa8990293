"""Supersteps and checkpoints of a remote run, from the server's ``debug`` stream.

``StepTranslation`` is the part of ``StreamTranslator`` (``engine.remote.translate``) that
opens and closes supersteps, announces each checkpoint once (``state.updated`` with what
changed, ``route`` from the nodes that wrote, ``checkpoint.saved``) and copies it into the
session files that keep one for offline replay.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Literal

from engine.attach.mirror import CheckpointMirror
from engine.core.ids import new_span_id
from engine.events import (
    CheckpointSaved,
    EventBase,
    PlannedTask,
    Route,
    StateUpdated,
    SuperstepFinished,
    SuperstepStarted,
)
from engine.observe.bus import RunEmitter
from engine.remote.state_diff import value_changes
from engine.remote.translate_calls import TaskSpan, task_of

__all__ = ["SKIP", "StepTranslation"]

_log = logging.getLogger("stepwise.remote")

SKIP = frozenset({"__start__", "__end__"})
"""LangGraph's pseudo-nodes: never announced as nodes or planned tasks."""


class StepTranslation:
    """Supersteps and checkpoints (mixed into ``StreamTranslator``, which owns the state below)."""

    em: RunEmitter
    mirrors: list[CheckpointMirror]
    root_span: str
    announced: set[tuple[str | None, str, str]]
    steps: dict[tuple[str, int], str]
    _step_t0: dict[str, float]
    tasks: dict[tuple[str, str], TaskSpan]
    planned: dict[str, list[PlannedTask]]
    writers: dict[str, list[str]]
    values: Any
    state_seen: dict[str, Mapping[str, Any]]
    next: list[str]
    next_tasks: list[dict[str, Any]]

    def _emitter(self, ns: str) -> RunEmitter:
        raise NotImplementedError

    async def _emit(
        self, cls: type[EventBase], ns: str, *, gated: bool = False, **fields: Any
    ) -> None:
        raise NotImplementedError

    def _graph_span(self, ns: str) -> str:
        """The span a graph's supersteps nest in: the run, or the node running the subgraph."""
        if not ns:
            return self.root_span
        parent_ns, task_id = task_of(ns)
        task = self.tasks.get((parent_ns, task_id))
        return task.span if task is not None else self.root_span

    async def _open_step(self, ns: str, step: int | None) -> str:
        key = (ns, -1 if step is None else step)
        span = self.steps.get(key)
        if span is not None:
            return span
        for other in [k for k in self.steps if k[0] == ns and k[1] < key[1]]:
            await self._close_step(*other)
        span = self.steps[key] = new_span_id()
        self._step_t0[span] = time.perf_counter()
        await self._emit(
            SuperstepStarted,
            ns,
            span_id=span,
            parent_span_id=self._graph_span(ns),
            step=step,
            tasks=list(self.planned.pop(ns, [])),
        )
        return span

    async def _close_step(
        self, ns: str, step: int, status: Literal["ok", "error", "interrupted", "cancelled"] = "ok"
    ) -> None:
        span = self.steps.pop((ns, step), None)
        if span is None:
            return
        await self._emit(
            SuperstepFinished,
            ns,
            span_id=span,
            parent_span_id=self._graph_span(ns),
            step=None if step < 0 else step,
            status=status,
            duration_ms=(time.perf_counter() - self._step_t0.pop(span, time.perf_counter())) * 1000,
        )

    async def _checkpoint(
        self, ns: str, step: int | None, payload: Mapping[str, Any], ts: str | None = None
    ) -> None:
        ref = payload.get("checkpoint") or {}
        conf = (payload.get("config") or {}).get("configurable") or {}
        cid = str(ref.get("checkpoint_id") or conf.get("checkpoint_id") or "")
        parent_ref = payload.get("parent_checkpoint") or {}
        meta = payload.get("metadata") or {}
        nxt = [str(n) for n in payload.get("next") or ()]
        tasks = [t for t in payload.get("tasks") or () if isinstance(t, Mapping)]
        if not ns:
            self.values = payload.get("values")
            self.next = nxt
            self.next_tasks = [dict(t) for t in tasks]
        self.planned[ns] = [
            PlannedTask(node=str(t.get("name")), task_id=str(t.get("id") or ""))
            for t in tasks
            if str(t.get("name")) not in SKIP
        ]
        values = payload.get("values")
        before = self.state_seen.get(ns)
        if isinstance(values, Mapping):
            self.state_seen[ns] = values
        key = (self.em.thread_id, ns, cid)
        if cid and key in self.announced:
            return
        if cid:
            self.announced.add(key)
        if isinstance(values, Mapping):
            changes = value_changes(before, values)
            if changes:
                await self._emit(
                    StateUpdated,
                    ns,
                    parent_span_id=self._graph_span(ns),
                    step=step,
                    changes=changes,
                )
        for open_ns, open_step in [k for k in self.steps if k[0] == ns]:
            if step is None or open_step <= step:
                await self._close_step(open_ns, open_step)
        writers = list(dict.fromkeys(self.writers.pop(ns, [])))
        for w in writers:
            await self._emit(
                Route,
                ns,
                parent_span_id=self._graph_span(ns),
                step=step,
                from_node=w,
                to=nxt,
                reason="end" if not nxt else "conditional" if len(nxt) > 1 else "static",
            )
        source = meta.get("source")
        parents = meta.get("parents")
        em = self._emitter(ns)
        await self._emit(
            CheckpointSaved,
            ns,
            parent_span_id=self._graph_span(ns),
            step=step,
            checkpoint_id=cid or None,
            parent_id=parent_ref.get("checkpoint_id") if isinstance(parent_ref, Mapping) else None,
            source=source if source in ("input", "loop", "update", "fork") else "loop",
            next=nxt,
            writer_nodes=writers,
            checkpoint_ns=ns,
            parents={str(k): str(v) for k, v in parents.items()}
            if isinstance(parents, Mapping)
            else {},
        )
        if cid:
            em.checkpoint_id = cid
            await self._mirror(ns, cid, parent_ref, payload.get("values"), meta, ts)

    async def _mirror(
        self,
        ns: str,
        cid: str,
        parent_ref: Any,
        values: Any,
        meta: Mapping[str, Any],
        ts: str | None,
    ) -> None:
        thread = self.em.thread_id
        if not self.mirrors or thread is None:
            return
        from engine.remote.values import from_server

        parent = parent_ref.get("checkpoint_id") if isinstance(parent_ref, Mapping) else None
        for mirror in self.mirrors:
            try:
                await mirror.put(
                    thread_id=thread,
                    ns=ns,
                    checkpoint_id=cid,
                    parent_id=str(parent) if parent else None,
                    values=from_server(values if values is not None else {}),
                    metadata={**meta, "run_id": self.root_span},
                    ts=ts,
                )
            except Exception as exc:  # the copy is for replay: never fail the run
                _log.warning("could not copy checkpoint %s into the session: %s", cid, exc)
