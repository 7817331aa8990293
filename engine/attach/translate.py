"""Turn LangGraph's own stream parts (``updates``, ``checkpoints``, ``custom``) into our events
(our inputs in LangGraph's form: ``engine.attach.real_input``; its graph drawn:
``engine.attach.drawing``)."""

from __future__ import annotations

import concurrent.futures
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from engine.attach.base import Interrupted
from engine.attach.callbacks import AttachCallbacks
from engine.attach.changes import as_channels, state_changes
from engine.attach.confirm import SaveWatch
from engine.attach.mirror import CheckpointMirror
from engine.attach.routes import RouteBook
from engine.attach.saved_checkpoints import CheckpointSaves
from engine.attach.snapshots import to_engine_values
from engine.attach.tapped import Written
from engine.events import (
    CustomEvent,
    InterruptRaised,
    PlannedTask,
    Route,
    StateUpdated,
    StoreAccessed,
)
from engine.serde import to_jsonable

__all__ = ["StreamTranslator", "planned_task"]

_log = logging.getLogger("stepwise.attach")


def planned_task(node: str, task_id: str) -> PlannedTask:
    """``PlannedTask(node=node, task_id=task_id)`` without validating two strings (every
    checkpoint's due tasks are built on the run's hot path): the same ``__dict__``, fields
    set, and no extra or private values, as the validated model has."""
    task = _new(PlannedTask)
    fields = {"node": node, "task_id": task_id, "triggers": [], "kind": "pull", "cached": False}
    _set_dict(task, fields)
    _set_fields_set(task, {"node", "task_id"})
    _set_extra(task, None)
    _set_private(task, None)
    return task


_new = object.__new__
_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__


def _ns(parts: tuple[str, ...]) -> str:
    return "|".join(parts)


class _Step:
    """What LangGraph streamed of the superstep of one graph not saved yet."""

    __slots__ = ("cached", "writers", "written")

    def __init__(self) -> None:
        self.writers: list[str] = []
        self.written: set[str] = set()
        self.cached: list[str] = []


class StreamTranslator(CheckpointSaves):
    """Emits our events for the parts LangGraph streams (``subgraphs=True``, several modes).

    Per superstep, in the engine's order: the nodes (from the callbacks), then at its
    checkpoint the routes out of the nodes that ran, the state changes (``changes``), the
    ``checkpoint.saved`` and the ``superstep.finished``."""

    def __init__(
        self,
        cb: AttachCallbacks,
        mirrors: Sequence[CheckpointMirror] = (),
        announced: set[tuple[str | None, str, str]] | None = None,
        *,
        checkpoints: bool = True,
        watch: SaveWatch | None = None,
        durability: str = "async",
        stops: tuple[Sequence[str] | str, Sequence[str] | str] = ((), ()),
        routes: RouteBook | None = None,
        queue_saves: bool = False,
    ) -> None:
        self.cb = cb
        self.routes = routes if routes is not None else RouteBook(None)
        """Where each writer routed (the graph's own edges; ``engine.attach.routes``)."""
        self.stops = stops
        """The graph's own ``interrupt_before`` and ``interrupt_after`` (a list, or ``"*"``)."""
        self.last_writers: dict[str, list[str]] = {}
        """Per graph namespace, the nodes that wrote in the superstep of its latest checkpoint."""
        self.watch = watch
        """The saves of the app's saver: a checkpoint shows once its save succeeded."""
        self.durability = durability
        self.queue_saves = queue_saves
        """A sync run (every event of the run goes through the loop's inbox): a checkpoint's
        save may be waited for there (``engine.attach.pending_save``)."""
        """LangGraph saves every checkpoint as it goes (``async``, ``sync``) or only the last
        one when the run ends (``exit``)."""
        self.parked: list[tuple[str, str, dict[str, Any]]] = []
        """(graph namespace, checkpoint id, the ``checkpoint.saved`` fields) not saved yet:
        with ``exit`` durability, shown when the run ends if saved by then."""
        self.copies_ahead: deque[concurrent.futures.Future[None]] = deque()
        self.last_saved: dict[str, str] = {}
        """Per graph namespace, the newest checkpoint the saver confirmed."""
        self.seen: set[str] = set()
        self.checkpoints = checkpoints
        """Does LangGraph stream checkpoints (the graph has a checkpointer)?  Without, each
        superstep ends at its ``values``."""
        self.mirrors = list(mirrors)
        """Session files that keep a copy of each checkpoint (see ``mirror``)."""
        self.announced = announced if announced is not None else set()
        """(thread, ns, checkpoint id) already announced: a resumed run streams the checkpoint
        it resumes from again, which is not a new checkpoint."""
        self.steps: dict[str, _Step] = {}
        self.saved: dict[str, Any] = {}
        """Per graph namespace, the state values of its latest checkpoint (what the next
        superstep's changes are measured against)."""
        self.planned: dict[str, list[PlannedTask]] = {}
        """Per graph namespace, the tasks its latest checkpoint has due next."""
        self.interrupts: list[Any] = []
        self.shown_interrupts: set[str] = set()
        """Ids of the interrupts reported so far: LangGraph streams a subgraph's again at each
        enclosing graph, whose node only ends interrupted (it waits on the same interrupt)."""
        self.values: Any = None
        """The root graph's latest values (the run's output), from its ``values`` or
        ``checkpoints`` stream."""
        cb.planned_tasks = lambda ns: self.planned.get(ns, ())

    def _step(self, ns: str) -> _Step:
        step = self.steps.get(ns)
        if step is None:
            step = self.steps[ns] = _Step()
        return step

    async def part(self, ns_parts: tuple[str, ...], mode: str, data: Any) -> None:
        if self.cb.deferred is not None:  # the previous checkpoint's end first
            self.cb.settle_deferred()
        ns = _ns(ns_parts)
        if mode == "values":
            if not ns:
                self.values = data
            if not self.checkpoints:  # no checkpoint will close the superstep: this does
                await self._settled(ns, as_channels(data))
        elif mode == "updates" and isinstance(data, dict):
            await self._updates(ns, data)
        elif mode == "checkpoints" and isinstance(data, dict):
            if not ns:  # the values as the run made them (read back, a saver may not revive them)
                self.values = data.get("values")
            await self._checkpoint(ns, data)
        elif mode == "custom":
            await self._custom(ns, data)
        elif mode == "store" and isinstance(data, Written):
            await self._store_access(ns, data)

    async def _custom(self, ns: str, data: Any) -> None:
        """What the app wrote with its stream writer: under the node that wrote it, when the
        write was tapped where it was made (``tapped.Written``); else under the run, as
        LangGraph's ``custom`` stream names only the graph."""
        cb, node, span = self.cb, "", None
        if isinstance(data, Written):
            node = str(data.meta.get("langgraph_node") or "")
            span = cb.node_span(data.meta)
            data = data.data
        await cb._emit(
            CustomEvent, ns, parent_span_id=span or cb.root_span, node=node, data=to_jsonable(data)
        )

    async def _store_access(self, ns: str, written: Written) -> None:
        """A call the app made to its store (``engine.attach.store_access``), under the node
        that made it."""
        cb = self.cb
        span = cb.node_span(written.meta)
        await cb._emit(StoreAccessed, ns, parent_span_id=span or cb.root_span, **written.data)

    def _owner_span(self, ns: str) -> str | None:
        """The span of the node whose task runs graph ``ns`` (None for the root graph)."""
        return self.cb.node_span({"langgraph_checkpoint_ns": ns}) if ns else None

    async def _updates(self, ns: str, data: dict[str, Any]) -> None:
        cached = bool((data.get("__metadata__") or {}).get("cached"))
        for node, update in data.items():
            if node == "__metadata__":
                continue
            if node == "__interrupt__":
                await self._interrupts(ns, update)
                continue
            step = self._step(ns)
            step.writers.append(str(node))
            if isinstance(update, dict):
                step.written.update(str(k) for k in update)
            if cached:
                step.cached.append(str(node))

    def _open_step_span(self, ns: str) -> str:
        """The span of the superstep of graph ``ns`` going on (else the run's)."""
        steps = [(n, span) for (n_ns, n), span in self.cb.steps.items() if n_ns == ns]
        return max(steps)[1] if steps else self.cb.root_span

    async def _interrupts(self, ns: str, update: Any) -> None:
        parent = self._open_step_span(ns)
        if not update:  # interrupt_before / interrupt_after: a pause with no value
            self.interrupts.append(None)
            when, node = self._static_stop(ns)
            await self.cb._emit(InterruptRaised, ns, parent_span_id=parent, static=when, node=node)
        owners = self._interrupted_nodes(ns, list(update or ()))
        for intr, owner in zip(update or (), owners, strict=True):
            self.interrupts.append(intr)
            iid = str(getattr(intr, "id", "") or "") or None
            if iid is not None and iid in self.shown_interrupts:
                continue  # a subgraph's, shown under its node: this graph's node waits on it
            if iid is not None:
                self.shown_interrupts.add(iid)
            await self.cb._emit(
                InterruptRaised,
                ns,
                parent_span_id=(owner.span if owner else "") or parent,
                interrupt_id=iid,
                value=to_jsonable(to_engine_values(getattr(intr, "value", intr)), max_str=4000),
                node=owner.node if owner else "",
                task_id=(owner.task_id if owner else "") or None,
            )

    def _interrupted_nodes(self, ns: str, interrupts: list[Any]) -> list[Interrupted | None]:
        """The node run (its task) each of ``interrupts`` of graph ``ns`` stopped: the one that
        stopped with its id (two tasks interrupting at once each get their own), else its
        nodes that ended interrupted, in the order they ended.  LangGraph reports a
        superstep's interrupts as each task puts them, so one report may come while another
        interrupted node waits for its own: it keeps it for that one."""
        ended = self.cb.interrupted.get(ns, [])
        out: list[Interrupted | None] = []
        for intr in interrupts:
            iid = str(getattr(intr, "id", "") or "")
            owner = next((e for e in ended if iid and iid in e.interrupt_ids), None)
            if owner is not None:
                owner.interrupt_ids.remove(iid)
                if not owner.interrupt_ids:
                    ended.remove(owner)
            elif ended:  # the first that ended without known ids (else the first)
                owner = next((e for e in ended if not e.interrupt_ids), ended[0])
                ended.remove(owner)
            else:  # more interrupts than nodes that ended with them: the last node's
                owner = out[-1] if out else None
            out.append(owner)
        if not ended:
            self.cb.interrupted.pop(ns, None)
        return out

    def _static_stop(self, ns: str) -> tuple[Literal["before", "after"], str]:
        """Where a pause with no value stopped: before a node due next that the graph's
        ``interrupt_before`` names, or after a node that just wrote and its
        ``interrupt_after`` names (a subgraph's own lists are not known here: then before the
        node due next)."""
        before, after = self.stops if not ns else ((), ())
        due = [t.node for t in self.planned.get(ns, ())]
        hit = next((n for n in due if before == "*" or n in before), None)
        if hit is not None:
            return "before", hit
        wrote = self.last_writers.get(ns, [])
        hit = next((n for n in wrote if after == "*" or n in after), None)
        if hit is not None:
            return "after", hit
        return "before", due[0] if due else ""

    async def _settled(self, ns: str, values: Mapping[str, Any]) -> None:
        """A superstep of a graph without checkpoints is over: its changes and its end."""
        done = self.steps.pop(ns, None) or _Step()
        before = self.saved.get(ns, {})
        self.saved[ns] = values
        open_steps = [n for (n_ns, n) in self.cb.steps if n_ns == ns]
        step = max(open_steps) if open_steps else None
        changes = state_changes(before, values, done.written)
        span = None if step is None else self.cb.steps.get((ns, step))
        if changes:
            await self.cb._emit(
                StateUpdated,
                ns,
                parent_span_id=span or self._owner_span(ns) or self.cb.root_span,
                step=None if step is None or step < 0 else step,
                changes=changes,
            )
        if step is not None:
            await self.cb.finish_step(ns, step)

    async def _checkpoint(self, ns: str, data: dict[str, Any]) -> None:
        conf = (data.get("config") or {}).get("configurable", {})
        parent_conf = (data.get("parent_config") or {}) or {}
        meta = data.get("metadata") or {}
        step = meta.get("step")
        step = int(step) if isinstance(step, int) else None
        nxt = [str(n) for n in data.get("next") or ()]
        cid = conf.get("checkpoint_id")
        done = self.steps.pop(ns, None) or _Step()
        self.last_writers[ns] = list(dict.fromkeys(done.writers))
        values = as_channels(data.get("values"))
        before = self.saved.get(ns)
        self.saved[ns] = values
        planned = self.planned.pop(ns, [])
        self.planned[ns] = [
            planned_task(str(t.get("name")), str(t.get("id")))
            for t in data.get("tasks") or ()
            if isinstance(t, dict) and t.get("name")
        ]
        first = ns not in self.seen
        self.seen.add(ns)
        key = (self.cb.em.thread_id, ns, str(cid))
        if cid and key in self.announced:
            return
        self.announced.add(key)
        changes = state_changes(before, values, done.written) if before is not None else []
        cb = self.cb
        number = -1 if step is None else step
        span = cb.steps.get((ns, number))
        if span is None and (changes or done.cached) and step is not None and step >= 0:
            # a superstep no node callback opened: the input applied (step 0), cache hits
            span = await cb.superstep_span(ns, step, planned)
        for node in dict.fromkeys(done.cached):
            await cb.cached_node(ns, step, node)
        parent = span or self._owner_span(ns) or cb.root_span  # a nested graph's input: its node
        await self._routes(ns, step, parent, list(dict.fromkeys(done.writers)), nxt, values)
        if changes:
            await cb._emit(StateUpdated, ns, parent_span_id=parent, step=step, changes=changes)
        source = meta.get("source")
        fields: dict[str, Any] = {
            "parent_span_id": parent,
            "step": step,
            "checkpoint_id": cid,
            "parent_id": (parent_conf.get("configurable") or {}).get("checkpoint_id"),
            "source": source if source in ("input", "loop", "update", "fork") else "loop",
            "next": nxt,
            "writer_nodes": list(dict.fromkeys(done.writers)),
            "checkpoint_ns": str(conf.get("checkpoint_ns") or ""),
        }
        later = not self._on_loop() and self.watch is not None and bool(cid)
        copy = self._copy_of(ns, conf, parent_conf, meta, data, cid, done.written)
        if later and self._queues(first, meta):  # after what is queued, even if known now
            self._saved_queued(ns, str(cid), fields, copy)
            return
        if later and self.watch is not None and self.watch.settled(str(cid)):
            later = False
        saved = self._saved(ns, cid, meta, first, fields, copy, block=later)
        if later:  # the stream's thread: the save runs alongside what LangGraph does next
            cb.defer(lambda: self._finish_here(saved))
        else:
            await saved

    async def _routes(
        self,
        ns: str,
        step: int | None,
        parent: str,
        writers: list[str],
        nxt: list[str],
        values: Mapping[str, Any],
    ) -> None:
        """The routes out of a superstep's writers (``engine.attach.routes``)."""
        cb = self.cb
        handed = [w for w in writers if (ns, w) in cb.routed]  # routed from inside: a handoff
        cb.routed.difference_update((ns, w) for w in handed)
        writers = [w for w in writers if w not in handed]
        if not writers:
            return
        commands = {w: cb.commands.pop((ns, w)) for w in writers if (ns, w) in cb.commands}
        for w, routes in self.routes.routes(ns, writers, nxt, commands, values).items():
            for r in routes:
                await cb._emit(
                    Route,
                    ns,
                    parent_span_id=parent,
                    step=step,
                    from_node=w,
                    to=r.to,
                    sends=r.sends,
                    reason=r.reason,
                    detail=r.detail,
                )

    async def close_open_steps(self) -> None:
        for ns, step in list(self.cb.steps):
            await self.cb.finish_step(ns, step, "interrupted" if self.interrupts else "ok")
