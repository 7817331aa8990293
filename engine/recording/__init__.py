"""Session files: record runs (events + checkpoints) into one SQLite file and read them back.

``SessionRecorder`` writes; ``Session.open`` reads.  See ``engine.recording.schema`` for the
file layout.
"""

from engine.recording.reader import CheckpointInfo, RunInfo, Session
from engine.recording.recorder import SessionRecorder
from engine.recording.schema import SESSION_SCHEMA, SessionError

__all__ = [
    "SESSION_SCHEMA",
    "CheckpointInfo",
    "RunInfo",
    "Session",
    "SessionError",
    "SessionRecorder",
]
