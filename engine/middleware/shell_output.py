"""Reading a shell's output with bounded memory: ``read_pieces`` and ``CommandOutput``.

A reader thread turns a stream into *pieces*: whole lines, or chunks of at most ``READ_CHUNK``
characters of a line too long to hold (``yes | tr -d '\\n'`` prints one endless line).  The tail
of a chunk is carried into the next piece, so a done marker printed after output that ends
without a newline (``printf abc``) is always found whole in one piece.  The queue between the
reader and the collector is bounded, so a command that floods output waits for the collector
instead of filling memory; the collector keeps at most the policy's line and byte limits (never
more than ``MAX_KEPT_BYTES`` unless the policy asks for more) and only counts the rest.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from dataclasses import dataclass, field
from typing import IO

__all__ = [
    "MAX_KEPT_BYTES",
    "QUEUE_PIECES",
    "READ_CHUNK",
    "CommandExecutionResult",
    "CommandOutput",
    "Piece",
    "read_pieces",
]

READ_CHUNK = 8192
"""The most characters of one line read at a time."""
QUEUE_PIECES = 64
"""Pieces that may wait for the collector, per session (so at most ~0.5 M characters)."""
MAX_KEPT_BYTES = 1 << 20
"""Output kept for the answer when the policy sets no ``max_output_bytes``."""
_CARRY = 256
"""Characters of a chunk held back for the next piece (longer than any done-marker line)."""
_PUT_WAIT = 0.25
"""How often a reader blocked on a full queue checks whether its session ended."""

Piece = tuple[str, str | None]
"""(``"stdout"`` | ``"stderr"``, a piece of output, or None at end of stream)."""


@dataclass(frozen=True)
class CommandExecutionResult:
    """What one command produced."""

    output: str
    exit_code: int | None
    timed_out: bool
    truncated_by_lines: bool
    truncated_by_bytes: bool
    total_lines: int
    total_bytes: int


def read_pieces(
    stream: IO[str], label: str, sink: queue.Queue[Piece], closed: threading.Event
) -> None:
    """Put ``stream``'s pieces on ``sink`` (then ``(label, None)``) until end of stream or
    until ``closed`` is set (the session ended: nobody will take them any more)."""

    def put(piece: str | None) -> bool:
        while not closed.is_set():
            try:
                sink.put((label, piece), timeout=_PUT_WAIT)
                return True
            except queue.Full:
                continue
        return False

    carry = ""
    with contextlib.suppress(ValueError, OSError):  # closed under us at shutdown
        for chunk in iter(lambda: stream.readline(READ_CHUNK), ""):
            piece, carry = carry + chunk, ""
            if not piece.endswith("\n"):  # a chunk of a long line, or the end of the stream
                piece, carry = piece[:-_CARRY], piece[-_CARRY:]
                if not piece:
                    continue
            if not put(piece):
                return
    if carry and not put(carry):
        return
    put(None)


@dataclass
class CommandOutput:
    """Collects a command's pieces within the line and byte limits, counting the rest."""

    max_lines: int
    max_bytes: int | None
    parts: list[str] = field(default_factory=list)
    total_lines: int = 0
    total_bytes: int = 0
    truncated_by_lines: bool = False
    truncated_by_bytes: bool = False
    _open: dict[str, bool] = field(default_factory=dict)
    """Per stream: did its last piece end inside a line?"""

    @property
    def byte_limit(self) -> int:
        """The most bytes kept (the policy's limit, else ``MAX_KEPT_BYTES``)."""
        return self.max_bytes if self.max_bytes is not None else MAX_KEPT_BYTES

    def add(self, source: str, piece: str) -> None:
        continues = self._open.get(source, False)
        self._open[source] = not piece.endswith("\n")
        if not continues:
            self.total_lines += 1
        size = len(piece.encode("utf-8", "replace"))
        self.total_bytes += size
        if self.total_lines > self.max_lines:
            self.truncated_by_lines = True
            return
        if self.total_bytes > self.byte_limit:
            self.truncated_by_bytes = True
            return
        if source == "stderr":
            text = piece.rstrip("\n")
            self.parts.append(text if continues else f"[stderr] {text}")
            if piece.endswith("\n"):
                self.parts.append("\n")
        else:
            self.parts.append(piece)

    def result(self, exit_code: int | None, *, timed_out: bool = False) -> CommandExecutionResult:
        return CommandExecutionResult(
            output="" if timed_out else "".join(self.parts),
            exit_code=exit_code,
            timed_out=timed_out,
            truncated_by_lines=self.truncated_by_lines,
            truncated_by_bytes=self.truncated_by_bytes,
            total_lines=self.total_lines,
            total_bytes=self.total_bytes,
        )
