"""Injected parameters of functional-API functions (``config``, ``runtime``, ``store``,
``writer``, ``previous``) and waiting for a function's own task calls."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from engine.graph.runtime import TaskContext, current_task

__all__ = ["INJECTABLE", "injected_kwargs", "params_of", "settle", "settle_async"]

INJECTABLE = ("config", "runtime", "store", "writer", "previous")


def params_of(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def injected_kwargs(
    sig: inspect.Signature | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    previous: Any = None,
) -> dict[str, Any]:
    """``kwargs`` plus the injectable parameters ``fn`` declares and the caller did not pass."""
    if sig is None:
        return kwargs
    wanted = [p for p in INJECTABLE if p in sig.parameters]
    if not wanted:
        return kwargs
    try:
        bound = sig.bind_partial(*args, **kwargs).arguments
    except TypeError:
        bound = dict(kwargs)
    ctx = current_task()
    if ctx is None:
        return kwargs
    out = dict(kwargs)
    for name in wanted:
        if name in bound:
            continue
        out[name] = _value_of(name, ctx, previous)
    return out


def _value_of(name: str, ctx: TaskContext, previous: Any) -> Any:
    if name == "config":
        return ctx.config
    if name == "store":
        return ctx.run.store
    if name == "writer":
        return ctx.runtime.stream_writer if ctx.runtime is not None else None
    if name == "runtime":
        if ctx.runtime is None:
            return None
        return dataclasses.replace(ctx.runtime, previous=previous)
    return previous


def settle(ctx: TaskContext | None) -> None:
    """Block until every task call ``ctx`` made has finished (sync functions)."""
    if ctx is None or not ctx.in_flight:
        return
    concurrent.futures.wait([f._cf for f in ctx.in_flight])
    for f in ctx.in_flight:
        if not f._cf.cancelled():
            f._cf.exception()


async def settle_async(ctx: TaskContext | None) -> None:
    """Wait until every task call ``ctx`` made has finished (async functions)."""
    if ctx is None or not ctx.in_flight:
        return
    waiting = [asyncio.wrap_future(f._cf) for f in ctx.in_flight]
    await asyncio.wait(waiting)
    for w in waiting:
        if not w.cancelled():
            w.exception()  # retrieved: the caller saw (or chose to ignore) it
