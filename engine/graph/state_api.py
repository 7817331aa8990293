"""Reading and editing a thread's state: get_state, get_state_history, update_state (spec §2)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import (
    ERROR,
    INTERRUPT,
    NULL_TASK_ID,
    RESUME,
    Checkpoint,
    CheckpointTuple,
    copy_checkpoint,
    empty_checkpoint,
    next_version,
    timestamp_of,
    version_number,
)
from engine.checkpoint.config_metadata import with_config_metadata
from engine.core.aio import iter_sync, run_sync
from engine.core.ids import new_run_id, uuid7
from engine.errors import InvalidUpdateError
from engine.events import CheckpointSaved, StateUpdated
from engine.graph.algo import RETURN, Task, apply_writes, finish_waiting, plan_tasks
from engine.graph.channels import MISSING, BaseChannel
from engine.graph.runtime import current_run
from engine.graph.subgraph_state import SAVER_KEY, SubgraphStateAPI, with_checkpoint_map
from engine.graph.task_writes import compute_writes
from engine.message_log import plain
from engine.observe.bus import RunEmitter
from engine.serde import to_jsonable
from engine.types import END, START, Interrupt, PregelTask, StateSnapshot, StateUpdate

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.algo import PregelNode
    from engine.graph.state import StateSpec

__all__ = ["UPDATED_BY", "StateAPI"]

UPDATED_BY = "__update__"
"""``versions_seen[UPDATED_BY]``: the nodes the latest ``update_state`` acted as (LangGraph
keeps no record of an update's writer in the metadata; this is where ours is)."""


def _error_repr(saved: Any) -> str:
    """A saved task error as LangGraph shows it in snapshots: ``Type('message')``."""
    if isinstance(saved, dict):
        message = saved.get("message", "")
        # an exception raised without arguments (a task cancelled for a sibling's failure)
        return f"{saved.get('type', 'Exception')}({'' if message is None else repr(message)})"
    return str(saved)


def _as_update(item: Any) -> StateUpdate:
    """A ``StateUpdate`` from one item of ``update_state(..., values=[...], as_node="__copy__")``
    (a ``StateUpdate`` or a ``(values, as_node[, task_id])`` tuple)."""
    if isinstance(item, StateUpdate):
        return item
    if isinstance(item, tuple | list) and 1 <= len(item) <= 3:
        return StateUpdate(*item)
    raise InvalidUpdateError(f"Invalid update item: {item!r} when copying checkpoint")


class StateAPI(SubgraphStateAPI):
    """Mixin of ``CompiledStateGraph``: the state-reading and state-editing API."""

    channels: dict[str, BaseChannel]
    nodes: dict[str, PregelNode]
    spec: StateSpec
    input_keys: list[str]
    output_keys: list[str]
    name: str

    def _saver(self) -> BaseCheckpointSaver | None:  # pragma: no cover - provided by the class
        raise NotImplementedError

    def _require_saver(self, config: dict[str, Any] | None = None) -> BaseCheckpointSaver:
        saver = self._lent_saver(config) or self._saver()
        if saver is None:
            raise ValueError(
                "No checkpointer set: compile the graph with a checkpointer to read or update its state"
            )
        return saver

    def _restore(self, checkpoint: Checkpoint) -> dict[str, BaseChannel]:
        values = checkpoint["channel_values"]
        return {
            k: spec.from_checkpoint(values.get(k, MISSING)) for k, spec in self.channels.items()
        }

    def _state_values(self, channels: dict[str, BaseChannel]) -> Any:
        keys: list[str] | None = getattr(self, "stream_keys", None)
        return self.spec.present(
            {
                k: plain(channels[k].get())
                for k in (self.spec.channels if keys is None else keys)
                if k in channels and channels[k].tracked and channels[k].is_available()
            }
        )

    def _snapshot(self, saved: CheckpointTuple, live: bool) -> StateSnapshot:
        checkpoint = copy_checkpoint(saved.checkpoint)
        channels = self._restore(checkpoint)
        ns = saved.config["configurable"].get("checkpoint_ns", "")
        step = int(saved.metadata.get("step", -1)) + 1
        tasks = plan_tasks(checkpoint, channels, self.nodes, step, ns)
        # what a command wrote to the state there (``Command(update=...)`` with a resume)
        # shows in it, as LangGraph shows it
        null_writes = [
            (c, v)
            for t, c, v in saved.pending_writes or []
            if t == NULL_TASK_ID and c not in (ERROR, INTERRUPT, RESUME)
        ]
        if null_writes:
            pseudo = Task(
                NULL_TASK_ID, "__input__", ("pull", "__input__"), None, [], self.nodes[START]
            )
            pseudo.writes = null_writes
            apply_writes(checkpoint, channels, [pseudo], next_version)
        pending = [w for w in (saved.pending_writes or []) if w[0] != NULL_TASK_ID]
        done: set[str] = set()
        if live and tasks:
            by_id = {t.id: t for t in tasks}
            for tid, c, v in pending:
                t = by_id.get(tid)
                if t is not None and c not in (ERROR, INTERRUPT, RESUME):
                    t.writes.append((c, v))
                    done.add(tid)
            finished = [t for t in tasks if t.id in done]
            if finished:
                apply_writes(checkpoint, channels, finished, next_version)
        next_names = (
            tuple(t.name for t in tasks if t.id not in done)
            if live
            else tuple(t.name for t in tasks)
        )
        ptasks: list[PregelTask] = []
        all_interrupts: list[Interrupt] = []
        for t in tasks:
            err: Any = None
            intrs: tuple[Interrupt, ...] = ()
            output: list[tuple[str, Any]] = []
            for tid, c, v in pending:
                if tid != t.id:
                    continue
                if c == ERROR:
                    err = _error_repr(v) if err is None else err
                elif c == INTERRUPT:
                    intrs = tuple(v)  # the latest interrupts the task raised
                elif c != RESUME:
                    output.append((c, v))
            finished = bool(output)  # a task that ran to its end wrote something (or NO_WRITES)
            if finished and live:
                intrs = ()  # answered: the live view shows only what still waits
            all_interrupts.extend(intrs)  # a past checkpoint shows every interrupt of its step
            result = self._task_result(output) if finished else None
            ptasks.append(PregelTask(t.id, t.name, t.public_path, err, intrs, None, result))
        return StateSnapshot(
            values=self._state_values(channels),
            next=next_names,
            config=with_checkpoint_map(saved.config, saved.metadata) or saved.config,
            metadata=dict(saved.metadata),
            created_at=checkpoint["ts"] or None,
            parent_config=with_checkpoint_map(saved.parent_config, saved.metadata),
            tasks=tuple(ptasks),
            interrupts=tuple(all_interrupts),
        )

    def _task_result(self, output: list[tuple[str, Any]]) -> Any:
        """A finished task's result as LangGraph shows it: its writes to the output keys (a
        key written more than once holds ``{"$writes": [...]}``); for a single-value state,
        that value; for a functional-API task, what it returned."""
        for c, v in output:
            if c == RETURN:
                return v
        single = self.spec.result_key
        keys = [single] if single is not None else self.output_keys
        mapped: dict[str, Any] = {}
        for c, v in output:
            if c not in keys:
                continue
            if c in mapped:
                prev = mapped[c]
                many = prev["$writes"] if isinstance(prev, dict) and "$writes" in prev else [prev]
                mapped[c] = {"$writes": [*many, v]}
            else:
                mapped[c] = v
        if single is not None:
            return mapped.get(single)
        return mapped

    # -- get_state ---------------------------------------------------------------------------

    async def aget_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's state at its newest checkpoint (or the one named in ``config``)."""
        saver = self._require_saver(config)
        if (sub := self._subgraph_for(config, saver)) is not None:
            graph, sub_config = sub
            return await graph.aget_state(sub_config, subgraphs=subgraphs)
        config = self._own_config(config)
        conf = config.get("configurable", {})
        saved = await saver.aget_tuple(
            {"configurable": {k: v for k, v in conf.items() if k != SAVER_KEY}}
        )
        if saved is None:
            return StateSnapshot({}, (), config, None, None, None, (), ())
        snap = self._snapshot(saved, live=not conf.get("checkpoint_id"))
        return await self._with_task_states(snap, saver, subgraphs)

    def get_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return run_sync(self.aget_state(config, subgraphs=subgraphs))

    async def aget_state_history(
        self,
        config: dict[str, Any],
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """Every checkpoint of the thread, newest first, across all branches (only the one
        ``config`` names, when it names one)."""
        saver = self._require_saver(config)
        if (sub := self._subgraph_for(config, saver)) is not None:
            graph, sub_config = sub
            async for snap in graph.aget_state_history(
                sub_config, filter=filter, before=before, limit=limit
            ):
                yield snap
            return
        conf = self._own_config(config).get("configurable", {})
        cfg = {
            "configurable": {
                "thread_id": conf.get("thread_id"),
                "checkpoint_ns": conf.get("checkpoint_ns", ""),
            }
        }
        if conf.get("checkpoint_id"):  # as LangGraph: the saver lists that checkpoint only
            cfg["configurable"]["checkpoint_id"] = conf["checkpoint_id"]
        async for t in saver.alist(cfg, filter=filter, before=before, limit=limit):
            yield await self._with_task_states(self._snapshot(t, live=False), saver, False)

    def get_state_history(self, config: dict[str, Any], **kwargs: Any) -> Iterator[StateSnapshot]:
        return iter_sync(self.aget_state_history(config, **kwargs))

    # -- update_state ------------------------------------------------------------------------

    def _infer_as_node(self, checkpoint: Checkpoint) -> str:
        seen = checkpoint["versions_seen"]
        from engine.checkpoint.base import version_number

        latest: dict[str, int] = {}
        for node, chans in seen.items():
            if node in self.nodes and chans:
                latest[node] = max(version_number(v) for v in chans.values())
        if not latest:
            if not any(seen.values()):
                return START
            raise InvalidUpdateError("Ambiguous update, specify as_node")
        ranked = sorted(latest.items(), key=lambda kv: kv[1])
        if len(ranked) > 1 and ranked[-1][1] == ranked[-2][1]:
            raise InvalidUpdateError("Ambiguous update, specify as_node")
        return ranked[-1][0]

    async def aupdate_state(
        self,
        config: dict[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as if node ``as_node`` had returned them; returns the new config.

        The node's edges run too, so ``next`` is recomputed.  ``as_node="__input__"`` acts as
        new input, ``"__copy__"`` clones the checkpoint, ``values=None, as_node=END`` clears
        the pending tasks.  A past ``checkpoint_id`` in ``config`` starts a new branch.
        """
        saver = self._require_saver(config)
        if (sub := self._subgraph_for(config, saver, for_update=True)) is not None:
            graph, sub_config = sub
            return await graph.aupdate_state(sub_config, values, as_node, task_id)  # type: ignore[no-any-return]
        return await self.abulk_update_state(config, [[StateUpdate(values, as_node, task_id)]])

    async def abulk_update_state(
        self, config: dict[str, Any], supersteps: Sequence[Sequence[StateUpdate]]
    ) -> dict[str, Any]:
        """Apply several updates per superstep (one checkpoint per superstep), as if the
        named nodes had all run in that step; returns the config of the last checkpoint."""
        saver = self._require_saver(config)
        if not supersteps:
            raise ValueError("No supersteps provided")
        if all(not step for step in supersteps):
            raise ValueError("No updates provided")
        config = self._own_config(config)
        conf = config.get("configurable", {})
        thread_id = conf.get("thread_id")
        if thread_id is None:
            raise ValueError("update_state needs config['configurable']['thread_id']")
        ns = conf.get("checkpoint_ns", "")
        own = current_run()
        saver.check_thread_free(
            str(thread_id), "update_state", own_run=own.run_id if own is not None else None
        )
        current = config
        for updates in supersteps:
            if not updates:
                continue
            current = await self._update_one_step(saver, current, thread_id, ns, list(updates))
        return current

    async def _update_one_step(
        self,
        saver: BaseCheckpointSaver,
        config: dict[str, Any],
        thread_id: Any,
        ns: str,
        updates: list[StateUpdate],
    ) -> dict[str, Any]:
        if len(updates) > 1:
            for u in updates:
                if u.as_node is None:
                    raise InvalidUpdateError("as_node is required when applying multiple updates")
                if u.as_node in ("__copy__", "__input__", END):
                    raise InvalidUpdateError(
                        f"{u.as_node} updates cannot be combined with other updates in a superstep"
                    )
        conf = config.get("configurable", {})
        saved = await saver.aget_tuple(
            {"configurable": {k: v for k, v in conf.items() if k != SAVER_KEY}}
        )
        checkpoint = copy_checkpoint(saved.checkpoint) if saved else empty_checkpoint()
        prev_step = int(saved.metadata.get("step", -2)) if saved else -2
        parent_config = (
            saved.config
            if saved
            else {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        )
        checkpoint["versions_seen"].pop(UPDATED_BY, None)  # an earlier update's writers
        channels = self._restore(checkpoint)
        prev_versions = dict(checkpoint["channel_versions"])
        before_values = {k: channels[k].value for k in self.spec.channels}
        source = "update"
        writer = updates[0].as_node or ""

        first = updates[0]
        as_node, values = first.as_node, first.values
        if as_node == "__copy__":
            if saved is None:
                raise InvalidUpdateError("Cannot copy a checkpoint that does not exist")
            source = "fork"
            # the copy is a sibling of the original: same parent, same values
            parent_config = saved.parent_config or {
                "configurable": {"thread_id": thread_id, "checkpoint_ns": ns}
            }
        elif values is None and as_node == END:
            tasks = plan_tasks(checkpoint, channels, self.nodes, prev_step + 1, ns)
            apply_writes(checkpoint, channels, tasks, next_version)
        elif as_node == "__input__":
            pseudo = Task(
                NULL_TASK_ID, "__input__", ("pull", "__input__"), None, [], self.nodes[START]
            )
            pseudo.writes = [(START, values)]
            discard = plan_tasks(checkpoint, channels, self.nodes, prev_step + 1, ns)
            apply_writes(checkpoint, channels, [*discard, pseudo], next_version)
            source = "input"
        else:
            if as_node is None:
                as_node = self._infer_as_node(checkpoint)
            writer = as_node
            # an update as node X stands for the task X that was due: its writes are saved as
            # that task's pending writes, so the history shows them as its result
            due: dict[str, list[str]] = {}
            if saved is not None:
                for t in plan_tasks(checkpoint, channels, self.nodes, prev_step + 1, ns):
                    due.setdefault(t.name, []).append(t.id)
            tasks: list[Task] = []
            for u in updates:
                name = u.as_node or as_node
                if name not in self.nodes:
                    raise InvalidUpdateError(f"Node {name} does not exist")
                node = self.nodes[name]
                ids = due.get(name)
                task_id = u.task_id or (ids.pop(0) if ids else uuid7())
                task = Task(task_id, name, ("pull", name), None, [INTERRUPT], node)
                task.writes = await compute_writes(
                    task,
                    node.write_values(u.values) if node.write_values else u.values,
                    channels=channels,
                    nodes=self.nodes,
                    spec=self.spec,
                    input_keys=self.input_keys,
                    config=config,
                    route_reason=lambda: None,
                )
                tasks.append(task)
            if saved is not None:
                for task in tasks:
                    await saver.aput_writes(saved.config, task.writes, task.id)
            apply_writes(checkpoint, channels, tasks, next_version)
            if not plan_tasks(checkpoint, channels, self.nodes, prev_step + 2, ns):
                # nothing the update wrote makes a node due: a deferred node waiting (say at
                # its interrupt_before) is due, as after a step of the run that wrote the same
                top = max(checkpoint["channel_versions"].values(), key=version_number)
                finish_waiting(checkpoint, channels, top)
            # who wrote this update (for a history without events); not a node's entry, so
            # inferring the last writer and planning are unaffected
            mark = max(checkpoint["channel_versions"].values(), key=version_number, default=None)
            checkpoint["versions_seen"][UPDATED_BY] = {t.name: mark or "" for t in tasks}
            if len(updates) > 1:
                values = {u.as_node: u.values for u in updates}
                writer = ",".join(str(u.as_node) for u in updates)

        new_id = uuid7()
        new = Checkpoint(
            v=checkpoint["v"],
            id=new_id,
            ts=timestamp_of(new_id),
            channel_values={
                k: ch.checkpoint() for k, ch in channels.items() if ch.tracked and ch.holds_state()
            },
            channel_versions=dict(checkpoint["channel_versions"]),
            versions_seen=checkpoint["versions_seen"],
            updated_channels=None,  # as LangGraph's update_state saves it
        )
        new["channel_values"] = {k: v for k, v in new["channel_values"].items() if v is not MISSING}
        step = prev_step + 1
        metadata = {
            "source": source,
            "step": step,
            "parents": dict(saved.metadata.get("parents") or {}) if saved else {},
        }
        new_versions = {
            k: v for k, v in new["channel_versions"].items() if prev_versions.get(k) != v
        }
        if source == "fork":
            new_versions = {}
        saved_meta = with_config_metadata(metadata, config)  # the caller's keys, as LangGraph's
        new_config = await saver.aput(parent_config, new, saved_meta, new_versions)  # type: ignore[arg-type]
        await self._emit_update(
            new_config, parent_config, before_values, channels, step, source, writer, saver
        )
        if source == "fork" and isinstance(values, list) and values:
            # copy and update in one go: the updates are the copy's next superstep
            return await self._update_one_step(
                saver, new_config, thread_id, ns, [_as_update(v) for v in values]
            )
        return new_config

    def update_state(
        self,
        config: dict[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        return run_sync(self.aupdate_state(config, values, as_node, task_id))

    def bulk_update_state(
        self, config: dict[str, Any], supersteps: Sequence[Sequence[StateUpdate]]
    ) -> dict[str, Any]:
        return run_sync(self.abulk_update_state(config, supersteps))

    async def _emit_update(
        self,
        new_config: dict[str, Any],
        parent_config: dict[str, Any],
        before: dict[str, Any],
        channels: dict[str, BaseChannel],
        step: int,
        source: str,
        writer: str,
        saver: BaseCheckpointSaver,
    ) -> None:
        bus = getattr(self, "bus", None)
        if bus is None or not bus.has_subscribers:
            return
        conf = new_config["configurable"]
        em = RunEmitter(f"update-{new_run_id()}", str(conf["thread_id"]), [bus])
        em.step = step
        em.checkpoint_id = conf["checkpoint_id"]
        changes = []
        for k in self.spec.channels:
            new_v = channels[k].value
            if new_v is not before.get(k):
                changes.append(
                    {"channel": k, "op": "set", "value": to_jsonable(new_v, max_str=4000)}
                )
        if changes:
            await em.emit(StateUpdated, changes=changes)
        saved = await saver.aget_tuple(new_config)
        nxt = list(self._snapshot(saved, live=True).next) if saved else []
        await em.emit(
            CheckpointSaved,
            parent_id=parent_config["configurable"].get("checkpoint_id"),
            source=source,  # type: ignore[arg-type]
            next=nxt,
            writer_nodes=[writer] if writer else [],
        )
