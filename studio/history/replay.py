"""Open a recorded ``.stepwise`` session offline, so every view behaves as it did live.

``open_session(hub, path)`` loads the session into the hub: the thread, the recorded graph
shape (the Graph dock draws it), a ``SessionTarget`` (``engine.targets.session_target``: every
state read comes from the file) and the recorded events, fed in pages.  The first pages are fed at once; ``OpenedSession.afeed_rest`` feeds the rest
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
import logging
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.events import EventBase
from engine.graph.drawing import DrawableGraph
from engine.recording import RunInfo, Session, SessionError, SessionRecorder
from engine.targets.session_target import SessionTarget, session_records
from studio.history.long_run import RunCut, cut_run
from studio.history.timetravel import (
    ReplayPlan,
    RerunResult,
    arerun,
    replay_plan,
    tip_checkpoint_id,
)
from studio.models.hub import Hub
from studio.models.older_runs import OlderRuns, older_runs
from studio.models.run_gap import RunGap
from studio.models.timeline import TimelineModel

if TYPE_CHECKING:
    from engine.debug import Debugger

__all__ = [
    "NotInTheAppsSaver",
    "OpenedSession",
    "held_by_the_app",
    "open_session",
    "open_session_into",
    "recorded_model_events",
    "session_records",
]

log = logging.getLogger(__name__)

_INTERNAL_PREFIXES = ("__", "branch:", "join:")
_MODEL_KINDS = ["model.request", "model.response"]
GraphFactory = Callable[[Any, Any], Any]
"""``(model, checkpointer) -> compiled graph`` for re-running a recorded session."""


class NotInTheAppsSaver(RuntimeError):
    """A LangGraph app's re-run needs the checkpoint in the app's own saver, which lacks it."""


async def held_by_the_app(graph: Any, thread_id: str, checkpoint_id: str) -> None:
    """Raise ``NotInTheAppsSaver`` when ``graph`` is a LangGraph app (attach mode) whose own
    checkpointer does not hold ``checkpoint_id``: such a graph runs on its own saver (the
    session's copy of a checkpoint is for reading), so it would start from nothing."""
    if getattr(graph, "runtime", None) != "langgraph":
        return  # ours: it runs on the session's own saver, which holds every checkpoint
    from studio.history.timetravel import checkpoint_config

    snap = await graph.aget_state(checkpoint_config(thread_id, checkpoint_id))
    if snap.created_at is None:  # LangGraph's empty snapshot: nothing saved under that id
        raise NotInTheAppsSaver(
            "The app's checkpointer does not hold this checkpoint (it keeps its checkpoints in"
            " memory, or its database no longer has this thread). A LangGraph app re-runs from"
            " its own saved thread: record the session with a persistent checkpointer"
            " (--checkpointer sqlite:///app.sqlite) to re-run it later."
        )


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


@dataclass
class OpenedSession:
    """A session file loaded into a hub."""

    hub: Hub
    session: Session
    path: Path
    thread_id: str
    runs: list[RunInfo]
    target: SessionTarget
    feed_limit: int
    total_events: int
    fed: int = 0
    task: asyncio.Task[int] | None = None
    """Feeds the rest of the events (``open_session_into``)."""
    older: _OlderPart | None = None
    """The runs (or part of a run) left unloaded, if any."""
    older_task: asyncio.Task[None] | None = None
    """Reads their part of the thread's figures in a worker thread (``open_session_into``)."""
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

    async def aread_older(self) -> None:
        """Read what the runs left unloaded add to the thread's figures, off the loop (an
        outline of many runs takes a while), and hand it to the hub unless it was reset."""
        if self.older is None:
            return
        counted = self.hub.older_runs
        older = await asyncio.to_thread(self.older.read_apart)
        if self.hub.older_runs is counted:  # still this session's (not reset, not reopened)
            self.hub.set_older_runs(older)

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
        debugger: Debugger | None = None,
        answer: Callable[[list[Any]], Awaitable[Any]] | None = None,
    ) -> RerunResult:
        """Re-run from ``checkpoint_id`` with the recorded model responses, into the same file.

        A branch that stops at an interrupt (an approval) is asked about with ``answer``
        (the interrupts -> the resume value, None to leave it waiting) and resumed on the same
        graph, so the new branch can be answered like a live run."""
        plan = self.replay_plan(timeline, checkpoint_id, fallback=fallback)
        recorder = SessionRecorder(self.path)
        graph = factory(plan.model, recorder.checkpointer)
        try:
            await held_by_the_app(graph, self.thread_id, plan.checkpoint_id)
        except BaseException:
            recorder.close()
            raise
        recorder.attach(graph)
        sub = graph.subscribe(lambda ev: self.hub.add_events([ev]))
        try:
            result = await arerun(graph, plan, self.thread_id, debugger=debugger)
            while result.status == "interrupted" and answer is not None:
                config = {
                    "configurable": {"thread_id": self.thread_id, "model_override": plan.model}
                }
                pending = list((await graph.aget_state(config)).interrupts)
                value = await answer(pending) if pending else None
                if value is None:
                    break
                try:
                    output = await graph.ainvoke(value, config, debugger=debugger)
                except Exception as exc:
                    result = replace(result, status="error", error=exc)
                    break
                interrupted = isinstance(output, Mapping) and "__interrupt__" in output
                result = replace(
                    result,
                    status="interrupted" if interrupted else "done",
                    output=output,
                    tip_id=tip_checkpoint_id(graph, self.thread_id),
                )
        finally:
            sub.close()
            recorder.close()
        self.target.refresh()
        self.runs = self.session.runs(self.thread_id)
        self.hub.checkpoints_changed()
        return result

    def done(self) -> bool:
        return self.complete

    def cancel(self) -> None:
        """Stop feeding events (the session stays open for reading)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if self.older_task is not None and not self.older_task.done():
            self.older_task.cancel()
        self._pages = None

    def close(self) -> None:
        self.cancel()
        self.session.close()


def open_session(
    hub: Hub,
    path: str | os.PathLike[str],
    *,
    thread_id: str | None = None,
    first_page: int = 2000,
    page_size: int = 1000,
    feed_limit: int = 50_000,
    background: bool = False,
) -> OpenedSession:
    """Load a session file into ``hub`` (status ``replay``); feeds the first page of events.

    ``feed_limit``: at most that many events are loaded, the newest whole runs' (older runs
    are noted in ``hub.older_runs``; their checkpoints are all in the Timeline).
    ``background``: their part of the thread's figures is read later (``aread_older``), not
    before this returns."""
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
    target = SessionTarget(session, thread, drawable, name)
    hub.reset()
    hub.set_thread(thread)
    hub.set_target(target, drawable, Path(path).name)
    hub.session_path = str(path)
    hub.set_status("replay")
    counts = [session.count(r.run_id) for r in runs]
    total = sum(counts)
    shown = _newest_runs(counts, feed_limit)
    cut = None
    if runs and counts[-1] > feed_limit:  # the newest run alone: its start and its end
        try:
            cut = cut_run(session, runs[-1].run_id, counts[-1], feed_limit)
        except SessionError as exc:  # its end cannot be read: its first events, as they come
            log.warning("%s: the end of its newest run cannot be read: %s", path, exc)
    older = None
    if shown < len(runs) or cut is not None:
        n = len(runs) - shown
        older = _OlderPart(Path(path), runs, n, sum(counts[:n]), cut)
        hub.older_runs = older.counted(reading=background)

    def pages() -> Iterator[list[EventBase]]:
        for run in runs[len(runs) - shown :]:
            if cut is not None and run.run_id == cut.run_id:
                yield from cut.pages(session, page_size)
                continue
            batch: list[EventBase] = []
            for ev in session.iter_events(run.run_id, page_size=page_size):
                batch.append(ev)
                if len(batch) >= page_size:
                    yield batch
                    batch = []
            if batch:
                yield batch

    opened = OpenedSession(
        hub, session, Path(path), thread, runs, target, feed_limit, total, _pages=pages()
    )
    opened.older = older
    if older is not None and not background:
        hub.set_older_runs(older.read(session))
    opened.feed(first_page)
    return opened


@dataclass
class _OlderPart:
    """The ``n`` oldest ``runs`` (``events`` events) and the part of a ``cut`` run, left
    unloaded from the session file at ``path``."""

    path: Path
    runs: list[RunInfo]
    n: int
    events: int
    cut: RunCut | None

    def counted(self, *, reading: bool = False) -> OlderRuns:
        """How much was left unloaded (their part of the figures not read, or not yet:
        ``reading``)."""
        return OlderRuns(self.n, self.events, self._skipped, reading=reading, gap=self._gap)

    @property
    def _skipped(self) -> int:
        return self.cut.skipped if self.cut is not None else 0

    @property
    def _gap(self) -> RunGap | None:
        return self.cut.gap() if self.cut is not None else None

    def read(self, session: Session) -> OlderRuns:
        """Their part of the thread's cost and visits, from their outline (the loaded runs'
        starts tell whether every run lies on one line of checkpoints).  A file whose outline
        cannot be read loses nothing but that part: the figures then cover the loaded runs."""
        runs, n, cut = self.runs, self.n, self.cut
        try:
            ids = [r.run_id for r in runs[:n]]
            if cut is not None:
                outline = session.outline([*ids, cut.run_id], loaded={cut.run_id: cut.loaded})
            else:
                outline = session.outline(ids)
            later = session.outline([r.run_id for r in runs[n:]], starts_only=True)
        except (SessionError, KeyError) as exc:
            return self._unread(exc)
        outline.forked = outline.forked or later.forked
        return older_runs(n, self.events, outline, cut=self._skipped, gap=self._gap)

    def read_apart(self) -> OlderRuns:
        """``read`` on a connection of its own (a worker thread's: the session's serves the
        feeding on the loop meanwhile)."""
        try:
            with Session.open(self.path) as session:
                return self.read(session)
        except SessionError as exc:
            return self._unread(exc)

    def _unread(self, exc: Exception) -> OlderRuns:
        log.warning("the older runs of %s are left out of the thread's figures: %s", self.path, exc)
        return self.counted()


def _newest_runs(counts: list[int], limit: int) -> int:
    """How many of the newest runs (their event ``counts``, oldest first) are loaded: whole
    runs, as many as ``limit`` events hold, and the newest run at least (cut at ``limit`` if
    it alone holds more).  What a debugger's user looks at first is what happened last."""
    taken = events = 0
    for count in reversed(counts):
        if taken and events + count > limit:
            break
        taken += 1
        events += count
    return taken


def open_session_into(hub: Hub, path: str | os.PathLike[str], **kwargs: Any) -> OpenedSession:
    """``open_session``, then feed the remaining events in the background on the current loop.

    Returns the ``OpenedSession`` (``cancel()`` stops the feeding; ``task`` is the feeder)."""
    opened = open_session(hub, path, background=True, **kwargs)
    if opened.complete and opened.older is None:
        return opened
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.get_event_loop()
    if not opened.complete:
        opened.task = loop.create_task(opened.afeed_rest())
    if opened.older is not None:
        opened.older_task = loop.create_task(opened.aread_older())
    return opened
