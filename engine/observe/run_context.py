"""The run a piece of code belongs to: the current emitter and span (context variables),
and the helpers that emit on the current run (``emit``, ``emit_sync``, ``span``)."""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

from engine.core.ids import new_span_id
from engine.events import EventBase

if TYPE_CHECKING:
    from engine.observe.emitter import RunEmitter

__all__ = ["CURRENT_SPAN", "current_emitter", "emit", "emit_sync", "span"]

#: The span the running code is inside (set by the runtime around nodes, wrappers, attempts).
CURRENT_SPAN: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "stepwise_span", default=None
)
_CURRENT_EMITTER: contextvars.ContextVar[RunEmitter | None] = contextvars.ContextVar(
    "stepwise_emitter", default=None
)


def current_emitter() -> RunEmitter | None:
    """The emitter of the run this code belongs to (None outside a run)."""
    return _CURRENT_EMITTER.get()


async def emit(cls: type[EventBase], **fields: Any) -> EventBase | None:
    """Emit on the current run, if any (middleware and tools use this)."""
    em = _CURRENT_EMITTER.get()
    if em is None:
        return None
    return await em.emit(cls, **fields)


def emit_sync(cls: type[EventBase], **fields: Any) -> EventBase | None:
    """``emit`` from synchronous code."""
    em = _CURRENT_EMITTER.get()
    if em is None:
        return None
    return em.emit_sync(cls, **fields)


class span:
    """Open a span: sets ``CURRENT_SPAN`` for the code inside, so nested events nest.

    The caller emits the start and end events itself (it knows their payloads); this only
    mints the id and manages the context variable.
    """

    __slots__ = ("_token", "id", "parent")

    def __init__(self) -> None:
        self.parent = CURRENT_SPAN.get()
        self.id = new_span_id()
        self._token: contextvars.Token[str | None] | None = None

    def __enter__(self) -> span:
        self._token = CURRENT_SPAN.set(self.id)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            CURRENT_SPAN.reset(self._token)
