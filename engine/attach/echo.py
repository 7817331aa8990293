"""The parts of an attached run's stream that its caller asked for (``AttachedGraph.stream`` /
``astream``), handed over in the shape LangGraph's own ``stream`` gives them: the data alone for
one mode, ``(mode, data)`` for a list of modes, each with its namespace first when
``subgraphs=True``.  The run asks LangGraph for these modes besides its own, translates its own
into events, and passes these through unchanged, from whichever thread made them."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from engine.attach.tapped import Written

__all__ = ["Echo", "echoed"]

_DONE = object()


class Echo:
    """Hands each part of ``modes`` (of the root graph, or of any with ``subgraphs``) to
    ``put`` in the caller's shape."""

    def __init__(
        self, modes: str | Sequence[str], subgraphs: bool, put: Callable[[Any], None]
    ) -> None:
        self.single = isinstance(modes, str)
        self.modes: list[str] = [modes] if isinstance(modes, str) else list(modes)
        self.subgraphs = subgraphs
        self._put = put

    def __call__(self, ns: tuple[str, ...], mode: str, data: Any) -> None:
        if mode not in self.modes or (ns and not self.subgraphs):
            return
        if isinstance(data, Written):  # a stream write tapped where the app made it
            data = data.data
        item: Any = data if self.single else (mode, data)
        if self.subgraphs:
            item = (ns, item) if self.single else (ns, mode, data)
        self._put(item)


async def echoed(
    modes: str | Sequence[str], subgraphs: bool, run: Callable[[Echo], Awaitable[Any]]
) -> AsyncIterator[Any]:
    """Run ``run(echo)`` and yield what ``echo`` is handed, as it comes; the run's failure is
    raised after the parts made before it.  Leaving early cancels the run."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    here = threading.get_ident()

    def put(item: Any) -> None:
        if threading.get_ident() == here:
            queue.put_nowait(item)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, item)

    async def whole() -> None:
        try:
            await run(Echo(modes, subgraphs, put))
        finally:
            put(_DONE)

    task = asyncio.ensure_future(whole())
    try:
        while (item := await queue.get()) is not _DONE:
            yield item
        await task
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
