"""``@task``: a function whose calls run as push tasks of the running graph."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from engine.func.call import schedule_call
from engine.func.constants import PUSH, RETURN
from engine.func.future import TaskFuture
from engine.func.inject import injected_kwargs, params_of, settle, settle_async
from engine.graph.algo import PregelNode
from engine.graph.builder import sync_timeout_error
from engine.graph.runtime import allow_blocking_calls, current_task
from engine.types import RetryPolicy, TimeoutLike, coerce_timeout

if TYPE_CHECKING:
    from engine.cache import BaseCache, CachePolicy
    from engine.graph.loop import PregelLoop

__all__ = ["TaskFunction", "task"]

P = ParamSpec("P")
T = TypeVar("T")


def _is_async(fn: Any) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method of a callable object
    inner = getattr(fn, "func", None)  # functools.partial
    return (
        inspect.iscoroutinefunction(fn)
        or inspect.iscoroutinefunction(call)
        or (inner is not None and inspect.iscoroutinefunction(inner))
    )


def _name_of(fn: Any) -> str:
    name = getattr(fn, "__name__", None)
    if name:
        return str(name)
    inner = getattr(fn, "func", None)
    if inner is not None:
        return _name_of(inner)
    return type(fn).__name__


def _policies(policy: RetryPolicy | Sequence[RetryPolicy] | None) -> list[RetryPolicy]:
    if policy is None:
        return []
    if isinstance(policy, RetryPolicy):
        return [policy]
    return list(policy)


class TaskFunction(Generic[P, T]):
    """A ``@task``-decorated function: calling it returns a ``TaskFuture``."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy | None = None,
        timeout: TimeoutLike = None,
    ) -> None:
        self.func = func
        self.name = name or _name_of(func)
        self.retry_policy = _policies(retry_policy)
        self.cache_policy = cache_policy
        self.is_async = _is_async(func)
        self.timeout = coerce_timeout(timeout)
        if self.timeout is not None and not self.is_async:
            raise sync_timeout_error(self.name, "Task")
        self._sig = params_of(func)
        allow_blocking_calls()  # graph nodes may now wait on this task's futures
        try:
            functools.update_wrapper(self, func)  # type: ignore[arg-type]
        except AttributeError:
            pass

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> TaskFuture[T]:
        return schedule_call(self.name, self._node, args, kwargs)

    def _node(self, loop: PregelLoop) -> PregelNode:
        func, sig = self.func, self._sig

        def writes(output: Any) -> list[tuple[str, Any]]:
            return [(RETURN, output)]

        if self.is_async:

            async def run_async(inp: tuple[tuple[Any, ...], dict[str, Any]]) -> Any:
                args, kwargs = inp
                try:
                    return await func(*args, **injected_kwargs(sig, args, kwargs))
                finally:
                    await settle_async(current_task())

            fn: Any = run_async
        else:

            def run_sync(inp: tuple[tuple[Any, ...], dict[str, Any]]) -> Any:
                args, kwargs = inp
                try:
                    return func(*args, **injected_kwargs(sig, args, kwargs))
                finally:
                    settle(current_task())

            fn = run_sync
        return PregelNode(
            name=self.name,
            fn=fn,
            triggers=[PUSH],
            input_keys=[],
            spec=loop.graph.spec,
            retry_policy=list(self.retry_policy),
            is_async=self.is_async,
            metadata={"kind": "task"},
            timeout=self.timeout,
            cache_policy=self.cache_policy,
            writer=writes,
            update_key=RETURN,
            inline_ok=False,
        )

    def clear_cache(self, cache: BaseCache) -> None:
        """Forget this task's cached results in ``cache``."""
        if self.cache_policy is not None:
            cache.clear([("__task__", self.name)])

    async def aclear_cache(self, cache: BaseCache) -> None:
        if self.cache_policy is not None:
            await cache.aclear([("__task__", self.name)])

    def __repr__(self) -> str:
        return f"<task {self.name}>"


@overload
def task(
    __func_or_none__: None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy | None = None,
    timeout: TimeoutLike = None,
) -> Callable[[Callable[P, T]], TaskFunction[P, T]]: ...


@overload
def task(__func_or_none__: Callable[P, T]) -> TaskFunction[P, T]: ...


def task(
    __func_or_none__: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy | None = None,
    timeout: TimeoutLike = None,
) -> Any:
    """Make ``func`` a task: each call runs as a push task of the running graph (its own node
    span in events) and returns a future; its result is checkpointed, so a resumed run does
    not call it again.  Call tasks from an ``@entrypoint``, another task or a graph node."""

    def wrap(func: Callable[..., Any]) -> TaskFunction[Any, Any]:
        return TaskFunction(
            func, name=name, retry_policy=retry_policy, cache_policy=cache_policy, timeout=timeout
        )

    if __func_or_none__ is not None:
        return wrap(__func_or_none__)
    return wrap
