"""The studio's one Qt loop: code on worker threads (LangChain running a sync tool's callbacks,
a tool calling ``asyncio.run``) gets plain asyncio loops of its own, never a Qt one."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any


def test_worker_threads_get_plain_event_loops_while_the_qt_loop_runs(qapp: Any) -> None:
    import qasync

    from studio.app.entry import run_on_qt

    async def main() -> tuple[str, str, int]:
        running = type(asyncio.get_running_loop()).__name__

        def in_a_worker() -> tuple[str, int]:
            loop = asyncio.new_event_loop()
            kind = type(loop).__name__
            loop.close()
            return kind, asyncio.run(asyncio.sleep(0, result=7))  # what a sync tool may do

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            kind, value = await asyncio.wrap_future(pool.submit(in_a_worker))
        return running, kind, value

    running, worker, value = run_on_qt(qapp, main())
    assert running == qasync.QEventLoop.__name__
    assert worker != qasync.QEventLoop.__name__ and value == 7
    qt_policy = getattr(qasync, "DefaultQEventLoopPolicy", None)  # Python < 3.12 only
    assert qt_policy is None or not isinstance(asyncio.get_event_loop_policy(), qt_policy)
