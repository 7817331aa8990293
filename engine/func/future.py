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

    __slots__ = ("_cf", "_job", "_loop", "_loop_thread", "name", "task_id")

    def __init__(
        self, name: str, task_id: str, loop: asyncio.AbstractEventLoop, loop_thread: int
    ) -> None:
        self.name = name
        self.task_id = task_id
        self._cf: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._loop = loop
        self._loop_thread = loop_thread
        self._job: asyncio.Future[Any] | None = None

    # -- completion (called by the scheduler) -----------------------------------------------

    def set_result(self, value: T) -> None:
        if not self._cf.done():
            self._cf.set_result(value)

    def set_exception(self, exc: BaseException) -> None:
        if self._cf.done():
            return
        if isinstance(exc, asyncio.CancelledError):
            self._cf.cancel()
        else:
            self._cf.set_exception(exc)

    def cancel(self) -> bool:
        """Cancel the call (an async task is cancelled where it awaits); False once done."""
        if self._cf.done():
            return False
        if threading.get_ident() == self._loop_thread:
            self._cancel_job()
        else:
            self._loop.call_soon_threadsafe(self._cancel_job)
        return True

    def _cancel_job(self) -> None:
        if self._job is not None:
            self._job.cancel()
        else:
            self._cf.cancel()

    def cancelled(self) -> bool:
        return self._cf.cancelled()

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
