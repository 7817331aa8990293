"""A LangGraph ``StateSnapshot`` read back as ours: LangChain messages become our messages
(what every view of the studio shows and diffs message by message), interrupts and tasks our
value types.  The app's saver is only read; nothing here writes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.attach.converted import is_lc_message
from engine.interop import from_langchain
from engine.types import Interrupt, PregelTask, StateSnapshot

__all__ = ["to_engine_snapshot", "to_engine_values"]


def to_engine_values(value: Any, convert: Callable[[Any], Any] | None = None) -> Any:
    """``value`` with every LangChain message in it converted to ours (other values as they
    are); ``convert``: how a message is converted (``from_langchain``, a new one each time)."""
    if is_lc_message(value):
        return (convert or from_langchain)(value)
    if isinstance(value, list | tuple) and any(map(is_lc_message, value)):
        return [to_engine_values(v, convert) for v in value]
    if isinstance(value, dict):
        return {k: to_engine_values(v, convert) for k, v in value.items()}
    return value


def _interrupt(i: Any) -> Interrupt:
    if isinstance(i, Interrupt):
        return i
    return Interrupt(to_engine_values(getattr(i, "value", None)), str(getattr(i, "id", "") or ""))


def _task(t: Any) -> PregelTask:
    if isinstance(t, PregelTask):
        return t
    return PregelTask(
        str(getattr(t, "id", "")),
        str(getattr(t, "name", "")),
        tuple(getattr(t, "path", ()) or ()),
        getattr(t, "error", None),
        tuple(_interrupt(i) for i in getattr(t, "interrupts", ()) or ()),
        getattr(t, "state", None),
        to_engine_values(getattr(t, "result", None)),
    )


def to_engine_snapshot(snap: Any) -> StateSnapshot:
    """``snap`` (LangGraph's, or already ours) as our ``StateSnapshot``."""
    if isinstance(snap, StateSnapshot):
        return snap
    return StateSnapshot(
        values=to_engine_values(snap.values),
        next=tuple(snap.next or ()),
        config=dict(snap.config or {}),
        metadata=dict(snap.metadata) if snap.metadata is not None else None,
        created_at=snap.created_at,
        parent_config=dict(snap.parent_config) if snap.parent_config else None,
        tasks=tuple(_task(t) for t in snap.tasks or ()),
        interrupts=tuple(_interrupt(i) for i in getattr(snap, "interrupts", ()) or ()),
    )
