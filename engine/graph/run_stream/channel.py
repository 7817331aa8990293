"""``StreamChannel``: one projection's log, read by pulling the run forward as needed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

__all__ = ["PullSource", "StreamChannel"]


class PullSource:
    """How a consumer waiting on a channel moves the run on: ``pump`` (a sync run) or
    ``apump`` (an async run) handles the next stream part; False when the run is over."""

    def __init__(
        self,
        pump: Callable[[], bool] | None = None,
        apump: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.pump = pump
        self.apump = apump


class StreamChannel(Generic[T]):
    """A buffered log of items pushed by a transformer.

    Each iteration reads from the first item; when it has read all there is, it pulls the
    run forward until something arrives or the channel is closed. A failed channel raises the
    run's error after its items.
    """

    def __init__(self, source: PullSource | None = None) -> None:
        self._items: list[T] = []
        self._closed = False
        self._error: BaseException | None = None
        self._source = source

    def push(self, item: T) -> None:
        if self._closed:
            raise RuntimeError("push to a closed StreamChannel")
        self._items.append(item)

    def close(self) -> None:
        self._closed = True

    def fail(self, error: BaseException) -> None:
        if not self._closed:
            self._error = error
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def error(self) -> BaseException | None:
        return self._error

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        i = 0
        while True:
            if i < len(self._items):
                i += 1
                yield self._items[i - 1]
                continue
            if self._closed:
                if self._error is not None:
                    raise self._error
                return
            source = self._source
            if source is None or source.pump is None:
                if source is not None and source.apump is not None:
                    raise TypeError("this run streams asynchronously: iterate with `async for`")
                return
            if not source.pump() and i >= len(self._items) and not self._closed:
                return

    def __aiter__(self) -> AsyncIterator[T]:
        return _AsyncCursor(self)


class _AsyncCursor(AsyncIterator[T]):
    """An ``async for`` over a channel (a plain object, not an async generator: nothing is
    left for the garbage collector to finalize when a reader stops early)."""

    def __init__(self, channel: StreamChannel[T]) -> None:
        self._ch = channel
        self._i = 0

    async def __anext__(self) -> T:
        ch = self._ch
        while True:
            if self._i < len(ch._items):
                self._i += 1
                return ch._items[self._i - 1]
            if ch._closed:
                if ch._error is not None:
                    raise ch._error
                raise StopAsyncIteration
            source = ch._source
            if source is None or source.apump is None:
                if source is not None and source.pump is not None:
                    raise TypeError("this run streams synchronously: iterate with `for`")
                raise StopAsyncIteration
            if not await source.apump() and self._i >= len(ch._items) and not ch._closed:
                raise StopAsyncIteration
