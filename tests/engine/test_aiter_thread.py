"""``aiter_thread``: a sync iterator (LangGraph's sync ``stream``) consumed from async code, one
item at a time, on a thread of its own."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator

import pytest

from engine.core.aio import aiter_thread

LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="unset")


def test_items_arrive_in_order_and_the_producer_never_runs_ahead() -> None:
    produced: list[int] = []
    threads: set[int] = set()

    def numbers() -> Iterator[tuple[int, str]]:
        for i in range(5):
            produced.append(i)
            threads.add(threading.get_ident())
            yield i, LABEL.get()

    async def consume() -> list[tuple[int, str, int]]:
        LABEL.set("caller's")
        seen = []
        async for i, label in aiter_thread(numbers):
            seen.append((i, label, len(produced)))  # produced so far when item i arrives
        return seen

    seen = asyncio.run(consume())
    assert [(i, label) for i, label, _ in seen] == [(i, "caller's") for i in range(5)]
    assert [n for _, _, n in seen] == [1, 2, 3, 4, 5]  # one item handed over at a time
    assert threading.get_ident() not in threads


def test_the_iterators_exception_is_raised_in_the_consumer() -> None:
    def failing() -> Iterator[int]:
        yield 1
        raise ConnectionError("database went away")

    async def consume() -> list[int]:
        return [i async for i in aiter_thread(failing)]

    with pytest.raises(ConnectionError, match="database went away"):
        asyncio.run(consume())


def test_a_consumer_that_stops_early_closes_the_iterator() -> None:
    closed = threading.Event()

    def endless() -> Iterator[int]:
        i = 0
        try:
            while True:
                yield i
                i += 1
        finally:
            closed.set()

    async def consume() -> int:
        async for i in aiter_thread(endless):
            if i == 3:
                return i
        return -1

    assert asyncio.run(consume()) == 3
    assert closed.wait(5)
