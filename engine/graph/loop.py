"""``PregelLoop``: one run of a compiled graph, superstep by superstep (spec section 1).

load checkpoint -> handle input / resume -> [plan -> execute -> barrier -> checkpoint]* -> exit
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import (
    ERROR,
    INTERRUPT,
    RESUME,
    Checkpoint,
    CheckpointMetadata,
    next_version,
    version_number,
)
from engine.errors import (
    ErrorCode,
    GraphDrained,
    GraphInterrupt,
    GraphRecursionError,
    RunStopped,
    create_error_message,
)
from engine.events import (
    InterruptRaised,
    PlannedTask,
    StateUpdated,
    SuperstepFinished,
    SuperstepStarted,
)
from engine.graph.algo import (
    Task,
    apply_writes,
    finish_waiting,
    plan_tasks,
    should_interrupt,
)
from engine.graph.channels_defer import LastValueAfterFinish
from engine.graph.diff import state_changes
from engine.graph.loop_checkpoints import LoopCheckpoints
from engine.graph.loop_input import LoopInput
from engine.graph.loop_stream import LoopStreaming
from engine.graph.runner import run_step
from engine.graph.runtime import RunContext, TaskScratchpad
from engine.graph.subgraph_replay import ReplayState
from engine.message_log import plain
from engine.observe.bus import span
from engine.types import Interrupt

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.compiled import CompiledStateGraph

__all__ = ["PregelLoop"]

_PROPAGATED_TO_METADATA = (
    "thread_id",
    "checkpoint_id",
    "checkpoint_ns",
    "task_id",
    "run_id",
    "assistant_id",
    "graph_id",
)
"""Keys of the caller's ``configurable`` copied into task metadata (as LangGraph does)."""


class PregelLoop(LoopCheckpoints, LoopInput, LoopStreaming):
    def __init__(
        self,
        graph: CompiledStateGraph,
        *,
        input: Any,
        config: dict[str, Any],
        run: RunContext,
        checkpointer: BaseCheckpointSaver | None,
        ns: str = "",
        interrupt_before: list[str] | None = None,
        interrupt_after: list[str] | None = None,
        durability: str = "async",
        resuming: bool | None = None,
        parent_checkpoint: dict[str, str] | None = None,
        replay: ReplayState | None = None,
        checkpoint_map: dict[str, str] | None = None,
    ) -> None:
        self.graph = graph
        self.input = input
        self.config = config
        self.run = run
        self.checkpointer = checkpointer
        self.ns = ns
        self.interrupt_before = interrupt_before or []
        self.interrupt_after = interrupt_after or []
        self.durability = durability
        self.nested = bool(ns)
        self.forced_resuming = resuming
        self.replay: ReplayState | None = replay
        self.checkpoint_map: dict[str, str] = dict(checkpoint_map or {})
        self.parents: dict[str, str] = dict(parent_checkpoint or {})
        """The checkpoint ids of the enclosing graphs, by namespace (``metadata["parents"]``)."""
        limit = config.get("recursion_limit", graph.default_recursion_limit)
        try:
            self.recursion_limit = int(limit)
        except (TypeError, ValueError):
            raise ValueError(f"recursion_limit must be a whole number, got {limit!r}") from None
        if self.recursion_limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        conf = config.get("configurable", {})
        self.thread_id: str | None = (
            None if conf.get("thread_id") is None else str(conf["thread_id"])
        )
        self.status = "pending"
        self.interrupts: list[Interrupt] = []
        self.tasks: list[Task] = []
        self.pending_writes: list[tuple[str, str, Any]] = []
        self.resuming = False
        self.noop = False
        self.superseded = False
        """The run addresses a checkpoint the thread has moved past (time travel)."""
        self._saved_versions: dict[str, str] = {}
        self._loop_thread = threading.get_ident()
        self._aio_loop = asyncio.get_running_loop()
        self._deferred: (
            tuple[dict[str, Any], Checkpoint, CheckpointMetadata, dict[str, str]] | None
        ) = None
        self._deferred_writes: list[tuple[str, list[tuple[str, Any]], str]] = []
        self._step_applied = True
        self._exit_failed = False
        self.cache_served: tuple[int | None, dict[Any, str]] | None = None
        """(step, cache key -> the id of the task a hit serves): ``node_cache``'s per-step
        lookup."""
        if not self.nested:
            run.loop = self

    # ------------------------------------------------------------------------------------
    # public

    async def run_to_end(self) -> Any:
        """Run until done, interrupted (suppressed at the root) or failed; returns the output."""
        try:
            return await self._run_to_end()
        except BaseException:
            self._exit_failed = True
            raise
        finally:
            await self._flush_deferred()

    async def _run_to_end(self) -> Any:
        try:
            await self._load()
            if await self._first():
                while await self._tick():
                    await self._superstep()
                self.status = "done"
        except GraphInterrupt as gi:
            self.status = "interrupted"
            self.interrupts = list(gi.interrupts)
            if self.nested:
                raise
            self._apply_finished_writes()
            if not self.interrupts:
                self._push("updates", {"__interrupt__": ()})
        return self.output()

    def _apply_finished_writes(self) -> None:
        """An interrupted step: the tasks that finished still show in the run's output (their
        writes are saved as pending writes; the saved checkpoint is untouched)."""
        done = [t for t in self.tasks if t.writes and not t.interrupts and t.error is None]
        if not done or self._step_applied:
            return
        changed = apply_writes(self.checkpoint, self.channels, done, self.next_version)
        if any(k in self._stream_keys() for k in changed):
            self._push("values", self._values())

    def output(self) -> Any:
        values = {
            k: plain(self.channels[k].get())
            for k in self.graph.output_keys
            if self.channels[k].is_available()
        }
        spec = self.graph.output_spec or self.graph.spec
        if spec.is_root:
            if self.interrupts and not self.nested:
                return {"__interrupt__": list(self.interrupts)}
            return spec.present(values)
        if self.interrupts and not self.nested:
            values["__interrupt__"] = list(self.interrupts)
        return values

    def next_version(self, current: str | None) -> str:
        """A written channel's next version: the checkpointer decides (as in LangGraph)."""
        saver = self.checkpointer
        return next_version(current) if saver is None else saver.get_next_version(current, None)

    def task_config(self, task: Task) -> dict[str, Any]:
        base = self.config
        task_ns = f"{self.ns}|{task.name}:{task.id}" if self.ns else f"{task.name}:{task.id}"
        # as LangGraph's: the checkpoint this step runs from is the map's (by namespace, the
        # enclosing graphs' too), not ``checkpoint_id``'s (the node does not address it)
        conf = {
            **base.get("configurable", {}),
            "checkpoint_map": {**self.parents, self.ns: self.checkpoint["id"]},
            "checkpoint_id": None,
            "checkpoint_ns": task_ns,
        }
        if self.thread_id is not None:
            conf["thread_id"] = self.thread_id
        user_conf = base.get("configurable", {})
        # as LangGraph orders them: the run's own metadata, then what it takes from the
        # configurable (the run's keys win), then the task's
        metadata = dict(base.get("metadata", {}))
        for k in _PROPAGATED_TO_METADATA:
            if k in user_conf:
                metadata.setdefault(k, user_conf[k])
        metadata.setdefault("ls_integration", "langgraph")
        metadata.update(
            langgraph_step=self.step,
            langgraph_node=task.name,
            langgraph_triggers=task.public_triggers,
            langgraph_path=task.public_path,
            langgraph_checkpoint_ns=task_ns,
        )
        # a node's config names no run (LangGraph's names the node's own run)
        own = {k: v for k, v in base.items() if k != "run_name"}
        return {**own, "configurable": conf, "metadata": metadata}

    def _plan(self) -> list[Task]:
        tasks = plan_tasks(self.checkpoint, self.channels, self.graph.nodes, self.step, self.ns)
        if self.checkpoint.get("updated_channels"):
            # a plan after a step that names what it updated runs its triggered nodes in name
            # order, as LangGraph's (the node order only where the checkpoint names none, as
            # after ``update_state``): the order the stream shows them finishing in
            pulls = sorted((t for t in tasks if t.kind == "pull"), key=lambda t: t.name)
            tasks = [t for t in tasks if t.kind == "push"] + pulls
        for t in tasks:
            managed = getattr(t.node.spec, "managed", None)
            if managed and t.kind == "pull" and not t.node.hidden and isinstance(t.input, dict):
                for key, manager in managed.items():
                    t.input[key] = manager.value(self.step, self.stop)
        return tasks

    # ------------------------------------------------------------------------------------
    # supersteps

    async def _tick(self) -> bool:
        if self.step > self.stop:
            raise GraphRecursionError(
                create_error_message(
                    message=f"Recursion limit of {self.recursion_limit} reached without hitting "
                    "a stop condition. You can increase the limit by setting the "
                    "`recursion_limit` config key.",
                    error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                )
            )
        tasks = self._plan()
        if not tasks and self._finish_channels():
            tasks = self._plan()  # deferred nodes are due now that nothing else is
        self.tasks = tasks
        self._step_applied = False
        if not tasks:
            return False
        by_id = {t.id: t for t in tasks}
        for t in tasks:
            t.scratchpad = TaskScratchpad(t.id, self.ns)
        for tid, c, v in self.pending_writes:
            t = by_id.get(tid)
            if t is None:
                continue
            if c == RESUME:
                t.scratchpad.resume = list(v)  # type: ignore[union-attr]
            elif c not in (ERROR, INTERRUPT):
                t.writes.append((c, v))
                t.cached = True
        if should_interrupt(self.checkpoint, self.interrupt_before, tasks):
            await self._static_interrupt("before", tasks)
        for t in tasks:
            if t.cached and any(c in self.graph.spec.channels for c, _v in t.writes):
                self.push_cached_result(t)
        control = self.run.control
        if control is not None and control.drain_requested and not self.nested:
            raise GraphDrained(control.drain_reason or "shutdown")
        return True

    def _waits_for_finish(self) -> bool:
        """The graph has deferred nodes (channels waiting for the run to have nothing else)."""
        known: bool | None = self.__dict__.get("_defers")
        if known is None:
            known = any(isinstance(ch, LastValueAfterFinish) for ch in self.channels.values())
            self.__dict__["_defers"] = known
        return known

    def _finish_channels(self) -> list[str]:
        """Nothing is due: tell the channels that wait for that (deferred nodes' triggers);
        the ones that changed (their version moves on, so their nodes are due)."""
        versions = self.checkpoint["channel_versions"]
        if not self._waits_for_finish():
            return []
        next_v = self.next_version(max(versions.values(), key=version_number, default=None))
        return finish_waiting(self.checkpoint, self.channels, next_v)

    async def _static_interrupt(self, when: str, tasks: list[Task]) -> None:
        self.status = f"interrupt_{when}"
        em = self.run.emitter
        if em.active:
            names = [t.name for t in tasks if not t.node.hidden]
            await em.emit(InterruptRaised, node=",".join(dict.fromkeys(names)), static=when)
        raise GraphInterrupt()

    async def _superstep(self) -> None:
        em = self.run.emitter
        tasks = self.tasks
        s = span()
        t0 = time.perf_counter()
        if em.active:
            await em.emit(
                SuperstepStarted,
                span_id=s.id,
                parent_span_id=s.parent,
                tasks=[
                    PlannedTask(
                        node=t.name,
                        task_id=t.id,
                        triggers=list(t.triggers),
                        kind=t.kind,
                        cached=t.cached,
                    )
                    for t in tasks
                ],
            )
        status = "ok"
        fire_after = False
        try:
            with s:
                limit = getattr(self.graph, "step_timeout", None)
                if limit:
                    await asyncio.wait_for(run_step(self, tasks), limit)
                else:
                    await run_step(self, tasks)
                fire_after = await self._barrier(tasks)
        except GraphInterrupt:
            status = "interrupted"
            raise
        except (asyncio.CancelledError, KeyboardInterrupt, RunStopped):
            status = "cancelled"
            raise
        except BaseException:
            status = "error"
            raise
        finally:
            if em.active:
                await em.emit(
                    SuperstepFinished,
                    span_id=s.id,
                    parent_span_id=s.parent,
                    status=status,  # type: ignore[arg-type]
                    duration_ms=(time.perf_counter() - t0) * 1000,
                )
        if fire_after:
            await self._static_interrupt("after", tasks)

    async def _barrier(self, tasks: list[Task]) -> bool:
        """Apply writes, save the checkpoint; True if an interrupt_after breakpoint fires."""
        before = (
            {k: self.channels[k].value for k in self.graph.spec.channels}
            if self.run.emitter.active
            else None
        )
        changed = apply_writes(self.checkpoint, self.channels, tasks, self.next_version)
        self._step_applied = True
        # what the checkpoint names as updated: channels left holding a value (as LangGraph's)
        updated = [c for c in changed if self.channels[c].is_available()]
        if self._waits_for_finish() and not plan_tasks(
            self.checkpoint, self.channels, self.graph.nodes, self.step + 1, self.ns
        ):
            # tentatively the last step: deferred nodes are due
            updated += [c for c in self._finish_channels() if self.channels[c].is_available()]
        em = self.run.emitter
        if em.active and before is not None:
            changes = state_changes(self.graph.spec.channels, self.channels, before, changed)
            if changes:
                await em.emit(
                    StateUpdated,
                    changes=changes,
                    versions={
                        k: self.checkpoint["channel_versions"][k]
                        for k in changed
                        if k in self.checkpoint["channel_versions"]
                    },
                )
        if any(k in self._stream_keys() for k in changed):
            self._push("values", self._values())
        self.pending_writes = []
        self.resuming = False  # only the first superstep of a resumed run resumes subgraphs
        writers = list(dict.fromkeys(t.name for t in tasks))
        await self._put_checkpoint("loop", writers, updated)
        return should_interrupt(self.checkpoint, self.interrupt_after, tasks)
