"""Open a recorded ``.stepwise`` session offline, so every view behaves as it did live.

``open_session(hub, path)`` loads the session into the hub: the thread, the recorded graph
shape (the Graph dock draws it), a ``SessionGraph`` standing in for the compiled graph (so
``hub.snapshot(cid)`` reads the state at any checkpoint from the file) and the recorded events,
fed in pages.  The first pages are fed at once; ``OpenedSession.afeed_rest`` feeds the rest
in chunks, yielding to the event loop between them, up to ``feed_limit`` events (50,000 by
default: an event object costs about 2 KB in the hub, so a million-event session opens in
under a second and stays within a few hundred MB; views that need more page from
``OpenedSession.session``).

"Re-run from here" (``OpenedSession.arerun``) needs the agent's code: a factory
``(model, checkpointer) -> compiled graph``.  It serves the model responses recorded after the
checkpoint through ``ReplayChatModel`` (until the run diverges; then the ``fallback`` model,
or the run stops), records the new branch into the same file and marks the divergence.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.checkpoint.base import INTERRUPT, NULL_TASK_ID, make_config
from engine.events import EventBase
from engine.graph.drawing import DrawableGraph
from engine.recording import CheckpointInfo, RunInfo, Session, SessionRecorder
from engine.types import Interrupt, PregelTask, StateSnapshot
from studio.models.timeline import CheckpointRecord, TimelineModel
from studio.timetravel import ReplayPlan, RerunResult, arerun, replay_plan

__all__ = [
    "OpenedSession",
    "SessionGraph",
    "open_session",
    "open_session_into",
    "recorded_model_events",
    "session_records",
]

_INTERNAL_PREFIXES = ("__", "branch:", "join:")
_MODEL_KINDS = ["model.request", "model.response"]
GraphFactory = Callable[[Any, Any], Any]
"""``(model, checkpointer) -> compiled graph`` for re-running a recorded session."""


def session_records(session: Session, thread_id: str) -> list[CheckpointRecord]:
    """The thread's checkpoints with what the recording knows (next, writer nodes, run)."""
    import json

    writers: dict[str, tuple[str, ...]] = {}
    for text in session.iter_event_json(kinds=["checkpoint.saved"], page_size=5000):
        d = json.loads(text)
        if d.get("thread_id") == thread_id and not d.get("ns"):
            writers[d["checkpoint_id"]] = tuple(d.get("writer_nodes") or ())
    out = []
    for info in session.checkpoints(thread_id):
        out.append(
            CheckpointRecord(
                checkpoint_id=info.checkpoint_id,
                parent_id=info.parent_id,
                step=info.step,
                source=info.source or "loop",
                writers=writers.get(info.checkpoint_id, ()),
                next=info.next,
                run_id=info.run_id,
            )
        )
    return out


def recorded_model_events(path: str | os.PathLike[str], thread_id: str) -> list[EventBase]:
    """Every recorded model request and response of a thread, in order, from a session file.

    For "Re-run with replay" on a live thread: the hub only holds the events since the last
    reset, the file holds every run (flush the recorder first)."""
    with Session.open(path) as session:
        return [
            ev
            for run in session.runs(thread_id)
            for ev in session.iter_events(run.run_id, kinds=_MODEL_KINDS)
        ]


class SessionGraph:
    """Stands in for the compiled graph of a recorded session: state reads come from the file.

    Enough of the graph API for the studio's views: ``get_state`` / ``aget_state``,
    ``get_graph``, ``checkpointer`` and ``name``.  It cannot run or update state.
    """

    def __init__(
        self, session: Session, thread_id: str, drawable: DrawableGraph | None, name: str
    ) -> None:
        self.session = session
        self.thread_id = thread_id
        self.checkpointer = session.checkpointer
        self.name = name
        self._drawable = drawable
        self._infos: dict[str, CheckpointInfo] = {}
        self.refresh()

    def refresh(self) -> None:
        """Re-read the checkpoint list (after a re-run appended to the file)."""
        self._infos = {i.checkpoint_id: i for i in self.session.checkpoints(self.thread_id)}

    @property
    def channels(self) -> dict[str, None]:
        """The state keys of the newest checkpoint (read from the row, no values loaded)."""
        import json

        from studio.models.timeline_sources import stored_row_parts

        row = self.checkpointer._get_row(self.thread_id, "", None)
        if row is None:
            return {}
        present = stored_row_parts(json.loads(row.body))[2]
        return {k: None for k in sorted(present) if not k.startswith(_INTERNAL_PREFIXES)}

    def get_graph(self, xray: bool | int = False) -> DrawableGraph:
        return self._drawable if self._drawable is not None else DrawableGraph(name=self.name)

    def timeline_records(self) -> list[CheckpointRecord]:
        return session_records(self.session, self.thread_id)

    def get_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        conf = config.get("configurable", {})
        cid = conf.get("checkpoint_id")
        thread = str(conf.get("thread_id") or self.thread_id)
        saved = self.checkpointer.get_tuple(
            make_config(thread, "", cid)
            if cid
            else {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        )
        if saved is None:
            return StateSnapshot({}, (), config, None, None, None, ())
        checkpoint_id = saved.config["configurable"]["checkpoint_id"]
        info = self._infos.get(checkpoint_id)
        if info is None:
            self.refresh()
            info = self._infos.get(checkpoint_id)
        values = {
            k: v
            for k, v in saved.checkpoint["channel_values"].items()
            if not k.startswith(_INTERNAL_PREFIXES)
        }
        nxt = tuple(info.next or ()) if info is not None else ()
        interrupts: list[Interrupt] = []
        tasks: list[PregelTask] = []
        for task_id, channel, value in saved.pending_writes or []:
            if channel == INTERRUPT and task_id != NULL_TASK_ID:
                found = tuple(value) if isinstance(value, list | tuple) else (value,)
                interrupts.extend(i for i in found if isinstance(i, Interrupt))
                tasks.append(
                    PregelTask(
                        task_id, "", (), None, tuple(i for i in found if isinstance(i, Interrupt))
                    )
                )
        return StateSnapshot(
            values=values,
            next=nxt,
            config=saved.config,
            metadata=dict(saved.metadata),
            created_at=saved.checkpoint["ts"] or None,
            parent_config=saved.parent_config,
            tasks=tuple(tasks),
            interrupts=tuple(interrupts),
        )

    async def aget_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return self.get_state(config, subgraphs=subgraphs)


@dataclass
class OpenedSession:
    """A session file loaded into a hub."""

    hub: Any
    session: Session
    path: Path
    thread_id: str
    runs: list[RunInfo]
    graph: SessionGraph
    feed_limit: int
    total_events: int
    fed: int = 0
    task: asyncio.Task[int] | None = None
    """Feeds the rest of the events (``open_session_into``)."""
    _pages: Iterator[list[EventBase]] | None = field(default=None, repr=False)

    @property
    def complete(self) -> bool:
        return self._pages is None

    def feed(self, max_events: int) -> int:
        """Feed up to ``max_events`` more recorded events into the hub; returns how many."""
        n = 0
        while self._pages is not None and n < max_events:
            page = next(self._pages, None)
            if page is None or self.fed >= self.feed_limit:
                self._pages = None
                break
            page = page[: self.feed_limit - self.fed]
            self.hub.add_events(page)
            self.fed += len(page)
            n += len(page)
        return n

    async def afeed_rest(self, chunk: int = 5000) -> int:
        """Feed the remaining events in chunks, yielding to the loop between chunks."""
        total = 0
        while not self.complete:
            total += self.feed(chunk)
            await asyncio.sleep(0)
        return total

    def model_events(self) -> Iterator[EventBase]:
        """The recorded model requests and responses of this thread, in order."""
        for run in self.runs:
            yield from self.session.iter_events(run.run_id, kinds=_MODEL_KINDS)

    def replay_plan(
        self, timeline: TimelineModel, checkpoint_id: str, *, fallback: Any = None
    ) -> ReplayPlan:
        return replay_plan(self.model_events(), timeline, checkpoint_id, fallback=fallback)

    async def arerun(
        self,
        timeline: TimelineModel,
        checkpoint_id: str,
        factory: GraphFactory,
        *,
        fallback: Any = None,
        debugger: Any = None,
    ) -> RerunResult:
        """Re-run from ``checkpoint_id`` with the recorded model responses, into the same file."""
        plan = self.replay_plan(timeline, checkpoint_id, fallback=fallback)
        recorder = SessionRecorder(self.path)
        graph = factory(plan.model, recorder.checkpointer)
        recorder.attach(graph)
        sub = graph.subscribe(lambda ev: self.hub.add_events([ev]))
        try:
            result = await arerun(graph, plan, self.thread_id, debugger=debugger)
        finally:
            sub.close()
            recorder.close()
        self.graph.refresh()
        self.runs = self.session.runs(self.thread_id)
        self.hub.checkpoints_changed()
        return result

    def done(self) -> bool:
        return self.complete

    def cancel(self) -> None:
        """Stop feeding events (the session stays open for reading)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self._pages = None

    def close(self) -> None:
        self.cancel()
        self.session.close()


def open_session(
    hub: Any,
    path: str | os.PathLike[str],
    *,
    thread_id: str | None = None,
    first_page: int = 2000,
    page_size: int = 1000,
    feed_limit: int = 50_000,
) -> OpenedSession:
    """Load a session file into ``hub`` (status ``replay``); feeds the first page of events."""
    session = Session.open(path)
    threads = session.threads()
    thread = thread_id or (threads[0] if threads else "main")
    runs = session.runs(thread)
    drawable: DrawableGraph | None = None
    name = "session"
    for run in reversed(runs):
        if run.graph:
            name = run.graph
        drawable = session.drawable(run.run_id)
        if drawable is not None:
            break
    graph = SessionGraph(session, thread, drawable, name)
    hub.reset()
    hub.set_thread(thread)
    hub.set_graph(graph, drawable, Path(path).name)
    hub.session_path = str(path)
    hub.set_status("replay")
    total = sum(session.count(r.run_id) for r in runs)

    def pages() -> Iterator[list[EventBase]]:
        for run in runs:
            batch: list[EventBase] = []
            for ev in session.iter_events(run.run_id, page_size=page_size):
                batch.append(ev)
                if len(batch) >= page_size:
                    yield batch
                    batch = []
            if batch:
                yield batch

    opened = OpenedSession(
        hub, session, Path(path), thread, runs, graph, feed_limit, total, _pages=pages()
    )
    opened.feed(first_page)
    return opened


def open_session_into(hub: Any, path: str | os.PathLike[str], **kwargs: Any) -> OpenedSession:
    """``open_session``, then feed the remaining events in the background on the current loop.

    Returns the ``OpenedSession`` (``cancel()`` stops the feeding; ``task`` is the feeder)."""
    opened = open_session(hub, path, **kwargs)
    if not opened.complete:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop()
        opened.task = loop.create_task(opened.afeed_rest())
    return opened
