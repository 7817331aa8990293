"""Stopping an attached run from the debugger without cancelling LangGraph under the app.

Cancelling the task that runs ``astream`` would cancel the node tasks in flight, and LangGraph
saves a cancelled task's ``CancelledError`` into the app's thread as the task's error (and a
run on LangGraph's sync ``stream`` runs on a worker thread no cancel reaches).  So the
debugger's stop, outside a pause, goes to ``CooperativeStop`` instead of the task: it marks the
run aborted, and the next callback of the run raises the ``StepwiseAbort`` that LangGraph
neither records nor lets middleware retry (``engine.attach.abort``).  Should the run not reach
a callback for ``GRACE`` seconds (a node awaiting something slow, with no model or tool call
in it), an ``astream`` run's task is cancelled after all: a stop must stop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.attach.base import HandlerBase
from engine.errors import RunStopped
from engine.observe.run_span import STOPPED

__all__ = ["GRACE", "CooperativeStop"]

GRACE = 5.0
"""Seconds a stopped ``astream`` run has to reach its next callback before it is cancelled."""


class CooperativeStop:
    """What the debugger cancels to stop an attached run (it looks like the run's task)."""

    def __init__(self, handler: HandlerBase, task: asyncio.Task[Any], *, can_cancel: bool) -> None:
        self.handler = handler
        self.task = task
        self.can_cancel = can_cancel

    def done(self) -> bool:
        return self.task.done()

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self.task.get_loop()

    def cancel(self) -> bool:
        if self.task.done():
            return False
        self.handler.abort(RunStopped(STOPPED), "stop")
        if self.can_cancel:
            self.get_loop().call_later(GRACE, self._fallback)
        return True

    def _fallback(self) -> None:
        if not self.task.done():
            self.task.cancel()
