"""Keeping session files small: token events coalesced, large state values referenced.

- ``coalesce_tokens``: a streamed reply arrives one ``model.token`` event per token; a
  100k-token answer would write 100k rows.  After a call's first ``KEEP_TOKENS`` token events
  (kept as they are, so ordinary replies record exactly what the studio saw), adjacent token
  events of that call (same run, namespace and span) in one write batch become one event whose
  text is their text joined (up to ``MAX_TOKEN_TEXT`` characters); it keeps the first event's
  ``seq`` and time.
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


def coalesce_tokens(
    batch: list[tuple[EventBase, T]],
    seen: dict[tuple[str, str | None], int] | None = None,
    keep: int = KEEP_TOKENS,
) -> list[tuple[EventBase, T]]:
    """``batch`` with runs of adjacent token events of one call merged into one event.

    ``seen`` counts the token events each call has had (across batches): the first ``keep`` of
    a call are written one by one, so short replies stay token-exact; later ones are merged.
    """
    counts = {} if seen is None else seen
    out: list[tuple[EventBase, T]] = []
    pending: list[ModelToken] = []
    size = 0  # characters of text in ``pending`` (kept as it grows: linear in the batch)
    extra: Any = None

    def flush() -> None:
        nonlocal size
        size = 0
        if not pending:
            return
        if len(pending) == 1:
            out.append((pending[0], extra))
        else:
            first = pending[0]
            chunks = [c for p in pending for c in p.tool_call_chunks]
            merged = first.model_copy(
                update={"text": "".join(p.text for p in pending), "tool_call_chunks": chunks}
            )
            out.append((merged, extra))
        pending.clear()

    for ev, other in batch:
        if isinstance(ev, ModelToken):
            key = (ev.run_id, ev.span_id)
            counts[key] = n = counts.get(key, 0) + 1
            if n <= keep:
                flush()
                out.append((ev, other))
                continue
            if pending and (not _same_call(pending[0], ev) or size + len(ev.text) > MAX_TOKEN_TEXT):
                flush()
            if not pending:
                extra = other
            pending.append(ev)
            size += len(ev.text)
            continue
        flush()
        out.append((ev, other))
    flush()
    if len(counts) > 10_000:  # long sessions: forget old calls
        counts.clear()
    return out


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
