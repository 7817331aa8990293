"""``PregelLoop``: one run of a compiled graph, superstep by superstep (spec section 1).

load checkpoint -> handle input / resume -> [plan -> execute -> barrier -> checkpoint]* -> exit
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time
from typing import TYPE_CHECKING, Any

from engine.bus import span
from engine.checkpoint.base import (
    ERROR,
    INTERRUPT,
    NULL_TASK_ID,
    RESUME,
    Checkpoint,
    CheckpointMetadata,
    empty_checkpoint,
    next_version,
    timestamp_of,
)
from engine.events import (
    CheckpointSaved,
    InterruptRaised,
    PlannedTask,
    StateUpdated,
    SuperstepFinished,
    SuperstepStarted,
)
from engine.graph.algo import (
    Task,
    apply_writes,
    mark_interrupt_seen,
    plan_tasks,
    should_interrupt,
    trigger_channel,
)
from engine.graph.channels import MISSING, BaseChannel, MessagesChannel
from engine.graph.errors import EmptyInputError, GraphInterrupt, GraphRecursionError
from engine.graph.message_log import AppendLog, plain
from engine.graph.runner import run_step
from engine.graph.runtime import RunContext, TaskScratchpad, _NullResume
from engine.graph.state import updates_from_output
from engine.graph.types import START, Command, Interrupt, PregelTask, Send
from engine.ids import uuid7
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.compiled import CompiledStateGraph

__all__ = ["PregelLoop"]


def _copy_checkpoint(c: Checkpoint) -> Checkpoint:
    return Checkpoint(
        v=c["v"],
        id=c["id"],
        ts=c["ts"],
        channel_values=dict(c["channel_values"]),
        channel_versions=dict(c["channel_versions"]),
        versions_seen={k: dict(v) for k, v in c["versions_seen"].items()},
    )


class PregelLoop:
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
        self.recursion_limit = int(config.get("recursion_limit", graph.default_recursion_limit))
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
        self._saved_versions: dict[str, str] = {}
        self._loop_thread = threading.get_ident()
        self._aio_loop = asyncio.get_running_loop()
        self._deferred: (
            tuple[dict[str, Any], Checkpoint, CheckpointMetadata, dict[str, str]] | None
        ) = None
        self._deferred_writes: list[tuple[str, list[tuple[str, Any]]]] = []
        if not self.nested:
            run.loop = self

    # ------------------------------------------------------------------------------------
    # public

    async def run_to_end(self) -> Any:
        """Run until done, interrupted (suppressed at the root) or failed; returns the output."""
        try:
            await self._load()
            if await self._first():
                while await self._tick():
                    await self._superstep()
                self.status = "done"
        except GraphInterrupt as gi:
            self.status = "interrupted"
            self.interrupts = list(gi.interrupts)
            if not self.interrupts:
                self._push("updates", {"__interrupt__": ()})
            if self.nested:
                raise
        finally:
            await self._flush_deferred()
        return self.output()

    def output(self) -> Any:
        values = {
            k: plain(self.channels[k].get())
            for k in self.graph.output_keys
            if self.channels[k].is_available()
        }
        if self.interrupts and not self.nested:
            values["__interrupt__"] = list(self.interrupts)
        return values

    def task_config(self, task: Task) -> dict[str, Any]:
        base = self.config
        task_ns = f"{self.ns}|{task.name}:{task.id}" if self.ns else f"{task.name}:{task.id}"
        conf = {
            **base.get("configurable", {}),
            "checkpoint_ns": task_ns,
            "checkpoint_id": self.checkpoint["id"],
        }
        if self.thread_id is not None:
            conf["thread_id"] = self.thread_id
        metadata = {
            **base.get("metadata", {}),
            "langgraph_step": self.step,
            "langgraph_node": task.name,
            "langgraph_triggers": list(task.triggers),
            "langgraph_path": list(task.path),
            "langgraph_checkpoint_ns": task_ns,
        }
        return {**base, "configurable": conf, "metadata": metadata}

    # ------------------------------------------------------------------------------------
    # streaming helpers

    def _push(self, mode: str, chunk: Any) -> None:
        run = self.run
        if run.stream is None:
            return
        if mode in run.stream_modes:
            run.stream(mode, chunk, self.ns)
        if mode in ("tasks", "checkpoints") and "debug" in run.stream_modes:
            kind = (
                "checkpoint"
                if mode == "checkpoints"
                else ("task_result" if "result" in chunk else "task")
            )
            run.stream(
                "debug",
                {
                    "step": self.step - 1 if mode == "checkpoints" else self.step,
                    "timestamp": dt.datetime.now(dt.UTC).isoformat(),
                    "type": kind,
                    "payload": chunk,
                },
                self.ns,
            )

    def push_threadsafe(self, mode: str, chunk: Any) -> None:
        if threading.get_ident() == self._loop_thread:
            self._push(mode, chunk)
        else:
            self._aio_loop.call_soon_threadsafe(self._push, mode, chunk)

    def push_task_start(self, task: Task) -> None:
        if self.run.stream is not None and not task.node.hidden:
            self._push(
                "tasks",
                {
                    "id": task.id,
                    "name": task.name,
                    "input": task.input,
                    "triggers": list(task.triggers),
                },
            )

    def push_task_result(
        self, task: Task, error: BaseException | None, interrupts: Any = ()
    ) -> None:
        run = self.run
        if run.stream is None or task.node.hidden:
            return
        if error is None and not interrupts:
            state_writes = [(c, v) for c, v in task.writes if c in self.graph.spec.channels]
            update: dict[str, Any] | None = None
            if state_writes:
                update = {}
                for c, v in state_writes:
                    update[c] = v
            self._push("updates", {task.name: update})
            if "messages" in run.stream_modes:
                self._push_final_messages(task, state_writes)
        elif interrupts:
            self._push("updates", {"__interrupt__": tuple(interrupts)})
        self._push(
            "tasks",
            {
                "id": task.id,
                "name": task.name,
                "error": None if error is None else repr(error),
                "result": [(c, v) for c, v in task.writes if c in self.graph.spec.channels],
                "interrupts": [{"value": i.value, "id": i.id} for i in interrupts],
            },
        )

    def _push_final_messages(self, task: Task, writes: list[tuple[str, Any]]) -> None:
        from engine.messages import BaseMessage

        meta = self.task_config(task)["metadata"]
        for c, v in writes:
            if not isinstance(self.graph.channels.get(c), MessagesChannel):
                continue
            for m in v if isinstance(v, list | tuple) else [v]:
                if isinstance(m, BaseMessage) and m.id not in self.run.streamed_message_ids:
                    self._push("messages", (m, meta))

    # ------------------------------------------------------------------------------------
    # checkpoint IO

    async def _load(self) -> None:
        conf = self.config.get("configurable", {})
        saver = self.checkpointer
        if saver is not None and self.thread_id is None:
            raise ValueError(
                "Checkpointer requires one or more of the following 'configurable' keys: "
                "thread_id, checkpoint_ns, checkpoint_id"
            )
        saved = None
        self.requested_checkpoint_id = None if self.nested else conf.get("checkpoint_id")
        if saver is not None:
            saved = await saver.aget_tuple(
                {
                    "configurable": {
                        "thread_id": self.thread_id,
                        "checkpoint_ns": self.ns,
                        "checkpoint_id": self.requested_checkpoint_id,
                    }
                }
            )
            if self.requested_checkpoint_id and saved is None:
                raise ValueError(
                    f"Checkpoint {self.requested_checkpoint_id} not found in thread '{self.thread_id}'"
                )
        self.saved = saved
        if saved is not None:
            self.checkpoint = _copy_checkpoint(saved.checkpoint)
            self.metadata: CheckpointMetadata = dict(saved.metadata)  # type: ignore[assignment]
            self.checkpoint_config = saved.config
            self.pending_writes = list(saved.pending_writes or [])
        else:
            self.checkpoint = empty_checkpoint()
            self.metadata = {"step": -2}  # type: ignore[typeddict-item]
            self.checkpoint_config = {
                "configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.ns}
            }
        self._saved_versions = dict(self.checkpoint["channel_versions"])
        values = self.checkpoint["channel_values"]
        self.channels: dict[str, BaseChannel] = {
            k: spec.from_checkpoint(values.get(k, MISSING))
            for k, spec in self.graph.channels.items()
        }
        self.step = int(self.metadata.get("step", -2)) + 1
        self.stop = self.step + self.recursion_limit + 1
        em = self.run.emitter
        em.step = self.step
        em.checkpoint_id = self.checkpoint["id"] if saved else None

    async def _put_checkpoint(self, source: str, writer_nodes: list[str] | None = None) -> None:
        c = self.checkpoint
        new_id = uuid7()
        new = Checkpoint(
            v=c["v"],
            id=new_id,
            ts=timestamp_of(new_id),
            channel_values={
                k: ch.checkpoint()
                for k, ch in self.channels.items()
                if ch.tracked and ch.is_available()
            },
            channel_versions=dict(c["channel_versions"]),
            versions_seen={k: dict(v) for k, v in c["versions_seen"].items()},
        )
        new["channel_values"] = {k: v for k, v in new["channel_values"].items() if v is not MISSING}
        metadata: CheckpointMetadata = {
            "source": source,
            "step": self.step,
            "parents": {},
        }
        parent_config = (
            self.checkpoint_config
            if self.checkpoint_config["configurable"].get("checkpoint_id")
            else None
        )
        new_versions = {
            k: v for k, v in new["channel_versions"].items() if self._saved_versions.get(k) != v
        }
        saver = self.checkpointer
        config = {
            "configurable": {
                "thread_id": self.thread_id,
                "checkpoint_ns": self.ns,
                "checkpoint_id": new["id"],
            }
        }
        if saver is not None:
            if self.durability == "exit":
                if self._deferred is None:
                    self._deferred = (self.checkpoint_config, new, metadata, new_versions)
                else:
                    prev_versions = self._deferred[3]
                    self._deferred = (
                        self._deferred[0],
                        new,
                        metadata,
                        {**prev_versions, **new_versions},
                    )
            else:
                await saver.aput(self.checkpoint_config, new, metadata, new_versions)
        self._saved_versions = dict(new["channel_versions"])
        self.checkpoint = new
        self.metadata = metadata
        self.checkpoint_config = config
        em = self.run.emitter
        em.checkpoint_id = new["id"]
        need_next = (
            em.active or "checkpoints" in self.run.stream_modes or "debug" in self.run.stream_modes
        )
        next_names = [t.name for t in self._plan()] if need_next else []
        if em.active:
            await em.emit(
                CheckpointSaved,
                checkpoint_id=new["id"],
                parent_id=parent_config["configurable"]["checkpoint_id"] if parent_config else None,
                step=self.step,
                source=source,
                next=next_names,
                writer_nodes=writer_nodes or [],
            )
        if self.run.stream is not None and (
            "checkpoints" in self.run.stream_modes or "debug" in self.run.stream_modes
        ):
            self._push(
                "checkpoints",
                {
                    "config": config,
                    "parent_config": parent_config,
                    "values": self._values(),
                    "metadata": metadata,
                    "next": next_names,
                    "tasks": [
                        {"id": t.id, "name": t.name, "interrupts": (), "state": None}
                        for t in self._plan()
                    ],
                },
            )
        self.step += 1
        em.step = self.step

    async def save_task_writes(self, task: Task, writes: list[tuple[str, Any]]) -> None:
        self.pending_writes = [w for w in self.pending_writes if w[0] != task.id]
        self.pending_writes.extend((task.id, c, v) for c, v in writes)
        saver = self.checkpointer
        if saver is None:
            return
        if self.durability == "exit":
            self._deferred_writes.append((task.id, writes))
            return
        await saver.aput_writes(self.checkpoint_config, writes, task.id)

    async def _flush_deferred(self) -> None:
        saver = self.checkpointer
        if saver is None or self.durability != "exit":
            return
        if self._deferred is not None:
            parent, ckpt, meta, versions = self._deferred
            await saver.aput(parent, ckpt, meta, versions)
            self._deferred = None
        for task_id, writes in self._deferred_writes:
            await saver.aput_writes(self.checkpoint_config, writes, task_id)
        self._deferred_writes = []

    def _values(self) -> dict[str, Any]:
        return {
            k: self.channels[k].get()
            for k in self.graph.output_keys
            if self.channels[k].is_available()
        }

    def _plan(self) -> list[Task]:
        return plan_tasks(self.checkpoint, self.channels, self.graph.nodes, self.step, self.ns)

    # ------------------------------------------------------------------------------------
    # input / resume

    def _apply_pseudo(
        self, name: str, writes: list[tuple[str, Any]], triggers: list[str] | None = None
    ) -> dict[str, list[Any]]:
        task = Task(
            NULL_TASK_ID, name, ("pull", name), None, triggers or [], self.graph.nodes[START]
        )
        task.writes = writes
        return apply_writes(self.checkpoint, self.channels, [task], next_version)

    def _command_writes(self, cmd: Command) -> list[tuple[str, Any]]:
        writes, _ = updates_from_output(Command(update=cmd.update), set(self.graph.spec.channels))
        for g in cmd.goto_list():
            if isinstance(g, Send):
                writes.append(("__pregel_tasks", g))
            elif g in self.graph.nodes:
                writes.append((trigger_channel(g), None))
        return writes

    async def _first(self) -> bool:
        inp = self.input
        run = self.run
        is_command = isinstance(inp, Command)
        has_state = bool(self.checkpoint["channel_versions"])
        if self.forced_resuming is not None:
            self.resuming = self.forced_resuming and has_state
        else:
            self.resuming = has_state and (inp is None or is_command)
        # time travel: re-run from a past checkpoint on a new branch
        if self.requested_checkpoint_id and inp is None and self.saved is not None:
            source = self.saved.metadata.get("source")
            if source not in ("update", "fork"):
                if not self._plan():
                    self.noop = True
                    return False
                self.pending_writes = []
                await self._put_checkpoint("fork")
        if is_command:
            assert isinstance(inp, Command)
            if inp.resume is not None and self.checkpointer is None:
                raise RuntimeError("Cannot use Command(resume=...) without checkpointer")
            pending_ids = {i.id for _t, c, v in self.pending_writes if c == INTERRUPT for i in v}
            null_writes = self._command_writes(inp)
            resume = inp.resume
            if isinstance(resume, dict) and resume and set(resume) <= pending_ids:
                run.resume_map = dict(resume)
            elif resume is not None:
                if len(pending_ids) > 1:
                    raise RuntimeError(
                        "When there are multiple pending interrupts, you must specify the interrupt id when resuming."
                    )
                null_writes.append((RESUME, resume))
            if not null_writes and run.resume_map is None:
                raise EmptyInputError("Received empty Command input")
            if (
                null_writes
                and self.checkpointer is not None
                and self.checkpoint_config["configurable"].get("checkpoint_id")
            ):
                await self.checkpointer.aput_writes(
                    self.checkpoint_config, null_writes, NULL_TASK_ID
                )
            self.pending_writes.extend((NULL_TASK_ID, c, v) for c, v in null_writes)
        # a plain resume value waiting for the next interrupt() call
        for tid, c, v in self.pending_writes:
            if tid == NULL_TASK_ID and c == RESUME and not self.nested:
                run.null_resume = _NullResume(True, v)
        null_state_writes = [
            (c, v) for tid, c, v in self.pending_writes if tid == NULL_TASK_ID and c != RESUME
        ]
        if null_state_writes:
            self._apply_pseudo("__input__", null_state_writes)
        if self.resuming:
            mark_interrupt_seen(self.checkpoint)
            self._push("values", self._values())
            return True
        if inp is not None and not is_command:
            discard = self._plan()
            pseudo = Task(
                NULL_TASK_ID, "__input__", ("pull", "__input__"), None, [], self.graph.nodes[START]
            )
            pseudo.writes = [(START, inp)]
            apply_writes(self.checkpoint, self.channels, [*discard, pseudo], next_version)
            self.pending_writes = []
            await self._put_checkpoint("input")
            return True
        raise EmptyInputError(f"Received no input for {START}")

    # ------------------------------------------------------------------------------------
    # supersteps

    async def _tick(self) -> bool:
        if self.step > self.stop:
            raise GraphRecursionError(
                f"Recursion limit of {self.recursion_limit} reached without hitting a stop condition. "
                "You can increase the limit by setting the `recursion_limit` config key."
            )
        tasks = self._plan()
        self.tasks = tasks
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
        return True

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
                await run_step(self, tasks)
                fire_after = await self._barrier(tasks)
        except GraphInterrupt:
            status = "interrupted"
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):
            status = "cancelled"
            raise
        except BaseException as exc:
            status = "cancelled" if type(exc).__name__ == "RunStopped" else "error"
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
        changed = apply_writes(self.checkpoint, self.channels, tasks, next_version)
        em = self.run.emitter
        if em.active and before is not None:
            changes = self._diff(before, changed)
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
        if any(k in self.graph.output_keys for k in changed):
            self._push("values", self._values())
        self.pending_writes = []
        writers = list(dict.fromkeys(t.name for t in tasks))
        await self._put_checkpoint("loop", writers)
        return should_interrupt(self.checkpoint, self.interrupt_after, tasks)

    def _diff(self, before: dict[str, Any], changed: dict[str, list[Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for k in changed:
            if k not in self.graph.spec.channels:
                continue
            old = before.get(k, MISSING)
            ch = self.channels[k]
            new = ch.value
            if isinstance(new, AppendLog) and isinstance(old, AppendLog) and new.extends(old):
                out.append(
                    {
                        "channel": k,
                        "op": "append",
                        "appended": to_jsonable(new.delta_since(old)),
                        "length": len(new),
                    }
                )
            elif new is MISSING or (not ch.is_available()):
                out.append({"channel": k, "op": "clear"})
            elif isinstance(new, AppendLog):
                out.append(
                    {
                        "channel": k,
                        "op": "replace",
                        "value": to_jsonable(list(new)),
                        "length": len(new),
                    }
                )
            else:
                out.append({"channel": k, "op": "set", "value": to_jsonable(new, max_str=4000)})
        return out

    # ------------------------------------------------------------------------------------
    # snapshot helpers used by get_state

    def pregel_tasks(
        self, tasks: list[Task], pending: list[tuple[str, str, Any]]
    ) -> tuple[PregelTask, ...]:
        out = []
        for t in tasks:
            err = None
            intrs: tuple[Interrupt, ...] = ()
            result = None
            for tid, c, v in pending:
                if tid != t.id:
                    continue
                if c == ERROR:
                    err = Exception(v.get("message") if isinstance(v, dict) else v)
                elif c == INTERRUPT:
                    intrs += tuple(v)
            writes = [
                (c, v) for tid, c, v in pending if tid == t.id and c in self.graph.spec.channels
            ]
            if writes:
                result = dict(writes)
            out.append(PregelTask(t.id, t.name, t.path, err, intrs, None, result))
        return tuple(out)
