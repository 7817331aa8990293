"""A graph whose sync node hangs (like a sync tool stuck on a dead socket)."""

from __future__ import annotations

import asyncio
import threading
from typing import TypedDict

from engine import START, StateGraph


class Count(TypedDict, total=False):
    n: int


def stuck(state: Count) -> dict:
    threading.Event().wait(600)  # Ctrl+C must not wait for this
    return {"n": 1}


_k = StateGraph(Count)
_k.add_node("stuck", stuck)
_k.add_edge(START, "stuck")
hang = _k.compile(name="hang")


async def _watch() -> None:
    await asyncio.sleep(600)


async def crawl_leaving_a_task(state: Count) -> dict:
    asyncio.get_running_loop().create_task(_watch())  # a background task it never awaits
    await asyncio.sleep(600)
    return {"n": 1}


_l = StateGraph(Count)
_l.add_node("crawl", crawl_leaving_a_task)
_l.add_edge(START, "crawl")
leaky = _l.compile(name="leaky")
"""A node that leaves a task of its own running when the run is stopped."""
