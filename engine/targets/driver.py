"""``RunDriver``: the run lifecycle as a front end sees it, written once for the CLI and the
studio, for every kind of target.

A front end asks for a run (``RunRequest``); the driver runs it on the target under the
front end's debugger, hands each event to ``on_event`` (which may await: the CLI prompts at a
breakpoint there), and when the run ends interrupted, asks ``answer(interrupts)`` for the value
to resume with.  ``answer`` returns the input of the resuming run (``Command(resume=...)``, or
None to go past a static ``interrupt_before/after``), or ``STAY`` to leave the thread waiting.
The driver then runs again on the same thread, until the thread rests: done, failed, stopped,
or left interrupted.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from engine.targets.base import RunOutcome, RunRequest, Target

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.events import EventBase, InterruptRaised

__all__ = ["STAY", "Answer", "EventHandler", "RunDriver"]


class _Stay:
    def __repr__(self) -> str:
        return "STAY"


STAY: Any = _Stay()
"""What ``answer`` returns to leave the run interrupted (answer it later)."""

EventHandler = Callable[["EventBase"], "Awaitable[None] | None"]
Answer = Callable[[list["InterruptRaised"]], Awaitable[Any]]


class RunDriver:
    """Drives runs of one target under one debugger (see module docstring)."""

    def __init__(self, target: Target, debugger: Debugger) -> None:
        self.target = target
        self.debugger = debugger
        self.run_id: str | None = None
        """The run going on now (None between runs)."""
        self.outcome: RunOutcome | None = None
        """How the last run ended."""

    async def run_once(self, request: RunRequest, on_event: EventHandler) -> RunOutcome:
        """One run, to its end (no interrupt answered)."""
        handle = self.target.run(request, self.debugger)
        self.run_id = handle.run_id
        try:
            async for ev in handle:
                pending = on_event(ev)
                if inspect.isawaitable(pending):
                    await pending
        finally:
            self.run_id = None
        outcome = handle.outcome
        if outcome is None:  # the consumer was cancelled mid-run
            outcome = RunOutcome(handle.run_id, "cancelled")
        self.outcome = outcome
        return outcome

    async def drive(
        self, request: RunRequest, on_event: EventHandler, answer: Answer | None = None
    ) -> RunOutcome:
        """Run, answering interrupts with ``answer``, until the thread rests."""
        while True:
            outcome = await self.run_once(request, on_event)
            if outcome.status != "interrupted" or not outcome.interrupts or answer is None:
                return outcome
            value = await answer(list(outcome.interrupts))
            if value is STAY:
                return outcome
            request = dataclasses.replace(
                request,
                input=value,
                checkpoint_id=None,
                checkpoint_ns="",
                run_id=None,
                model_override=None,
            )
