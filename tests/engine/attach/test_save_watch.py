"""``SaveWatch`` wakes the run's loop only for a save someone waits for (issue 26: a save
reported from the saver's thread used to cost a loop wake-up each), and never misses one."""

from __future__ import annotations

import asyncio
import threading

from engine.attach.confirm import SaveWatch


class _CountingLoop:
    """The run's loop, counting the calls handed to it from other threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.handed = 0

    def call_soon_threadsafe(self, *args: object) -> object:
        self.handed += 1
        return self._loop.call_soon_threadsafe(*args)  # type: ignore[arg-type]

    def create_future(self) -> asyncio.Future[object]:
        return self._loop.create_future()


def _in_thread(fn: object, *args: object) -> None:
    t = threading.Thread(target=fn, args=args)  # type: ignore[arg-type]
    t.start()
    t.join()


def test_saves_nobody_waits_for_do_not_wake_the_loop() -> None:
    async def main() -> tuple[int, BaseException | None, bool]:
        loop = _CountingLoop(asyncio.get_running_loop())
        watch = SaveWatch(loop)  # type: ignore[arg-type]
        for i in range(5):
            _in_thread(watch.saved, f"c{i}")
        outcome = await watch.result("c3")  # already saved: no waiting
        return loop.handed, outcome, watch.was_saved("c4")

    handed, outcome, saved = asyncio.run(main())
    assert (handed, outcome, saved) == (0, None, True)


def test_a_waiting_result_is_settled_by_a_save_or_a_failure_from_another_thread() -> None:
    async def main() -> tuple[BaseException | None, BaseException | None, int]:
        loop = _CountingLoop(asyncio.get_running_loop())
        watch = SaveWatch(loop)  # type: ignore[arg-type]
        waiting = asyncio.ensure_future(watch.result("c1"))
        await asyncio.sleep(0)  # it waits now
        threading.Thread(target=watch.saved, args=("c1",)).start()
        first = await asyncio.wait_for(waiting, 30)
        failing = asyncio.ensure_future(watch.result("c2"))
        await asyncio.sleep(0)
        threading.Thread(target=watch.failed, args=("c2", OSError("disk full"))).start()
        second = await asyncio.wait_for(failing, 30)
        return first, second, loop.handed

    first, second, handed = asyncio.run(main())
    assert first is None
    assert isinstance(second, OSError) and str(second) == "disk full"
    assert handed == 2


def test_wait_blocks_the_calling_thread_until_the_save_or_its_failure() -> None:
    async def main() -> list[object]:
        watch = SaveWatch(asyncio.get_running_loop())
        out: list[object] = []

        def stream_thread() -> None:
            out.append(watch.wait("c1"))
            out.append(watch.wait("c2"))

        t = threading.Thread(target=stream_thread)
        t.start()
        _in_thread(watch.saved, "c1")
        _in_thread(watch.failed, "c2", OSError("disk full"))
        await asyncio.to_thread(t.join, 30)
        return out

    first, second = asyncio.run(main())
    assert first is None
    assert isinstance(second, OSError)


def test_wait_gives_up_when_the_run_is_sealed() -> None:
    async def main() -> list[object]:
        watch = SaveWatch(asyncio.get_running_loop())
        out: list[object] = []
        t = threading.Thread(target=lambda: out.append(watch.wait("c1")))
        t.start()
        _in_thread(watch.seal)  # a stopped run saves nothing more: c1 will never be saved
        await asyncio.to_thread(t.join, 30)
        return out

    (outcome,) = asyncio.run(main())
    assert isinstance(outcome, RuntimeError) and "stopped" in str(outcome)
