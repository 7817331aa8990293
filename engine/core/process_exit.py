"""Ending the process when a sync tool or node still hangs on a worker thread.

Python cannot cancel a thread.  At exit it joins every non-daemon thread and every
``ThreadPoolExecutor`` worker (``asyncio.to_thread``, LangGraph's node threads), so one sync
tool stuck on a dead socket keeps a stopped program alive for as long as it hangs.  Once the
run is stopped and its session closed, nothing is lost by not waiting for such a thread."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading


def threads_joined_at_exit() -> list[threading.Thread]:
    """The live threads Python waits for before the process ends: the non-daemon ones, and
    every ``ThreadPoolExecutor`` worker (``concurrent.futures`` joins its workers at exit even
    when they are daemon threads, as those started from a daemon thread are: LangGraph's sync
    ``stream`` running on a worker thread starts its node threads so)."""
    from concurrent.futures import thread as pool_threads

    workers = set(getattr(pool_threads, "_threads_queues", None) or ())
    return [
        t
        for t in threading.enumerate()
        if t is not threading.main_thread() and t.is_alive() and (not t.daemon or t in workers)
    ]


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def exit_without_waiting(code: int) -> None:
    """End the process now if worker threads still run; returns when no such thread is left
    (then the caller exits normally)."""
    if threads_joined_at_exit():
        _flush_and_exit(code)


def exit_if_stuck(code: int, grace: float) -> None:
    """From now on, end the process with ``code`` if it has not ended ``grace`` seconds later.

    For a program whose work is done and saved (a window closed): an ordinary exit, idle pool
    workers included, takes far less; a thread stuck in a sync tool would take forever."""
    timer = threading.Timer(grace, _flush_and_exit, args=(code,))
    timer.daemon = True
    timer.start()


def cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks a stopped run left on ``loop`` (a model call's client, a tool) and let
    them unwind, as ``asyncio.run`` does, quietly: the run is already closed."""
    left = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if not left:
        return
    for task in left:
        task.cancel()
    with contextlib.suppress(BaseException):
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
