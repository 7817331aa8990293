"""A run's checkpoint IO: load the thread's checkpoint, save one after each superstep (or keep
it for the run's exit under durability "exit"), save a task's writes, flush what was kept
(spec section 1)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import (
    ERROR,
    INTERRUPT,
    NULL_TASK_ID,
    RESUME,
    Checkpoint,
    CheckpointMetadata,
    copy_checkpoint,
    empty_checkpoint,
    timestamp_of,
)
from engine.checkpoint.config_metadata import with_config_metadata
from engine.core.ids import uuid7
from engine.events import CheckpointSaved
from engine.graph.algo import TASKS, Task, plan_tasks, task_path_str, without_untracked
from engine.graph.algo import next_names as next_names_of
from engine.graph.channels import MISSING, BaseChannel

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
    from engine.graph.compiled import CompiledStateGraph
    from engine.graph.runtime import RunContext
    from engine.graph.subgraph_replay import ReplayState

__all__ = ["LoopCheckpoints"]


class LoopCheckpoints:
    """Mixin of ``PregelLoop``: reading and writing the thread's checkpoints."""

    graph: CompiledStateGraph
    run: RunContext
    config: dict[str, Any]
    input: Any
    checkpointer: BaseCheckpointSaver | None
    thread_id: str | None
    ns: str
    nested: bool
    durability: str
    parents: dict[str, str]
    checkpoint_map: dict[str, str]
    requested_checkpoint_id: str | None
    replay: ReplayState | None
    forced_resuming: bool | None
    superseded: bool
    saved: CheckpointTuple | None
    checkpoint: Checkpoint
    checkpoint_config: dict[str, Any]
    pending_writes: list[tuple[str, str, Any]]
    channels: dict[str, BaseChannel]
    step: int
    stop: int
    recursion_limit: int
    _saved_versions: dict[str, str]
    _deferred: tuple[dict[str, Any], Checkpoint, CheckpointMetadata, dict[str, str]] | None
    _deferred_writes: list[tuple[str, list[tuple[str, Any]], str]]
    _exit_failed: bool

    if TYPE_CHECKING:

        def push_checkpoint(
            self,
            config: dict[str, Any],
            parent_config: dict[str, Any] | None,
            metadata: CheckpointMetadata,
            upcoming: list[Task],
        ) -> None: ...

        def wants_checkpoints(self) -> bool: ...

    async def _load(self) -> None:
        conf = self.config.get("configurable", {})
        saver = self.checkpointer
        if saver is not None and self.thread_id is None:
            raise ValueError(
                "Checkpointer requires one or more of the following 'configurable' keys: "
                "thread_id, checkpoint_ns, checkpoint_id"
            )
        saved = None
        cmap = conf.get("checkpoint_map") or {}
        if not self.nested:
            self.checkpoint_map = dict(cmap)
            # a subgraph's config (from get_state(subgraphs=True)) addresses the root through
            # its checkpoint_map
            self.requested_checkpoint_id = (
                cmap.get("") if conf.get("checkpoint_ns") else conf.get("checkpoint_id")
            )
        else:
            self.requested_checkpoint_id = self.checkpoint_map.get(self.ns)
            if self.requested_checkpoint_id:
                self.input = None  # time travel to this subgraph's own checkpoint
            elif saver is not None and self.replay is not None:
                saved = await self.replay.load(saver, self.thread_id, self.ns)
                if saved is not False:
                    self.forced_resuming = False  # re-run from the state before the replay
                    saver = None  # loaded
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
            if self.requested_checkpoint_id and saved is not None:
                latest = await saver.aget_tuple(
                    {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.ns}}
                )
                self.superseded = (
                    latest is not None and latest.checkpoint["id"] != saved.checkpoint["id"]
                )
        if saved is False:
            saved = None
        self.saved = saved
        if saved is not None:
            self.checkpoint = copy_checkpoint(saved.checkpoint)
            self.metadata: CheckpointMetadata = dict(saved.metadata)  # type: ignore[assignment]
            self.checkpoint_config = saved.config
            self.pending_writes = list(saved.pending_writes or [])
            if self.superseded:
                # the thread moved past this checkpoint: what its tasks wrote then is history
                # (kept for get_state_history); they run again, only open interrupts count,
                # and what a command wrote to the state there (LangGraph applies it again)
                self.pending_writes = [
                    w
                    for w in self.pending_writes
                    if w[1] == INTERRUPT or (w[0] == NULL_TASK_ID and w[1] not in (RESUME, ERROR))
                ]
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

    async def _put_checkpoint(
        self,
        source: str,
        writer_nodes: list[str] | None = None,
        updated: Iterable[str] | None = None,
    ) -> None:
        """Save the loop's checkpoint; ``updated``: the channels its step updated."""
        c = self.checkpoint
        new_id = uuid7()
        new = Checkpoint(
            v=c["v"],
            id=new_id,
            ts=timestamp_of(new_id),
            channel_values={
                k: ch.checkpoint()
                for k, ch in self.channels.items()
                if ch.tracked and ch.holds_state()
            },
            channel_versions=dict(c["channel_versions"]),
            versions_seen={k: dict(v) for k, v in c["versions_seen"].items()},
            updated_channels=None if updated is None else sorted(updated),
        )
        new["channel_values"] = {k: v for k, v in new["channel_values"].items() if v is not MISSING}
        sends = new["channel_values"].get(TASKS)
        if isinstance(sends, list):
            new["channel_values"][TASKS] = [without_untracked(p, self.channels) for p in sends]
        metadata: CheckpointMetadata = {
            "source": source,
            "step": self.step,
            "parents": dict(self.parents),
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
        # what the saver keeps: the run config's own keys too (as LangGraph's savers add
        # them); the stream shows the loop's metadata alone, as LangGraph's
        saved_meta = with_config_metadata(metadata, self.config) if saver is not None else metadata
        config = {
            "configurable": {
                "thread_id": self.thread_id,
                "checkpoint_ns": self.ns,
                "checkpoint_id": new["id"],
            }
        }
        if saver is not None:
            if self.durability == "exit":
                # the writes kept so far made this checkpoint: only the last one's own pending
                # writes are saved on exit, as LangGraph keeps them
                self._deferred_writes = []
                if self._deferred is None:
                    self._deferred = (self.checkpoint_config, new, saved_meta, new_versions)
                else:
                    prev_versions = self._deferred[3]
                    self._deferred = (
                        self._deferred[0],
                        new,
                        saved_meta,
                        {**prev_versions, **new_versions},
                    )
            else:
                await saver.aput(self.checkpoint_config, new, saved_meta, new_versions)
        self._saved_versions = dict(new["channel_versions"])
        self.checkpoint = new
        self.metadata = metadata
        self.checkpoint_config = config
        em = self.run.emitter
        em.checkpoint_id = new["id"]
        # the next tasks themselves for a ``checkpoints`` stream; only their names for the
        # event (the next superstep plans them anyway)
        upcoming = (
            plan_tasks(self.checkpoint, self.channels, self.graph.nodes, self.step + 1, self.ns)
            if self.wants_checkpoints()
            else []
        )
        if upcoming or not em.active:
            next_names = [t.name for t in upcoming]
        else:
            next_names = next_names_of(self.checkpoint, self.channels, self.graph.nodes)
        if self.durability == "exit" and self._deferred is not None:
            first_parent = self._deferred[0]
            parent_config = (
                first_parent if first_parent["configurable"].get("checkpoint_id") else None
            )
        if em.active:
            await em.emit(
                CheckpointSaved,
                checkpoint_id=new["id"],
                parent_id=parent_config["configurable"]["checkpoint_id"] if parent_config else None,
                step=self.step,
                source=source,
                next=next_names,
                writer_nodes=writer_nodes or [],
                checkpoint_ns=self.ns,
                parents=dict(self.parents),
            )
        if saver is not None:
            streamed_parent = parent_config
            if self.durability == "exit":
                # as LangGraph streams it: nothing is saved before the run exits, so the only
                # parent a checkpoint can name is the one the caller asked for
                asked = self.config.get("configurable", {}).get("checkpoint_id")
                streamed_parent = parent_config if asked else None
            self.push_checkpoint(config, streamed_parent, metadata, upcoming)
        self.step += 1
        em.step = self.step

    async def save_task_writes(self, task: Task, writes: list[tuple[str, Any]]) -> None:
        self.pending_writes = [w for w in self.pending_writes if w[0] != task.id]
        self.pending_writes.extend((task.id, c, v) for c, v in writes)
        saver = self.checkpointer
        if saver is None:
            return
        # untracked channels (UntrackedValue) are never persisted, not even as pending writes
        # or inside the state a Send carries
        writes = [
            (c, without_untracked(v, self.channels) if c == TASKS else v)
            for c, v in writes
            if getattr(self.channels.get(c), "tracked", True)
        ]
        path = task_path_str(task.public_path)
        if self.durability == "exit":
            self._deferred_writes.append((task.id, writes, path))
            return
        await put_task_writes(saver, self.checkpoint_config, writes, task.id, path)

    async def _flush_deferred(self) -> None:
        saver = self.checkpointer
        if saver is None or self.durability != "exit":
            return
        if self.nested and not self._exit_failed and ":" in self.ns:
            # a subgraph that finished keeps nothing on exit (one compiled with
            # checkpointer=True, whose namespace has no task ids, keeps its state)
            self._deferred = None
            self._deferred_writes = []
            return
        if self._deferred is not None:
            parent, ckpt, meta, versions = self._deferred
            await saver.aput(parent, ckpt, meta, versions)
            self._deferred = None
        for task_id, writes, path in self._deferred_writes:
            await put_task_writes(saver, self.checkpoint_config, writes, task_id, path)
        self._deferred_writes = []


_TAKES_PATH: dict[type, bool] = {}


def _takes_task_path(saver: Any) -> bool:
    """Does the saver's ``aput_writes`` take a task path (LangGraph's savers, ours)?  A saver
    written for the older three-argument form gets none, as LangGraph checks too."""
    cls = type(saver)
    known = _TAKES_PATH.get(cls)
    if known is None:
        try:
            params = inspect.signature(cls.aput_writes).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        known = _TAKES_PATH[cls] = "task_path" in params or any(
            p.kind is inspect.Parameter.VAR_POSITIONAL for p in params.values()
        )
    return known


async def put_task_writes(
    saver: Any, config: dict[str, Any], writes: Any, task_id: str, task_path: str
) -> None:
    """``saver.aput_writes`` of one task's writes, with the task's path where it takes one."""
    if task_path and _takes_task_path(saver):
        await saver.aput_writes(config, writes, task_id, task_path)
    else:
        await saver.aput_writes(config, writes, task_id)
