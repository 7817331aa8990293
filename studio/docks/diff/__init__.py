"""The Diff dock: what changed between two checkpoints, message by message."""

from studio.docks.diff.view import DiffView

__all__ = ["DiffView"]
