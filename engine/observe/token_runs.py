"""A streamed reply's ``model.token`` events, merged at the source when every listener takes
them merged.

A long reply streams one token event per token.  The session recorder writes a call's first
``keep`` token events one by one and merges the rest (``engine.recording.compact``).  When the
recorder (or any subscriber that says it takes merged tokens, with the same rule) is the only
listener and no debugger could stop on a token, building, delivering and queueing an event per
token only to merge them again in the writer is waste: ``TokenRun`` gathers the call's tokens
past the first ``keep`` into one held event instead.

What subscribers get is what the recorder would have written: the held event has the first
merged token's ``seq``, time and envelope, and the tokens' text and tool-call chunks joined;
every merged token still takes its own ``seq`` number, so later events keep theirs.  The
emitter delivers the held event before any other event, when the call ends, when its text
would pass ``max_text`` characters, and ``interval`` seconds after its first token (a long
stream reaches the session file as it goes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.events import ModelToken
from engine.serde import to_jsonable

if TYPE_CHECKING:
    from engine.observe.bus import RunEmitter

__all__ = ["HeldTokens", "TokenMerge", "TokenRun"]


@dataclass(frozen=True)
class TokenMerge:
    """How a subscriber takes a call's token events: the first ``keep`` one by one, the rest
    merged (at most ``max_text`` characters of text each, gathered for at most ``interval``
    seconds).  A callback says it takes them so with a ``merge_tokens`` attribute."""

    keep: int
    max_text: int
    interval: float


class HeldTokens:
    """The merged token event being gathered (not delivered yet)."""

    __slots__ = ("chunks", "deadline", "event", "size", "span_id", "texts")

    def __init__(self, event: ModelToken, interval: float) -> None:
        self.event = event
        self.span_id = event.span_id
        self.texts: list[str] = []
        self.chunks: list[Any] = []
        self.size = 0
        self.deadline = time.monotonic() + interval

    def finish(self) -> ModelToken:
        d: dict[str, Any] = vars(self.event)
        d["text"] = "".join(self.texts)
        d["tool_call_chunks"] = to_jsonable(self.chunks)
        return self.event


class TokenRun:
    """The token events of one model call (``add`` each streamed chunk, ``close`` at the end)."""

    __slots__ = ("count", "em", "fields")

    def __init__(self, em: RunEmitter, **fields: Any) -> None:
        self.em = em
        self.fields = fields
        self.count = 0

    async def add(self, text: str, tool_call_chunks: list[Any]) -> None:
        self.count += 1
        em = self.em
        merge = em.token_merge()
        if merge is None or self.count <= merge.keep:
            # most tokens are text only: their empty list renders as an empty list
            empty = type(tool_call_chunks) is list and not tool_call_chunks
            chunks = [] if empty else to_jsonable(tool_call_chunks)
            await em.emit(ModelToken, **self.fields, text=text, tool_call_chunks=chunks)
            return
        em.hold_token(self.fields, merge, text, tool_call_chunks)

    def close(self) -> None:
        """Deliver what is held (the call ended)."""
        self.em.release_tokens()
