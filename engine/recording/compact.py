"""Keeping session files small: token events coalesced, large state values referenced.

- ``coalesce_tokens``: a streamed reply arrives one ``model.token`` event per token; a
  100k-token answer would write 100k rows.  After a call's first ``KEEP_TOKENS`` token events
  (kept as they are, so ordinary replies record exactly what the studio saw), adjacent token
  events of that call (same run, namespace and span) become one event whose text is their text
  joined (up to ``MAX_TOKEN_TEXT`` characters); it keeps the first event's ``seq`` and time.
  ``TokenCoalescer`` does it across write batches, so the file does not depend on how events
  fell into batches.
- ``shrink_state_update``: a ``state.updated`` event carries the new values, and the checkpoint
  written for the same step stores them again.  Strings longer than ``LARGE_VALUE`` characters
  are written in the event as a short preview plus a note that the full value is in the step's
  checkpoint (``Session.state`` / the state inspector read it from there).
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.events import EventBase, ModelToken

__all__ = [
    "KEEP_TOKENS",
    "LARGE_VALUE",
    "MAX_TOKEN_TEXT",
    "TokenCoalescer",
    "coalesce_tokens",
    "shrink_state_update",
]

LARGE_VALUE = 64 * 1024
MAX_TOKEN_TEXT = 64 * 1024
KEEP_TOKENS = 200
"""Token events of a call written one by one before coalescing starts."""
PREVIEW = 1000

T = TypeVar("T")


def _same_call(a: EventBase, b: EventBase) -> bool:
    return (
        a.run_id == b.run_id
        and a.ns == b.ns
        and a.span_id == b.span_id
        and a.parent_span_id == b.parent_span_id
        and getattr(a, "model", None) == getattr(b, "model", None)
    )


class TokenCoalescer:
    """Merges token runs batch after batch (see the module docstring), the same however the
    events fall into write batches: a run still growing at the end of a batch is held back and
    continued by the next one; ``final`` (the file closing) writes it out.

    ``counts``: the token events each call has had (across batches): the first ``keep`` of a
    call are written one by one, so short replies stay token-exact; later ones are merged."""

    def __init__(self, keep: int = KEEP_TOKENS) -> None:
        self.keep = keep
        self.counts: dict[tuple[str, str | None], int] = {}
        self.held: list[ModelToken] = []
        self.held_extra: Any = None
        self.size = 0  # characters of text held (kept as it grows: linear in the batch)

    @property
    def holding(self) -> bool:
        return bool(self.held)

    def feed(self, batch: list[tuple[EventBase, T]], *, final: bool) -> list[tuple[EventBase, T]]:
        out: list[tuple[EventBase, T]] = []
        for item in batch:
            ev, other = item
            # the kind first: isinstance of a pydantic model class is a Python-level call
            if ev.__dict__["kind"] == "model.token" and isinstance(ev, ModelToken):
                key = (ev.run_id, ev.span_id)
                self.counts[key] = n = self.counts.get(key, 0) + 1
                if n <= self.keep:
                    if self.held:
                        self._release(out)
                    out.append(item)
                    continue
                held = self.held
                if held and (
                    not _same_call(held[0], ev) or self.size + len(ev.text) > MAX_TOKEN_TEXT
                ):
                    self._release(out)
                if not self.held:
                    self.held_extra = other
                self.held.append(ev)
                self.size += len(ev.text)
                continue
            if self.held:
                self._release(out)
            out.append(item)
        if final:
            self._release(out)
        if len(self.counts) > 10_000:  # long sessions: forget old calls
            self.counts.clear()
        return out

    def _release(self, out: list[tuple[EventBase, Any]]) -> None:
        held, self.size = self.held, 0
        if not held:
            return
        if len(held) == 1:
            out.append((held[0], self.held_extra))
        else:
            chunks = [c for p in held for c in p.tool_call_chunks]
            merged = held[0].model_copy(
                update={"text": "".join(p.text for p in held), "tool_call_chunks": chunks}
            )
            out.append((merged, self.held_extra))
        self.held = []


def coalesce_tokens(
    batch: list[tuple[EventBase, T]], keep: int = KEEP_TOKENS
) -> list[tuple[EventBase, T]]:
    """``batch`` on its own with runs of adjacent token events of one call merged."""
    return TokenCoalescer(keep).feed(batch, final=True)


def _shrink(value: Any, limit: int, where: str) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return (
            f"{value[:PREVIEW]}… [{len(value):,} characters in all; the full value is in {where}]"
        )
    if isinstance(value, dict):
        return {k: _shrink(v, limit, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_shrink(v, limit, where) for v in value]
    return value


def _has_large(value: Any, limit: int) -> bool:
    if isinstance(value, str):
        return len(value) > limit
    if isinstance(value, dict):
        return any(_has_large(v, limit) for v in value.values())
    if isinstance(value, list):
        return any(_has_large(v, limit) for v in value)
    return False


def shrink_state_update(ev: EventBase, limit: int = LARGE_VALUE) -> EventBase:
    """The event with its large string values replaced by a preview and a reference."""
    changes = getattr(ev, "changes", None)
    if not changes or not _has_large(changes, limit):
        return ev
    where = f"the checkpoint of step {ev.step}" if ev.step is not None else "the checkpoint"
    return ev.model_copy(update={"changes": _shrink(changes, limit, where)})
