"""Fault injection: "the next model call times out", "tool X fails on its next N calls".

The debugger queues faults; the agent checks them right before calling a model or a tool,
inside the innermost wrapper, so retry and fallback middleware see them like real errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.events import MiddlewareAction
from engine.observe.bus import RunEmitter, current_emitter

__all__ = ["Fault", "check_fault", "check_fault_sync", "fresh_error", "injected", "is_injected"]

_MARK = "__stepwise_injected__"


@dataclass
class Fault:
    kind: Literal["model", "tool"]
    target: str | None
    error: BaseException
    remaining: int


def fresh_error(error: BaseException) -> BaseException:
    """A new exception like ``error`` (an exception object should be raised only once)."""
    try:
        return type(error)(*error.args)
    except Exception:
        return error


def injected(error: BaseException) -> BaseException:
    """``error``, marked as raised by the debugger (``is_injected``)."""
    try:
        setattr(error, _MARK, True)
    except (AttributeError, TypeError):  # an exception type that takes no attributes
        pass
    return error


def is_injected(error: object) -> bool:
    """Was ``error`` raised by a fault the debugger injected (not by the app)?  Such an error
    is the debugger's, not the app's: attach mode never saves it into the app's thread."""
    return getattr(error, _MARK, False) is True


def _take(
    kind: Literal["model", "tool"], name: str | None
) -> tuple[RunEmitter, BaseException] | None:
    em = current_emitter()
    dbg = em.debugger if em is not None else None
    if em is None or dbg is None:
        return None
    err = dbg.take_fault(kind, name)
    return (em, err) if err is not None else None


def _detail(kind: str, name: str | None, err: BaseException) -> dict[str, object]:
    return {"kind": kind, "target": name, "error_type": type(err).__name__, "message": str(err)}


async def check_fault(kind: Literal["model", "tool"], name: str | None) -> None:
    """Raise the fault the debugger has queued for this model/tool call, if any.

    Called by the agent right before calling a model or a tool, inside the innermost wrapper,
    so retry and fallback middleware see the injected error exactly like a real one.
    """
    taken = _take(kind, name)
    if taken is None:
        return
    em, err = taken
    await em.emit(
        MiddlewareAction,
        middleware="Debugger",
        action="fault_injected",
        detail=_detail(kind, name, err),
    )
    raise err


def check_fault_sync(kind: Literal["model", "tool"], name: str | None) -> None:
    """``check_fault`` from synchronous code."""
    taken = _take(kind, name)
    if taken is None:
        return
    em, err = taken
    em.emit_sync(
        MiddlewareAction,
        middleware="Debugger",
        action="fault_injected",
        detail=_detail(kind, name, err),
    )
    raise err
