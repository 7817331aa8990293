"""Checkpointers: ``InMemorySaver`` and ``SqliteSaver`` (JSON, per-channel delta storage)."""

from engine.checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    empty_checkpoint,
)
from engine.checkpoint.memory import InMemorySaver, MemorySaver
from engine.checkpoint.sqlite import SqliteSaver

Checkpointer = BaseCheckpointSaver

__all__ = [
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "Checkpointer",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
    "empty_checkpoint",
]
