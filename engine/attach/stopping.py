"""Stopping an attached run from the debugger without cancelling LangGraph under the app.

Cancelling the task that runs ``astream`` would cancel the node tasks in flight, and LangGraph
saves a cancelled task's ``CancelledError`` into the app's thread as the task's error (and a
run on LangGraph's sync ``stream`` runs on a worker thread no cancel reaches).  So the
debugger's stop, outside a pause, goes to ``CooperativeStop`` instead of the task: it marks the
run aborted, and the next callback of the run raises the ``StepwiseAbort`` that LangGraph
neither records nor lets middleware retry (``engine.attach.abort``).  Should the run not reach
a callback for ``GRACE`` seconds (a node awaiting something slow, with no model or tool call
in it), the run's task is cancelled after all (its saver sealed first, so LangGraph saves no
``CancelledError`` into the app's thread: ``engine.attach.confirm``): a stop must stop.  For ``astream`` that cancels
the node tasks in flight; a run on the sync ``stream`` is no longer waited for: its worker
thread, which no cancel reaches, meets the run's abort at its next callback and writes nothing
more into the thread (and a process that ends does not wait for it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from engine.attach.base import HandlerBase
from engine.errors import RunStopped
from engine.observe.run_span import STOPPED

__all__ = ["GRACE", "CooperativeStop"]

GRACE = 5.0
"""Seconds a stopped run has to reach its next callback before its task is cancelled."""


class CooperativeStop:
    """What the debugger cancels to stop an attached run (it looks like the run's task)."""

    def __init__(
        self,
        handler: HandlerBase,
        task: asyncio.Task[Any],
        before_cancel: Callable[[], None] | None = None,
    ) -> None:
        self.handler = handler
        self.task = task
        self.before_cancel = before_cancel
        """Called before the task is cancelled after all (the run's saver stops writing)."""

    def done(self) -> bool:
        return self.task.done()

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self.task.get_loop()

    def cancel(self) -> bool:
        if self.task.done():
            return False
        self.handler.abort(RunStopped(STOPPED), "stop")
        self.get_loop().call_later(GRACE, self._fallback)
        return True

    def _fallback(self) -> None:
        if not self.task.done():
            if self.before_cancel is not None:
                self.before_cancel()
            self.task.cancel()
