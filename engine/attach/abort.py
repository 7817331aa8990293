"""How Stepwise stops an attached run without writing anything into the app's thread.

LangGraph saves a task's exception into the app's checkpointer as the task's error (and a
cancelled task's ``CancelledError`` too), except for the control-flow exceptions deriving
from ``GraphBubbleUp`` (``interrupt()``, ``ParentCommand``), which it neither records nor lets
LangChain's retry / fallback middleware, ``ToolNode`` error handling or a node ``RetryPolicy``
swallow.  So whatever Stepwise itself raises inside the app's run (the debugger's stop, a bug
of ours in a callback or an instrumented middleware layer) travels as ``StepwiseAbort``, a
``GraphBubbleUp``: the tasks it aborts leave no write, the thread stays as it was before
them (as after a crash: plain LangGraph resumes it), and the run's caller gets the real
cause back (``cause``).

Only imported by ``engine.attach`` (langgraph is installed by then).
"""

from __future__ import annotations

import logging

from langgraph.errors import GraphBubbleUp

from engine.errors import RunStopped

__all__ = ["AttachInternalError", "StepwiseAbort", "abort_for", "cause_of"]

_log = logging.getLogger("stepwise.attach")


class AttachInternalError(RuntimeError):
    """Stepwise failed while watching the app's run; the run was aborted before LangGraph
    could record anything of the failure in the app's thread."""


class StepwiseAbort(GraphBubbleUp):
    """Stepwise aborts the attached run (see the module docstring); ``cause`` is why."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def abort_for(exc: BaseException, where: str) -> StepwiseAbort:
    """The ``StepwiseAbort`` for ``exc`` raised by Stepwise's own code at ``where``.

    A debugger stop aborts quietly; anything else is a bug of ours: it is logged with its
    traceback and becomes an ``AttachInternalError`` for the run's caller."""
    if isinstance(exc, StepwiseAbort):
        return exc
    if isinstance(exc, RunStopped):
        return StepwiseAbort(exc)
    _log.error("Stepwise failed in %s; the run is aborted", where, exc_info=exc)
    lines = str(exc).strip().splitlines()
    detail = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    error = AttachInternalError(
        f"Stepwise failed while watching the run ({where}: {detail}); the run was stopped "
        "and nothing of this failure was written into the app's thread"
    )
    error.__cause__ = exc
    return StepwiseAbort(error)


def cause_of(exc: BaseException) -> BaseException | None:
    """The cause ``exc`` carries when it is (or wraps) a ``StepwiseAbort``."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, StepwiseAbort):
            return exc.cause
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None
