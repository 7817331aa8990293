"""State, history and ``update_state`` of an attached graph, through the app's own checkpointer.

The sync methods are LangGraph's own.  The async ones of an attached graph that runs
synchronously (its middleware or its saver is sync only) call LangGraph's sync methods on a
worker thread.
``update_state`` (an edit, a fork) is announced as on our graphs, a ``state.updated`` and a
``checkpoint.saved`` event, and copied into the session files the graph mirrors to.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from engine.core.aio import run_sync
from engine.core.ids import new_run_id
from engine.events import CheckpointSaved, StateUpdated
from engine.observe.bus import EventBus, RunEmitter
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.attach.mirror import CheckpointMirror

__all__ = ["AttachedState"]


def _with_ns(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with a ``checkpoint_ns`` (the root graph's, ""): LangGraph's savers need one
    to write the checkpoint an ``update_state`` from a given checkpoint makes, and LangGraph
    does not add it itself."""
    conf = dict(config.get("configurable") or {})
    if "checkpoint_ns" in conf or not conf.get("checkpoint_id"):
        return config
    return {**config, "configurable": {**conf, "checkpoint_ns": ""}}


class AttachedState:
    """The state API of ``AttachedGraph`` (mixed in)."""

    real: Any
    sync: bool
    bus: EventBus
    mirrors: list[CheckpointMirror]

    async def _real(self, method: str, *args: Any, **kw: Any) -> Any:
        """``self.real.<method>`` (sync, on a worker thread) or ``a<method>`` (async)."""
        if self.sync:
            return await asyncio.to_thread(getattr(self.real, method), *args, **kw)
        return await getattr(self.real, f"a{method}")(*args, **kw)

    def get_state(self, config: dict[str, Any], **kw: Any) -> Any:
        return self.real.get_state(config, **kw)

    async def aget_state(self, config: dict[str, Any], **kw: Any) -> Any:
        return await self._real("get_state", config, **kw)

    def get_state_history(self, config: dict[str, Any], **kw: Any) -> Iterator[Any]:
        return self.real.get_state_history(config, **kw)  # type: ignore[no-any-return]

    async def aget_state_history(self, config: dict[str, Any], **kw: Any) -> AsyncIterator[Any]:
        if self.sync:
            history = self.real.get_state_history
            for snap in await asyncio.to_thread(lambda: list(history(config, **kw))):
                yield snap
            return
        async for snap in self.real.aget_state_history(config, **kw):
            yield snap

    def update_state(
        self, config: dict[str, Any], values: Any, as_node: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        return run_sync(self.aupdate_state(config, values, as_node, **kw))

    async def aupdate_state(
        self, config: dict[str, Any], values: Any, as_node: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        from engine.attach.real_input import to_real_input

        new_config: dict[str, Any] = await self._real(
            "update_state", _with_ns(config), to_real_input(values), as_node=as_node, **kw
        )
        await self._announce(config, new_config, values, as_node)
        return new_config

    def bulk_update_state(
        self, config: dict[str, Any], supersteps: Any, **kw: Any
    ) -> dict[str, Any]:
        return run_sync(self.abulk_update_state(config, supersteps, **kw))

    async def abulk_update_state(
        self, config: dict[str, Any], supersteps: Any, **kw: Any
    ) -> dict[str, Any]:
        """LangGraph's ``bulk_update_state``, one superstep (one checkpoint) at a time, each
        announced as an ``update_state``'s."""
        from engine.attach.real_input import to_real_input

        steps = [list(step) for step in supersteps]
        if not steps:
            raise ValueError("No supersteps provided")
        if any(not step for step in steps):
            raise ValueError("No updates provided")
        for step in steps:
            real_step = [type(u)(to_real_input(u.values), *u[1:]) for u in step]
            new_config: dict[str, Any] = await self._real(
                "bulk_update_state", _with_ns(config), [real_step], **kw
            )
            last = step[-1]
            await self._announce(config, new_config, last.values, last.as_node)
            config = new_config
        return config

    async def _announce(
        self, config: dict[str, Any], new_config: dict[str, Any], values: Any, as_node: str | None
    ) -> None:
        """The events of an ``update_state``, and its copy in the mirrored session files."""
        if not self.mirrors and not self.bus.has_subscribers:
            return
        snap = await self.aget_state(new_config)
        conf = new_config.get("configurable", {})
        thread, cid = str(conf.get("thread_id")), str(conf.get("checkpoint_id"))
        meta = dict(snap.metadata or {})
        parent = ((snap.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
        if parent is None:
            parent = config.get("configurable", {}).get("checkpoint_id")
        em = RunEmitter(f"update-{new_run_id()}", thread, [self.bus])
        em.step = meta.get("step")
        em.checkpoint_id = cid
        if isinstance(values, dict) and values:
            changes = [
                {"channel": str(k), "op": "set", "value": to_jsonable(v, max_str=4000)}
                for k, v in values.items()
            ]
            await em.emit(StateUpdated, changes=changes)
        source = meta.get("source")
        await em.emit(
            CheckpointSaved,
            parent_id=parent,
            source=source if source in ("input", "loop", "update", "fork") else "update",
            next=[str(n) for n in snap.next],
            writer_nodes=[as_node] if as_node else [],
        )
        for mirror in self.mirrors:
            await mirror.put(
                thread_id=thread,
                ns=str(conf.get("checkpoint_ns") or ""),
                checkpoint_id=cid,
                parent_id=parent,
                values=snap.values,
                metadata={**meta, "run_id": em.run_id},
                ts=snap.created_at,
            )
