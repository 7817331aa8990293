"""A checkpoint shown once its save is known, without holding up the run that made it.

LangGraph saves a sync run's checkpoints on a background thread while the run goes on; an
attached run shows a checkpoint only once the app's saver saved it (``engine.attach.confirm``).
The thread of the run's stream used to wait for that save before its next callback, so the
events kept their order: a thread switch per superstep, measured at a third of what attach
mode added to a plain ``create_agent`` (issue 26).

Instead, the translation hands the loop's inbox a ``PendingSave`` and goes on: on the loop,
the call delivers ``checkpoint.saved`` (or why the checkpoint is not in the app's database)
once the save is known, and until then it and every event after it stay queued, in order
(``LoopInbox``: ``WAITING``, ``kick``).  The events keep the order they had; only the loop's
side waits.

Taken only when nothing can stop on an event (no debugger watching, no stream consumer
pushing back: ``RunEmitter.must_wait``); a run whose events the debugger gates, or one whose
checkpoints are copied into a session file (``engine.attach.mirror``: the copy is taken as the
save is known), waits on its own thread as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.core.handoff import WAITING
from engine.events import CheckpointSaved, MiddlewareAction

if TYPE_CHECKING:
    from engine.attach.confirm import SaveWatch
    from engine.events import EventBase
    from engine.observe.emitter import RunEmitter

__all__ = ["PendingSave", "not_saved_detail"]


def not_saved_detail(checkpoint_id: str, step: int | None, error: BaseException) -> dict[str, Any]:
    """The detail of the ``checkpoint_not_saved`` action of a checkpoint whose save failed."""
    return {
        "checkpoint_id": checkpoint_id,
        "step": step,
        "error": f"{type(error).__name__}: {str(error).strip()[:300]}",
        "message": "the app's checkpointer failed to save this checkpoint: "
        "it is not in the app's database",
    }


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
            ev = self.em.build_event(
                MiddlewareAction,
                {
                    "parent_span_id": fields["parent_span_id"],
                    "step": fields["step"],
                    "checkpoint_id": self.envelope_checkpoint,
                    "middleware": "checkpointer",
                    "action": "checkpoint_not_saved",
                    "detail": not_saved_detail(self.checkpoint_id, fields["step"], error),
                },
            )
        else:
            ev = None
        if ev is not None:
            self.em.deliver_passed(ev)
        return None
