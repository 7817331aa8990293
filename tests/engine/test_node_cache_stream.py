"""Cached node results as LangGraph serves and streams them: a step's tasks are looked up
together (of several tasks with one cache key only the last is served), and a cached task's
start is in the ``tasks`` stream but not its result, nor any ``messages``."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.cache import InMemoryCache
from engine.graph import START, StateGraph
from engine.types import CachePolicy, Send


class State(TypedDict):
    x: int
    out: Annotated[list, operator.add]


def _graph(runs: list[int]) -> Any:
    def fan(state: State) -> list[Send]:
        return [Send("work", {"x": i, "out": []}) for i in (1, 2, 1)]

    def work(state: State) -> dict[str, Any]:
        runs.append(state["x"])
        return {"out": [state["x"]]}

    b = StateGraph(State)
    b.add_node("work", work, cache_policy=CachePolicy())
    b.add_conditional_edges(START, fan, ["work"])
    return b.compile(cache=InMemoryCache())


def test_of_tasks_sharing_a_key_only_the_last_is_served() -> None:
    runs: list[int] = []
    g = _graph(runs)
    assert sorted(g.invoke({"x": 0, "out": []})["out"]) == [1, 1, 2]
    assert sorted(runs) == [1, 1, 2]
    runs.clear()
    chunks = list(g.stream({"x": 0, "out": []}, stream_mode=["updates", "tasks"]))
    assert runs == [1]  # the first of the two x=1 tasks runs again
    cached = [c for m, c in chunks if m == "updates" and "__metadata__" in c]
    assert sorted(c["work"]["out"][0] for c in cached) == [1, 2]
    starts = [c for m, c in chunks if m == "tasks" and "input" in c]
    results = [c for m, c in chunks if m == "tasks" and "result" in c]
    assert len(starts) == 3 and [r["result"] for r in results] == [{"out": [1]}]
