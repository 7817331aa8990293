"""Studio test fixtures: Qt offscreen, and a qasync event loop on the QApplication.

pytest-qt has no built-in qasync support: ``qloop`` installs a ``qasync.QEventLoop`` on the
``qapp`` so coroutines (the engine's runs) and Qt widgets share one loop, exactly as in the
app.  Drive coroutines with ``qloop.run_until_complete(...)``; let Qt process events with
``qtbot.waitUntil(...)`` / ``qtbot.waitSignal(...)``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True, scope="session")
def _pyside_refcount_guard(qapp) -> None:
    """What the app does at start-up (a no-op with the pinned, unaffected PySide6 builds)."""
    from studio import qt_refcount

    qt_refcount.protect()


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
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
        asyncio.set_event_loop(previous)
