"""``LoopInbox`` and the events sync code hands to the run's loop from worker threads: every
call runs once, on the loop, in the order it was put, and the loop is woken once for a batch
(issue 26: fewer thread hops)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from engine.core.handoff import WAITING, LoopInbox
from engine.events import EventBase, NodeStarted
from engine.observe.bus import EventBus, RunEmitter


def test_calls_run_on_the_loop_in_order_with_one_wakeup_per_batch() -> None:
    async def main() -> tuple[list[tuple[int, int]], int]:
        loop = asyncio.get_running_loop()
        inbox = LoopInbox(loop)
        ran: list[tuple[int, int]] = []

        def worker() -> None:
            for i in range(50):
                inbox.put(lambda i=i: ran.append((i, threading.get_ident())))

        t = threading.Thread(target=worker)
        t.start()
        t.join()  # the loop is busy here: all 50 are queued before it looks
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return ran, inbox.wakeups

    ran, wakeups = asyncio.run(main())
    assert [i for i, _ in ran] == list(range(50))
    assert {tid for _, tid in ran} == {threading.get_ident()}
    assert wakeups == 1


def test_calls_put_while_a_batch_runs_run_after_it_in_order() -> None:
    async def main() -> list[str]:
        inbox = LoopInbox(asyncio.get_running_loop())
        ran: list[str] = []

        def first() -> None:
            ran.append("first")
            # put from another thread while the batch runs: it waits for a later drain
            t = threading.Thread(target=inbox.put, args=(ran.append, "late"))
            t.start()
            t.join()

        t = threading.Thread(target=lambda: (inbox.put(first), inbox.put(ran.append, "second")))
        t.start()
        t.join()
        for _ in range(4):
            await asyncio.sleep(0)
        return ran

    assert asyncio.run(main()) == ["first", "second", "late"]


def test_a_failing_call_is_reported_and_the_rest_still_run() -> None:
    async def main() -> tuple[list[int], list[dict[str, Any]]]:
        loop = asyncio.get_running_loop()
        reported: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, ctx: reported.append(ctx))
        inbox = LoopInbox(loop)
        ran: list[int] = []

        def boom() -> None:
            raise ValueError("listener bug")

        def worker() -> None:
            inbox.put(ran.append, 1)
            inbox.put(boom)
            inbox.put(ran.append, 2)

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        await asyncio.sleep(0)
        return ran, reported

    ran, reported = asyncio.run(main())
    assert ran == [1, 2]
    assert len(reported) == 1 and isinstance(reported[0]["exception"], ValueError)


def test_a_closed_loop_raises_as_call_soon_threadsafe_does() -> None:
    loop = asyncio.new_event_loop()
    inbox = LoopInbox(loop)
    loop.close()
    with pytest.raises(RuntimeError):
        inbox.put(print, "never")
    with pytest.raises(RuntimeError):  # not left "scheduled": it tries again, and says so again
        inbox.put(print, "never")


def test_events_from_a_worker_thread_arrive_in_order_with_increasing_seq() -> None:
    bus = EventBus()
    seen: list[EventBase] = []
    bus.subscribe(seen.append)

    async def main() -> int:
        em = RunEmitter("run-1", "t", [bus])
        child = em.child("sub:1")

        def worker() -> None:
            for i in range(20):
                (child if i % 2 else em).emit_sync(NodeStarted, node=f"n{i}", task_id=str(i))

        t = threading.Thread(target=worker)
        t.start()
        t.join()  # every event is queued while the loop is busy
        await asyncio.sleep(0)
        return em.inbox.wakeups

    wakeups = asyncio.run(main())
    assert [ev.node for ev in seen] == [f"n{i}" for i in range(20)]  # type: ignore[attr-defined]
    assert [ev.seq for ev in seen] == list(range(1, 21))
    assert [ev.ns for ev in seen] == ["sub:1" if i % 2 else "" for i in range(20)]
    assert wakeups == 1


def test_held_calls_wake_nothing_and_run_first_at_the_next_call_put_now() -> None:
    async def main() -> tuple[list[str], int, list[str]]:
        loop = asyncio.get_running_loop()
        inbox = LoopInbox(loop)
        inbox.hold(3600)  # no timer tick during the test
        ran: list[str] = []

        def worker() -> None:
            for name in ("a", "b", "c"):
                inbox.put(ran.append, name)

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        for _ in range(4):
            await asyncio.sleep(0)
        before = list(ran)  # held: nothing ran, the loop was not woken
        t = threading.Thread(target=inbox.put_now, args=(ran.append, "now"))
        t.start()
        t.join()
        for _ in range(4):
            await asyncio.sleep(0)
        inbox.release()
        return before, inbox.wakeups, ran

    before, wakeups, ran = asyncio.run(main())
    assert before == []
    assert wakeups == 1
    assert ran == ["a", "b", "c", "now"]


def test_held_calls_run_at_the_timer_tick_or_when_released() -> None:
    async def main() -> tuple[list[str], list[str]]:
        loop = asyncio.get_running_loop()
        inbox = LoopInbox(loop)
        ran: list[str] = []
        inbox.hold(0.001)
        threading.Thread(target=inbox.put, args=(ran.append, "ticked")).start()
        while not ran:  # the timer of the loop drains it, unwoken by the thread
            await asyncio.sleep(0.001)
        ticked = list(ran)
        inbox.hold(3600)
        t = threading.Thread(target=inbox.put, args=(ran.append, "released"))
        t.start()
        t.join()
        inbox.release()
        return ticked, ran

    ticked, ran = asyncio.run(main())
    assert ticked == ["ticked"]
    assert ran == ["ticked", "released"]


def test_a_waiting_call_holds_the_calls_after_it_until_kicked() -> None:
    """A call returning ``WAITING`` (a checkpoint whose save is not known yet) keeps itself and
    every later call queued, in order, while the thread that put them goes on; ``kick`` from
    another thread runs them, the waiting call first, again."""

    async def main() -> tuple[list[str], list[str], int]:
        inbox = LoopInbox(asyncio.get_running_loop())
        ran: list[str] = []
        ready = threading.Event()
        looked = [0]

        def pending() -> object:
            looked[0] += 1
            if not ready.is_set():
                return WAITING
            ran.append("saved")
            return None

        def worker() -> None:
            inbox.put(ran.append, "before")
            inbox.put(pending)
            inbox.put(ran.append, "after")  # the worker is not held up by the waiting call

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        for _ in range(4):
            await asyncio.sleep(0)
        held = list(ran)
        inbox.put(ran.append, "later")  # a new put looks again: still waiting
        for _ in range(4):
            await asyncio.sleep(0)
        assert ran == held
        ready.set()
        kicker = threading.Thread(target=inbox.kick)
        kicker.start()
        kicker.join()
        for _ in range(4):
            await asyncio.sleep(0)
        return held, ran, looked[0]

    held, ran, looked = asyncio.run(main())
    assert held == ["before"]
    assert ran == ["before", "saved", "after", "later"]
    assert looked == 3  # first drain, the new put's drain, the kick's


def test_a_kick_while_the_waiting_call_looks_is_not_lost() -> None:
    """The outcome may come between the waiting call's look and the drain putting the calls
    back: the drain sees the kick and looks again (no call stays queued for ever)."""

    async def main() -> list[str]:
        inbox = LoopInbox(asyncio.get_running_loop())
        ran: list[str] = []
        state = {"known": False}

        def pending() -> object:
            if not state["known"]:
                state["known"] = True  # reported right after this look, before the put-back
                t = threading.Thread(target=inbox.kick)
                t.start()
                t.join()
                return WAITING
            ran.append("saved")
            return None

        t = threading.Thread(target=lambda: (inbox.put(pending), inbox.put(ran.append, "after")))
        t.start()
        t.join()
        for _ in range(6):
            await asyncio.sleep(0)
        return ran

    assert asyncio.run(main()) == ["saved", "after"]
