"""``SessionTarget``: a recorded ``.stepwise`` session, read offline like a live target.

Everything a timeline and the state docks read comes from the file: the graph recorded with the
runs, the threads, every checkpoint and its state (pending interrupts included).  It cannot run
or write: its capabilities say so.  Re-running a recorded session from a checkpoint needs the
agent's code and is the studio's (``studio.history.replay``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.checkpoint.base import INTERRUPT, NULL_TASK_ID, make_config
from engine.graph.drawing import DrawableGraph
from engine.observe.bus import EventBus
from engine.recording import CheckpointInfo, Session
from engine.targets.base import (
    Capabilities,
    Capability,
    RunRequest,
    TargetError,
    TargetKind,
    ThreadInfo,
    ThreadQuery,
)
from engine.targets.graph_target import INTERNAL_CHANNELS
from engine.targets.records import CheckpointRecord
from engine.types import Interrupt, PregelTask, StateSnapshot

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.events import EventBase
    from engine.observe.bus import Subscription
    from engine.targets.base import RunHandle

__all__ = ["SessionTarget", "session_records"]

_READ_ONLY = "a recorded session is read only"


def session_records(session: Session, thread_id: str) -> list[CheckpointRecord]:
    """The thread's checkpoints with what the recording knows (next, writer nodes, run)."""
    writers: dict[str, tuple[str, ...]] = {}
    for text in session.iter_event_json(kinds=["checkpoint.saved"], page_size=5000):
        d = json.loads(text)
        if d.get("thread_id") == thread_id and not d.get("ns"):
            writers[d["checkpoint_id"]] = tuple(d.get("writer_nodes") or ())
    return [
        CheckpointRecord(
            checkpoint_id=info.checkpoint_id,
            parent_id=info.parent_id,
            step=info.step,
            source=info.source or "loop",
            writers=writers.get(info.checkpoint_id, ()),
            next=info.next,
            run_id=info.run_id,
        )
        for info in session.checkpoints(thread_id)
    ]


class SessionTarget:
    """A session file as a read-only target (see module docstring)."""

    kind: TargetKind = "session"

    def __init__(
        self, session: Session, thread_id: str, drawable: DrawableGraph | None, name: str
    ) -> None:
        self.session = session
        self.thread_id = thread_id
        self.checkpointer = session.checkpointer
        self.name = name
        self.bus = EventBus()
        self._drawable = drawable
        self._infos: dict[str, CheckpointInfo] = {}
        self.refresh()

    @property
    def capabilities(self) -> Capabilities:
        missing = {c: _READ_ONLY for c in Capability if c != Capability.THREADS}
        return Capabilities(missing)

    def refresh(self) -> None:
        """Re-read the checkpoint list (after a re-run appended to the file)."""
        self._infos = {i.checkpoint_id: i for i in self.session.checkpoints(self.thread_id)}

    # -- shape -----------------------------------------------------------------------------

    def shape(self, xray: bool | int = False) -> DrawableGraph:
        return self._drawable if self._drawable is not None else DrawableGraph(name=self.name)

    def state_keys(self) -> list[str]:
        """The state keys of the newest checkpoint (read from the row, no values loaded)."""
        from engine.targets.checkpoint_list import stored_row_parts

        row = self.checkpointer._get_row(self.thread_id, "", None)
        if row is None:
            return []
        present = stored_row_parts(json.loads(row.body))[2]
        return [k for k in sorted(present) if not k.startswith(INTERNAL_CHANNELS)]

    def input_schema(self) -> dict[str, Any] | None:
        return None

    def context_schema(self) -> dict[str, Any] | None:
        return None

    def subscribe(self, callback: Callable[[EventBase], object]) -> Subscription:
        return self.bus.subscribe(callback)

    # -- threads and time travel -----------------------------------------------------------

    async def threads(self, query: ThreadQuery | None = None) -> list[ThreadInfo]:
        q = query or ThreadQuery()
        ids = self.session.threads()
        return [ThreadInfo(t) for t in ids][q.offset : q.offset + q.limit]

    async def checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        return session_records(self.session, thread_id)

    async def history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot]:
        infos = list(reversed(self.session.checkpoints(thread_id)))
        if before is not None:
            ids = [i.checkpoint_id for i in infos]
            infos = infos[ids.index(before) + 1 :] if before in ids else []
        if limit is not None:
            infos = infos[:limit]
        return [self.read(thread_id, i.checkpoint_id) for i in infos]

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = ""
    ) -> StateSnapshot | None:
        return self.read(thread_id, checkpoint_id, checkpoint_ns)

    def read(
        self, thread_id: str | None, checkpoint_id: str | None = None, checkpoint_ns: str = ""
    ) -> StateSnapshot:
        """The state at a checkpoint, from the file (synchronously: a local read)."""
        thread = thread_id or self.thread_id
        config = (
            make_config(thread, checkpoint_ns, checkpoint_id)
            if checkpoint_id
            else {"configurable": {"thread_id": thread, "checkpoint_ns": checkpoint_ns}}
        )
        saved = self.checkpointer.get_tuple(config)
        if saved is None:
            return StateSnapshot({}, (), config, None, None, None, ())
        cid = saved.config["configurable"]["checkpoint_id"]
        info = self._infos.get(cid)
        if info is None:
            self.refresh()
            info = self._infos.get(cid)
        values = {
            k: v
            for k, v in saved.checkpoint["channel_values"].items()
            if not k.startswith(INTERNAL_CHANNELS)
        }
        interrupts: list[Interrupt] = []
        tasks: list[PregelTask] = []
        for task_id, channel, value in saved.pending_writes or []:
            if channel == INTERRUPT and task_id != NULL_TASK_ID:
                found = tuple(value) if isinstance(value, list | tuple) else (value,)
                mine = tuple(i for i in found if isinstance(i, Interrupt))
                interrupts.extend(mine)
                tasks.append(PregelTask(task_id, "", (), None, mine))
        return StateSnapshot(
            values=values,
            next=tuple(info.next or ()) if info is not None else (),
            config=saved.config,
            metadata=dict(saved.metadata),
            created_at=saved.checkpoint["ts"] or None,
            parent_config=saved.parent_config,
            tasks=tuple(tasks),
            interrupts=tuple(interrupts),
        )

    async def update_state(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        raise TargetError(f"Editing state: {_READ_ONLY}")

    # -- running ---------------------------------------------------------------------------

    def run(self, request: RunRequest, debugger: Debugger) -> RunHandle:
        raise TargetError(f"Running: {_READ_ONLY} (re-run it from a checkpoint instead)")

    async def aclose(self) -> None:
        self.session.close()
