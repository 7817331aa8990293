"""The envelope every event carries (``EventBase``) and an exception as data (``ErrorInfo``).

The event kinds are in ``engine.event_kinds``; ``engine.events`` offers them all, with the
discriminated union and the JSON codec.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict

__all__ = ["ENGINE_ERROR_ATTR", "JSON", "ErrorInfo", "EventBase", "engine_error_of"]

JSON: TypeAlias = Any

ENGINE_ERROR_ATTR = "__stepwise_engine_error__"
"""Set on a library's exception (a langchain_core model's) that the engine re-raised as it was:
the engine's error type that stands for it (``engine.models.errors``), which events record
and ``retry_on`` matches as well."""


def engine_error_of(exc: BaseException) -> BaseException:
    """The engine's error standing for ``exc`` when there is one, else ``exc``."""
    found = getattr(exc, ENGINE_ERROR_ATTR, None)
    return found if isinstance(found, BaseException) else exc


class ErrorInfo(BaseModel):
    """An exception as data: its type name, message and (optionally) a short traceback."""

    model_config = ConfigDict(extra="forbid")
    type: str
    message: str
    traceback: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException, *, with_traceback: bool = False) -> ErrorInfo:
        exc = engine_error_of(exc)
        tb = None
        if with_traceback:
            import traceback as _tb

            tb = "".join(_tb.format_exception(type(exc), exc, exc.__traceback__, limit=12))
        from engine.redaction import scrub

        return cls(
            type=type(exc).__name__,
            message=scrub(str(exc)),
            traceback=None if tb is None else scrub(tb),
        )


class EventBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    run_id: str
    thread_id: str | None = None
    seq: int = 0
    ts: float = 0.0
    mono_ns: int = 0
    step: int | None = None
    span_id: str | None = None
    parent_span_id: str | None = None
    checkpoint_id: str | None = None
    ns: str = ""
    """Checkpoint namespace: "" for the root graph, ``node:task_id`` (joined by ``|``) inside subgraphs."""
