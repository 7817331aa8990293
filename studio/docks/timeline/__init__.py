"""The Timeline dock: the thread's checkpoints as a branch tree; rewind, fork, compare."""

from studio.docks.timeline.view import TimelineDock

__all__ = ["TimelineDock"]
