"""What ``Session`` lists of a session file: its runs and a thread's checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CheckpointInfo", "RunInfo"]


@dataclass(frozen=True)
class RunInfo:
    """One recorded run.  ``status`` is ``running`` for a run whose end was not recorded
    (still going, or the process died) and None for event groups without a ``run.started``
    (e.g. ``update_state`` calls)."""

    run_id: str
    thread_id: str | None
    graph: str | None
    status: str | None
    started: float | None
    finished: float | None
    resumed: bool
    input: Any
    output: Any
    error: dict[str, Any] | None
    index: int
    """Position of the run in the file (1 = first recorded)."""


@dataclass(frozen=True)
class CheckpointInfo:
    """One checkpoint of a thread, as listed by ``Session.checkpoints``."""

    checkpoint_id: str
    thread_id: str
    ns: str
    parent_id: str | None
    step: int | None
    source: str | None
    next: tuple[str, ...] | None
    """Nodes due next (from the recorded ``checkpoint.saved`` event; None if not recorded)."""
    run_id: str | None
