"""A checkpoint shown once its save is known, without holding up the run that made it.

LangGraph saves a sync run's checkpoints on a background thread while the run goes on; an
attached run shows a checkpoint only once the app's saver saved it (``engine.attach.confirm``).
The thread of the run's stream used to wait for that save before its next callback, so the
events kept their order: a thread switch per superstep, measured at a third of what attach
mode added to a plain ``create_agent`` (issue 26).

Instead, the translation hands the loop's inbox a ``PendingSave`` and goes on: on the loop,
the call delivers ``checkpoint.saved`` (or why the checkpoint is not in the app's database, or
that it cannot be known: ``engine.attach.save_outcome``)
once the save is known, and until then it and every event after it stay queued, in order
(``LoopInbox``: ``WAITING``, ``kick``).  The events keep the order they had; only the loop's
side waits.

A session file's copy of the checkpoint (``engine.attach.mirror``) is made on the stream's
thread as the checkpoint comes (nothing the run does next changes it) and written by a
``PendingCopy`` once the save succeeded; the events after it wait for the copy to be written,
as they did.

Taken only when nothing can stop on an event (no debugger watching, no stream consumer
pushing back: ``RunEmitter.must_wait``); a run whose events the debugger gates waits on its
own thread as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.attach.save_outcome import unsaved_action
from engine.core.handoff import WAITING
from engine.events import CheckpointSaved, MiddlewareAction

if TYPE_CHECKING:
    from engine.attach.confirm import SaveWatch
    from engine.attach.mirror import CheckpointMirror, MirrorCopy
    from engine.core.handoff import LoopInbox
    from engine.events import EventBase
    from engine.observe.emitter import RunEmitter

__all__ = ["PendingCopy", "PendingSave"]

_log = logging.getLogger("stepwise.attach")


class PendingSave:
    """The inbox call showing one checkpoint's save (see the module docstring).

    ``fields``: the ``checkpoint.saved`` event's; ``on_saved``: run on the loop once the save
    succeeded (the translator's record of the newest saved checkpoint)."""

    __slots__ = (
        "checkpoint_id",
        "em",
        "envelope_checkpoint",
        "fields",
        "on_saved",
        "saved",
        "watch",
    )

    def __init__(
        self,
        watch: SaveWatch,
        em: RunEmitter,
        checkpoint_id: str,
        fields: dict[str, Any],
        on_saved: Callable[[], None],
    ) -> None:
        self.watch = watch
        self.em = em
        self.checkpoint_id = checkpoint_id
        self.fields = fields
        self.on_saved = on_saved
        self.envelope_checkpoint = em.checkpoint_id
        """The checkpoint the run's events refer to as this one is translated (a failure
        reported later refers to it too)."""
        self.saved: EventBase | None = (
            em.build_event(CheckpointSaved, fields) if em.active else None
        )
        """Built here, on the stream's thread, as every event the translation makes next."""

    def queue(self) -> None:
        """Hand the call to the loop's inbox (the stream's thread)."""
        self.em.inbox.put(self)

    def __call__(self) -> object:
        """On the loop: ``WAITING`` while the save is not known; then the event that says how
        it went."""
        known, error = self.watch.outcome_now(self.checkpoint_id)
        if not known:
            return WAITING
        ev = self.saved
        if error is None:
            self.on_saved()
        elif self.em.active:
            fields = self.fields
            action, detail = unsaved_action(self.checkpoint_id, fields["step"], error)
            ev = self.em.build_event(
                MiddlewareAction,
                {
                    "parent_span_id": fields["parent_span_id"],
                    "step": fields["step"],
                    "checkpoint_id": self.envelope_checkpoint,
                    "middleware": "checkpointer",
                    "action": action,
                    "detail": detail,
                },
            )
        else:
            ev = None
        if ev is not None:
            self.em.deliver_passed(ev)
        return None


class PendingCopy:
    """The inbox call writing one checkpoint's copy into a session file once the app's saver
    saved it (see the module docstring); ``where``: the thread and namespace of the copy
    (``CheckpointMirror.prepare``'s arguments).  Every copy of a run goes through the inbox,
    in order: a copy is written as a delta of the one before it.

    ``saved``: the save is known to have succeeded (or the checkpoint is the one the run
    started from); ``done``: set once the copy is written or left out, for a thread that waits
    for it."""

    __slots__ = ("done", "inbox", "made", "mirror", "saved", "task", "watch", "where")

    def __init__(
        self,
        watch: SaveWatch | None,
        inbox: LoopInbox,
        mirror: CheckpointMirror,
        made: MirrorCopy,
        where: dict[str, Any],
        *,
        saved: bool = False,
        done: concurrent.futures.Future[None] | None = None,
    ) -> None:
        self.watch = watch
        self.inbox = inbox
        self.mirror = mirror
        self.made = made
        self.where = where
        self.saved = saved or watch is None
        self.done = done
        self.task: asyncio.Future[None] | None = None

    def queue(self, *, now: bool = False) -> None:
        """Hand the call to the loop's inbox; ``now``: wake the loop (the caller waits)."""
        if now:
            self.inbox.put_now(self)
        else:
            self.inbox.put(self)

    def __call__(self) -> object:
        """On the loop: ``WAITING`` until the save is known and, if it succeeded, the copy
        written."""
        where = self.where
        task = self.task
        if task is None:
            if not self.saved and self.watch is not None:
                known, error = self.watch.outcome_now(str(where["checkpoint_id"]))
                if not known:
                    return WAITING
                if error is not None:  # not in the app's database: no copy, none to refer to
                    self.mirror.forget(str(where["thread_id"]), str(where["ns"]))
                    return self._over()
            task = self.task = asyncio.ensure_future(self.mirror.write(self.made))
            task.add_done_callback(lambda _t: self.inbox.kick())
        if not task.done():
            return WAITING
        error = None if task.cancelled() else task.exception()
        if error is not None:  # the copy is for replay: never fail the app's run
            _log.warning(
                "could not copy checkpoint %s into the session: %s", where["checkpoint_id"], error
            )
        return self._over()

    def _over(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_result(None)
