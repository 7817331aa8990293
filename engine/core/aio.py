"""Async once: the engine's core is async; sync entry points wrap it with ``run_sync``."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, TypeVar

from engine.core.handoff import LoopInbox

__all__ = ["aiter_thread", "call_on_loop", "cancel_quietly", "in_thread", "iter_sync", "run_sync"]

T = TypeVar("T")

_local = threading.local()
_helper_pool = concurrent.futures.ThreadPoolExecutor(
    max_workers=4, thread_name_prefix="stepwise-sync"
)


def _plain_loop() -> asyncio.AbstractEventLoop:
    return asyncio.DefaultEventLoopPolicy().new_event_loop()


def _runner() -> asyncio.Runner:
    """The main thread's reusable loop (a script calling ``invoke`` in a loop pays for one
    event loop, not one per call); closed at interpreter exit."""
    runner: asyncio.Runner | None = getattr(_local, "runner", None)
    if runner is None:
        # A loop factory keeps the Runner from installing its loop as the thread's current
        # event loop (which would hijack a Qt/qasync app's loop between its callbacks).  The
        # factory asks the *default* policy, not the installed one: qasync installs a policy
        # whose loops are Qt event loops, which cannot live on helper threads.
        runner = asyncio.Runner(loop_factory=_plain_loop)
        _local.runner = runner
        atexit.register(runner.close)
    return runner


@contextlib.contextmanager
def _thread_runner() -> Iterator[asyncio.Runner]:
    """The main thread reuses its loop; any other thread gets one that is closed after use
    (a cached one would be dropped unclosed when its pool thread ends)."""
    if threading.current_thread() is threading.main_thread():
        yield _runner()
        return
    with asyncio.Runner(loop_factory=_plain_loop) as runner:
        yield runner


def _in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _caught(coro: Coroutine[Any, Any, T]) -> tuple[T | None, Exception | None]:
    try:
        return await coro, None
    except Exception as exc:
        return None, exc


def call_on_loop(coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop) -> T:
    """Run ``coro`` on ``loop`` (running in another thread) and wait for it here.  Its
    exception is raised as it is: ``run_coroutine_threadsafe`` alone would hand a plain
    ``TimeoutError`` over as a new one, losing its identity, attributes and traceback."""
    value, error = asyncio.run_coroutine_threadsafe(_caught(coro), loop).result()
    if error is not None:
        raise error
    return value  # type: ignore[return-value]


def _caught_call(fn: Callable[..., T], args: Any, kwargs: Any) -> tuple[T | None, Exception | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:
        return None, exc


async def in_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread``, with the function's exception raised as it is (``to_thread``
    alone hands a plain ``TimeoutError`` over as a new one, without its cause, attributes
    and traceback)."""
    value, error = await asyncio.to_thread(_caught_call, fn, args, kwargs)
    if error is not None:
        raise error
    return value  # type: ignore[return-value]


async def _boxed(awaitable: Any, box: list[Any]) -> None:
    box.append(await awaitable)


def _run(awaitable: Any) -> Any:
    """``asyncio.Runner.run`` with the result kept out of the task.

    On the main thread ``Runner.run`` checks its SIGINT handler afterwards, and on 3.11 that
    check formats ``repr(handler)``, which includes ``repr(task)`` and so the task's result: a
    state with 10,000 messages took 100+ ms to repr on every ``get_state``.  The task returns
    None; the value travels in ``box``.
    """
    box: list[Any] = []
    with _thread_runner() as runner:
        runner.run(_boxed(awaitable, box))
    return box[0]


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code.

    With no event loop running in this thread, the coroutine runs on a private loop (the main
    thread keeps its loop for the next call).  Called from inside a running loop (e.g. a sync API used in async code), the
    coroutine runs on a helper thread and this thread waits for it.
    """
    if not _in_running_loop():
        return _run(coro)  # type: ignore[no-any-return]
    # the helper thread runs in a copy of this context (a graph invoked from a node must still
    # see the node's task)
    ctx = contextvars.copy_context()
    return _helper_pool.submit(ctx.run, _run, coro).result()  # type: ignore[no-any-return]


def iter_sync(agen: AsyncIterator[T]) -> Iterator[T]:
    """Iterate an async iterator from synchronous code, one item at a time."""
    if _in_running_loop():
        # drive it on a helper thread, handing items over one by one
        items: list[T] = []

        async def collect() -> None:
            async for item in agen:
                items.append(item)

        _helper_pool.submit(_run, collect()).result()
        yield from items
        return
    with _thread_runner() as runner:
        it = agen.__aiter__()
        try:
            while True:
                box: list[Any] = []
                try:
                    runner.run(_boxed(it.__anext__(), box))
                except StopAsyncIteration:
                    return
                yield box[0]
        finally:
            aclose = getattr(it, "aclose", None)
            if aclose is not None:
                runner.run(aclose())


class _Stopped(Exception):
    """Raised in the producer thread when the consumer of ``aiter_thread`` went away."""


async def aiter_thread(
    make: Callable[[], Iterator[T]], inbox: LoopInbox | None = None
) -> AsyncIterator[T]:
    """Iterate the sync iterator ``make()`` on a thread of its own, from async code.

    The thread runs in a copy of the caller's context and hands over one item at a time: it
    waits until the consumer asks for the next item, so it never runs ahead of what has been
    consumed.  With ``inbox`` (the loop's ``LoopInbox`` the thread hands its other calls to),
    the items, the end and the error go through it too, after the calls put before them (what
    the inbox holds included).  The iterator's exception is raised here; if the consumer stops
    early, the iterator is closed at its next hand-over.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any, concurrent.futures.Future[None] | None]] = asyncio.Queue()
    gone = threading.Event()

    def put(kind: str, value: Any, ack: concurrent.futures.Future[None] | None) -> None:
        if gone.is_set():
            raise _Stopped
        try:
            if inbox is None:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, value, ack))
            else:
                inbox.put_now(queue.put_nowait, (kind, value, ack))
        except RuntimeError:  # the consumer's loop is closed: nobody is listening any more
            raise _Stopped from None

    def produce() -> None:
        try:
            it = make()
            try:
                for item in it:
                    ack: concurrent.futures.Future[None] = concurrent.futures.Future()
                    put("item", item, ack)
                    ack.result()  # raises _Stopped when the consumer is gone
            finally:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
        except _Stopped:
            return
        except BaseException as exc:  # handed to the consumer
            with contextlib.suppress(_Stopped):
                put("error", exc, None)
            return
        with contextlib.suppress(_Stopped):
            put("end", None, None)

    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(produce,), name="stepwise-attach", daemon=True
    )
    thread.start()
    ack: concurrent.futures.Future[None] | None = None
    try:
        while True:
            kind, value, ack = await queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
            assert ack is not None
            ack.set_result(None)
            ack = None
    finally:
        gone.set()
        if ack is not None and not ack.done():
            ack.set_exception(_Stopped())


async def cancel_quietly(task: asyncio.Future[Any]) -> None:
    """Stop a run task whose consumer went away (the caller broke out of a stream): cancel
    it and wait for it, its own error included (the consumer left first: it is not news)."""
    if task.done():
        if not task.cancelled():
            task.exception()  # retrieved: asyncio would log it as never retrieved
        return
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass
