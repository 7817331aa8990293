"""A middleware hook (``before_agent``, ``before_model``, ``after_model``, ``after_agent``) as a
graph node named ``<middleware>.<hook>``.

Sync or async: under the async API the async variant runs if the middleware has one, else
the sync one on a worker thread.  Under the sync API the sync variant runs on a worker
thread; a middleware with only the async variant fails with LangChain's ``TypeError``.

A returned ``jump_to`` counts only when the hook declared ``can_jump_to`` (``hook_config``
or the decorator's argument); otherwise it is dropped before it reaches the state.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from engine.agents.routing import remember_jump
from engine.core.aio import in_thread
from engine.errors import GraphBubbleUp, GraphInterrupt
from engine.events import ErrorInfo, HookFinished, HookStarted
from engine.graph.runtime import Runtime, current_run, current_task
from engine.middleware.types import AgentMiddleware, can_jump_to, overrides
from engine.observe.bus import current_emitter, span
from engine.observe.tracing import TracePolicy, effective_trace_policy, traced_value
from engine.serde import to_jsonable
from engine.types import Command

__all__ = ["HookNode", "hook_can_jump_to"]


def _takes_runtime(fn: Callable[..., Any] | None) -> bool:
    if fn is None:
        return False
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        return True
    return len(params) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def hook_can_jump_to(m: AgentMiddleware, hook: str) -> list[str]:
    """Where ``m``'s ``hook`` may jump, from whichever variant declares it."""
    for name in (hook, f"a{hook}"):
        if overrides(m, name):
            jumps = can_jump_to(getattr(m, name))
            if jumps:
                return jumps
    return []


class HookNode:
    """The node function of one hook of one middleware."""

    def __init__(self, m: AgentMiddleware, hook: str) -> None:
        self.middleware = m
        self.hook = hook
        self.node = f"{m.name}.{hook}"
        self.can_jump_to = hook_can_jump_to(m, hook)
        self.sync_fn: Callable[..., Any] | None = getattr(m, hook) if overrides(m, hook) else None
        self.async_fn: Callable[..., Any] | None = (
            getattr(m, f"a{hook}") if overrides(m, f"a{hook}") else None
        )
        self._sync_runtime = _takes_runtime(self.sync_fn)
        self._async_runtime = _takes_runtime(self.async_fn)

    def __repr__(self) -> str:
        return f"<hook node {self.node}>"

    async def _call(self, state: Any, runtime: Runtime[Any] | None) -> Any:
        run = current_run()
        if run is not None and run.sync_call:
            if self.sync_fn is None:
                name = getattr(self.async_fn, "__name__", f"a{self.hook}")
                raise TypeError(  # LangGraph's words (its RunnableCallable's)
                    f'No synchronous function provided to "{name}".\nEither initialize '
                    "with a synchronous function or invoke via the async API (ainvoke, astream, "
                    "etc.)"
                )
            args = (state, runtime) if self._sync_runtime else (state,)
            task = current_task()
            if task is not None and task.inline:  # a lone task of a sync call: nothing to overlap
                return self.sync_fn(*args)
            return await in_thread(self.sync_fn, *args)
        if self.async_fn is not None:
            return await self.async_fn(*((state, runtime) if self._async_runtime else (state,)))
        assert self.sync_fn is not None
        return await in_thread(
            self.sync_fn, *((state, runtime) if self._sync_runtime else (state,))
        )

    def _filter(self, update: Any) -> tuple[Any, str | None]:
        """The update as written to the state, and the jump it asks for (if allowed)."""
        if isinstance(update, Command):
            inner, jump = self._filter(update.update)
            return Command(
                graph=update.graph, update=inner, resume=update.resume, goto=update.goto
            ), jump
        if not isinstance(update, dict) or "jump_to" not in update:
            return update, None
        out = dict(update)
        jump = out.pop("jump_to")
        if jump is None or not self.can_jump_to:
            return out, None
        if jump not in ("model", "tools", "end"):
            # not a place to jump to: the hook's default edge is taken (LangChain's way)
            out["jump_to"] = jump
            return out, None
        if jump not in self.can_jump_to:
            raise ValueError(
                f"{self.node} returned jump_to={jump!r}, but it may only jump to {self.can_jump_to} "
                "(declare it with @hook_config(can_jump_to=[...]))"
            )
        out["jump_to"] = jump
        return out, jump

    @property
    def trace_policy(self) -> TracePolicy:
        """What run callbacks' tracers record for this hook: the middleware's policy (or the
        process default), looked up when the hook runs."""
        mw = self.middleware

        def inputs(value: Any) -> Any:
            return traced_value(effective_trace_policy(mw), "process_inputs", value)[1]

        def outputs(value: Any) -> Any:
            return traced_value(effective_trace_policy(mw), "process_outputs", value)[1]

        return TracePolicy(process_inputs=inputs, process_outputs=outputs)

    async def __call__(self, state: Any, runtime: Runtime[Any]) -> Any:
        em = current_emitter()
        active = em is not None and em.active
        s = span()
        t0 = time.perf_counter()
        ids = {"span_id": s.id, "parent_span_id": s.parent}
        names = {"middleware": self.middleware.name, "hook": self.hook, "node": self.node}
        policy = effective_trace_policy(self.middleware)
        if active:
            recorded, shown = traced_value(policy, "process_inputs", state)
            extra = {"input": to_jsonable(shown, max_str=4000)} if recorded else {}
            await em.emit(HookStarted, **ids, **names, **extra)  # type: ignore[union-attr]
        try:
            with s:
                update, jump = self._filter(await self._call(state, runtime))
        except BaseException as exc:
            if active:
                error = None if isinstance(exc, GraphBubbleUp) else ErrorInfo.from_exception(exc)
                await em.emit(  # type: ignore[union-attr]
                    HookFinished,
                    **ids,
                    **names,
                    outcome="error"
                    if error is not None
                    else "interrupted"
                    if isinstance(exc, GraphInterrupt)
                    else "ok",
                    error=error,
                    duration_ms=(time.perf_counter() - t0) * 1000,
                )
            raise
        if jump is not None:
            remember_jump(jump)
        if active:
            await em.emit(  # type: ignore[union-attr]
                HookFinished,
                **ids,
                **names,
                update=to_jsonable(
                    traced_value(policy, "process_outputs", update)[1], max_str=4000
                ),
                jump_to=jump,
                duration_ms=(time.perf_counter() - t0) * 1000,
            )
        return update
