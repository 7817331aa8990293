"""Studio test fixtures: Qt offscreen, and a qasync event loop on the QApplication.

pytest-qt has no built-in qasync support: ``qloop`` installs a ``qasync.QEventLoop`` on the
``qapp`` so coroutines (the engine's runs) and Qt widgets share one loop, exactly as in the
app.  Drive coroutines with ``qloop.run_until_complete(...)``; let Qt process events with
``qtbot.waitUntil(...)`` / ``qtbot.waitSignal(...)``.
"""

from __future__ import annotations

import asyncio
import os
import types
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True, scope="session")
def _pyside_refcount_guard(qapp) -> None:
    """What the app does at start-up (a no-op with the pinned, unaffected PySide6 builds)."""
    from studio.app import qt_refcount

    qt_refcount.protect()


def _run_until_complete(loop: Any, future: Any) -> Any:
    """qasync's ``run_until_complete``, with its last round of Qt event processing done while
    the loop is set as the running loop.

    qasync 0.28 processes pending events once more *after* ``run_forever`` has cleared the
    running loop; an asyncio task stepped there cannot find its loop (``asyncio.to_thread``
    in a tool fails with "no running event loop").  The app never hits this (its loop runs
    until it quits); the tests stop and start the loop all the time."""
    from PySide6.QtCore import QEventLoop as QtLoop

    task = asyncio.ensure_future(future, loop=loop)

    def stop(_task: Any) -> None:
        loop.stop()

    task.add_done_callback(stop)
    try:
        loop.run_forever()
    finally:
        task.remove_done_callback(stop)
    asyncio.events._set_running_loop(loop)
    try:
        loop._QEventLoop__app.eventDispatcher().processEvents(QtLoop.ProcessEventsFlag.AllEvents)
    finally:
        asyncio.events._set_running_loop(None)
    if not task.done():
        raise RuntimeError("Event loop stopped before Future completed.")
    return task.result()


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
    loop.run_until_complete = types.MethodType(_run_until_complete, loop)  # type: ignore[method-assign]
    previous = None
    try:
        previous = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        previous = None
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        _retire_timer(loop)
        asyncio.set_event_loop(previous)


_RETIRED: list[Any] = []


def _retire_timer(loop: Any) -> None:
    """Kill a closed qasync loop's pending Qt timers here, on the GUI thread, and keep its timer
    object alive for the rest of the session.

    qasync's ``close`` only marks its timer object stopped; its pending timers stay registered
    with Qt.  Left to the garbage collector, the object can be freed on whichever thread drops
    the loop's last reference (a worker thread of a finished test): Qt cannot unregister timers
    from there, and the next timer it fires on the GUI thread targets freed memory (a segfault
    in ``QTimerInfoList::activateTimers``, seen in about one full run in three)."""
    timer = getattr(loop, "_timer", None)
    if timer is None:
        return
    pending = getattr(timer, "_SimpleTimer__callbacks", {})
    for timer_id in list(pending):
        timer.killTimer(timer_id)
    pending.clear()
    _RETIRED.append(timer)


@pytest.fixture
def feed_limit(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """File > Open Session loads at most this many events (50,000 in the app)."""
    from studio.history import replay

    whole = replay.open_session_into

    def set_limit(limit: int) -> None:
        monkeypatch.setattr(replay, "open_session_into", partial(whole, feed_limit=limit))

    return set_limit
