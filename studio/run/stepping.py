"""Run, Continue, Step, Pause, Stop and Restart: the run controller's debugging commands.

``SteppingCommands`` is a mixin of ``studio.run.controller.RunController``: F5 continues a
paused run, answers a pending interrupt or starts the agent (again, on a new thread, once a run
has ended); F10 / F11 / Shift+F11 step a paused run or start one that pauses early; Shift+F5
stops cleanly (the last checkpoint stays intact).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from studio.run.agent_source import user_message
from studio.run.app_memory import keep_app_memory

if TYPE_CHECKING:
    from engine.debug import Debugger
    from engine.events import InterruptRaised
    from studio.models.hub import Hub

__all__ = ["BUSY", "ENDED", "NeedsInput", "SteppingCommands"]

BUSY = frozenset({"running", "paused"})
ENDED = frozenset({"done", "error", "cancelled"})


class NeedsInput(Exception):
    """The agent takes messages and neither the file nor the user gave one."""


class SteppingCommands:
    hub: Hub
    debugger: Debugger
    target: Any
    task: asyncio.Task[None] | None
    pending_interrupts: list[InterruptRaised]
    typed_input: Any
    default_input: Any
    fixed_target: Any
    graph: Any
    _factory: Any
    _ran_on: set[str]

    if TYPE_CHECKING:

        @property
        def status(self) -> str: ...

        @property
        def busy(self) -> bool: ...

        @property
        def _run_id(self) -> str | None: ...

        def start(
            self, input: Any = None, *, fresh: bool = True, step: str | None = None
        ) -> asyncio.Task[None]: ...

        def _launch(self, coro: Any) -> asyncio.Task[None]: ...

        async def _drive(
            self, inp: Any, checkpoint_id: str | None = None, model_override: Any = None
        ) -> None: ...

        async def _answer(self, interrupts: list[InterruptRaised]) -> None: ...

        def _abandon_run(self) -> None: ...

        def _set_graph(self, graph: Any) -> None: ...

        def use_target(self, target: Any) -> None: ...

        def new_thread(self) -> str: ...

        def _prepare(self, input: Any, fresh: bool, step: str | None) -> Any: ...

        def _report(self, exc: BaseException) -> None: ...

    def run_or_continue(self) -> asyncio.Task[None] | None:
        """F5: continue when paused, answer a pending interrupt, or (re)start."""
        if self.debugger.paused:
            self.debugger.continue_()
            return None
        if self.busy:
            return None
        if self.status == "interrupted" and self.pending_interrupts:
            return self._launch(self._answer(list(self.pending_interrupts)))
        if self._at_breakpoint():  # the thread stopped before a node (interrupt_before/after)
            return self._launch(self._drive(None))
        if self.status in ENDED or self.hub.thread_id in self._ran_on:
            return self.restart()
        return self.start()

    def _at_breakpoint(self) -> bool:
        """Does the current thread wait at a static breakpoint (``interrupt_before/after``,
        nothing to answer): Continue goes on from there, on this thread."""
        return self.status == "interrupted" and not self.pending_interrupts and not self.busy

    @property
    def would_restart(self) -> bool:
        """Would Run / Step now start the agent again on a new thread (the run has ended)?"""
        idle = self.target is not None and not self.busy and not self.debugger.paused
        if not idle or self._at_breakpoint():
            return False
        return self.status in ENDED or self.hub.thread_id in self._ran_on

    def step(self, command: str) -> asyncio.Task[None] | None:
        """F10 / F11 / Shift+F11 while paused; from a stopped state, start and pause early."""
        if command not in ("step_over", "step_into", "step_out"):
            raise ValueError(f"Unknown step command {command!r}")
        if self.debugger.paused:
            getattr(self.debugger, command)()
            return None
        if self.busy:
            return None
        first = "step_into" if command == "step_into" else "step_over"
        if self._at_breakpoint():
            getattr(self.debugger, first)()
            return self._launch(self._drive(None))
        if self.status in ENDED or self.hub.thread_id in self._ran_on:
            return self.restart(step=first)
        return self.start(step=first)

    def step_with_input(self, command: str, text: str) -> asyncio.Task[None]:
        """F10 / F11 on an agent waiting for its first message: start on ``text``, pause early."""
        if not text.strip():
            raise NeedsInput("The message is empty")
        self.typed_input = user_message(text)
        return self.start(
            user_message(text), step="step_into" if command == "step_into" else "step_over"
        )

    def pause(self) -> None:
        if self.busy and not self.debugger.paused:
            self.debugger.pause()

    def stop(self) -> None:
        """Shift+F5: stop the run cleanly (the last checkpoint stays intact)."""
        if self.busy:
            if self._run_id is not None and self.status in BUSY:
                self.debugger.stop()
            else:  # waiting for an interrupt answer: just stop waiting
                assert self.task is not None
                self.task.cancel()

    def restart(self, step: str | None = None) -> asyncio.Task[None]:
        """Stop, load the agent afresh (new script, new thread) and run it from the start."""
        old = self.task
        self._abandon_run()
        return self._launch(self._restart(old, step))

    async def _restart(self, old: asyncio.Task[None] | None, step: str | None) -> None:
        if old is not None and not old.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(old), timeout=10)
        if self._factory is None and self.fixed_target is None:
            return
        try:
            if self._factory is not None:
                graph, default = self._factory()
                if default is not None:
                    self.default_input = default
                self._set_graph(keep_app_memory(self.graph, graph))
            else:
                self.use_target(self.fixed_target)
            self.hub.set_thread(self.new_thread())
            self.hub.set_status("idle")
            inp = self._prepare(None, True, step)
        except NeedsInput as exc:  # nothing to run yet: ask, as Run does
            self._report(exc)
            return
        except Exception as exc:  # the file broke since it was loaded: say so
            self._report(exc)
            return
        await self._drive(inp)
