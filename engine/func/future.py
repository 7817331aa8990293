"""``TaskFuture``: the handle a ``@task`` call returns (``.result()`` or ``await``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Generator
from typing import Any, Generic, TypeVar

__all__ = ["TaskFuture"]

T = TypeVar("T")


class TaskFuture(Generic[T]):
    """The pending result of one task call.

    Sync callers (nodes on worker threads) block on ``.result()``; async callers ``await`` it.
    The task itself always runs on the run's event loop.
    """

    __slots__ = ("_cf", "_loop_thread", "name", "task_id")

    def __init__(self, name: str, task_id: str, loop_thread: int) -> None:
        self.name = name
        self.task_id = task_id
        self._cf: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._loop_thread = loop_thread

    # -- completion (called by the scheduler) -----------------------------------------------

    def set_result(self, value: T) -> None:
        if not self._cf.done():
            self._cf.set_result(value)

    def set_exception(self, exc: BaseException) -> None:
        if not self._cf.done():
            self._cf.set_exception(exc)

    # -- reading ------------------------------------------------------------------------------

    def done(self) -> bool:
        return self._cf.done()

    def result(self, timeout: float | None = None) -> T:
        if not self._cf.done() and threading.get_ident() == self._loop_thread:
            raise RuntimeError(
                f"Task {self.name!r} is still running: on the event loop, await its future "
                "instead of calling .result()"
            )
        return self._cf.result(timeout)

    def exception(self) -> BaseException | None:
        return self._cf.exception() if self._cf.done() else None

    def add_done_callback(self, fn: Any) -> None:
        self._cf.add_done_callback(lambda _cf: fn(self))

    def __await__(self) -> Generator[Any, None, T]:
        return asyncio.wrap_future(self._cf).__await__()

    def __repr__(self) -> str:
        state = "done" if self._cf.done() else "pending"
        return f"<TaskFuture {self.name} {state}>"
