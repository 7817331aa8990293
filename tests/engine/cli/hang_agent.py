"""A graph whose sync node hangs (like a sync tool stuck on a dead socket)."""

from __future__ import annotations

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
