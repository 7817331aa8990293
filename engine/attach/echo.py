"""The parts of an attached run's stream that its caller asked for (``AttachedGraph.stream`` /
``astream``), handed over in the shape LangGraph's own ``stream`` gives them: the data alone for
one mode, ``(mode, data)`` for a list of modes, each with its namespace first when
``subgraphs=True``; with ``version="v2"`` each a typed part (``{"type", "ns", "data"}``) made by
``parts``.  The run asks LangGraph for these modes besides its own, translates its own
into events, and passes these through unchanged, from whichever thread made them."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from engine.attach.output_keys import SKIP, OutputKeys
from engine.attach.tapped import Written

__all__ = ["Echo", "Parts", "echoed"]

_DONE = object()


Parts = Callable[[tuple[str, ...], str, Any], Any]
"""Makes ``(namespace, mode, data)`` into one part of a ``version="v2"`` stream."""


class Echo:
    """Hands each part of ``modes`` (of the root graph, or of any with ``subgraphs``) to
    ``put`` in the caller's shape (``parts``' v2 parts when given); ``keys``: the caller's
    ``output_keys``, applied to the root graph's parts."""

    def __init__(
        self,
        modes: str | Sequence[str],
        subgraphs: bool,
        put: Callable[[Any], None],
        parts: Parts | None = None,
        keys: OutputKeys | None = None,
    ) -> None:
        self.parts = parts
        self.keys = keys
        self.single = isinstance(modes, str)
        self.modes: list[str] = [modes] if isinstance(modes, str) else list(modes)
        self.subgraphs = subgraphs
        self._put = put
        self._handed = 0
        self._taken = 0
        self._closed = False
        self._turn = threading.Condition()
        self._caught_up: asyncio.Event | None = None
        """Set while the caller has taken every part handed (on the caller's loop)."""

    # -- the caller's pace: LangGraph runs on when its stream is asked for the next part --------

    def taken(self) -> None:
        """The caller asked for the part after the last it took (on the caller's loop)."""
        with self._turn:
            self._taken += 1
            caught_up = self._taken >= self._handed
            self._turn.notify_all()
        if caught_up and self._caught_up is not None:
            self._caught_up.set()

    def close(self) -> None:
        """The caller went away: nothing waits for it any more."""
        with self._turn:
            self._closed = True
            self._turn.notify_all()
        if self._caught_up is not None:
            self._caught_up.set()

    def wait_taken(self) -> None:
        """Until the caller has taken every part handed to it (a thread's wait)."""
        with self._turn:
            self._turn.wait_for(lambda: self._closed or self._taken >= self._handed)

    async def until_taken(self) -> None:
        """``wait_taken`` on the caller's loop."""
        if self._caught_up is None:
            self._caught_up = asyncio.Event()
        with self._turn:
            if self._closed or self._taken >= self._handed:
                return
            self._caught_up.clear()
        await self._caught_up.wait()

    def __call__(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        if not ns and self.keys is not None:  # seen whether asked for or not (``OutputKeys``)
            data = self.keys.part(mode, data)
            if data is SKIP:
                return
        if mode not in self.modes or (ns and not self.subgraphs):
            return
        if isinstance(data, Written):  # a stream write tapped where the app made it
            data = data.data
        item: Any
        if self.parts is not None:
            item = self.parts(ns, mode, data)
        else:
            item = data if self.single else (mode, data)
            if self.subgraphs:
                item = (ns, item) if self.single else (ns, mode, data)
        with self._turn:
            self._handed += 1
        self._put(item)


async def echoed(
    modes: str | Sequence[str],
    subgraphs: bool,
    run: Callable[[Echo], Awaitable[Any]],
    parts: Parts | None = None,
    keys: OutputKeys | None = None,
) -> AsyncIterator[Any]:
    """Run ``run(echo)`` and yield what ``echo`` is handed, as it comes; the run's failure is
    raised after the parts made before it.  Leaving early cancels the run.  The run pulls
    LangGraph's stream only once the caller has taken what was handed (``Echo.wait_taken``),
    so the app's nodes run when the caller asks for more, as on LangGraph."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    here = threading.get_ident()

    def put(item: Any) -> None:
        if threading.get_ident() == here:
            queue.put_nowait(item)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, item)

    echo = Echo(modes, subgraphs, put, parts, keys)

    async def whole() -> None:
        try:
            await run(echo)
        finally:
            put(_DONE)

    task = asyncio.ensure_future(whole())
    try:
        while (item := await queue.get()) is not _DONE:
            yield item
            echo.taken()
        await task
    finally:
        echo.close()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
