"""A Send carrying state with an untracked value: the task gets it, checkpoints never hold it."""

from __future__ import annotations

import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, StateGraph, UntrackedValue
from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.types import Send


class Resource:
    """Not JSON: a live object (a lock) that only the running process can hold."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    resource: Annotated[Resource, UntrackedValue]


def _graph(saver: Any):  # type: ignore[no-untyped-def]
    def setup(state: State) -> dict[str, Any]:
        return {"log": ["setup"], "resource": Resource("first")}

    def worker(state: State) -> dict[str, Any]:
        return {"log": [f"used {state['resource'].name}"], "resource": Resource("second")}

    g = StateGraph(State)
    g.add_node("setup", setup)
    g.add_node("worker", worker)
    g.add_edge(START, "setup")
    g.add_conditional_edges("setup", lambda s: [Send("worker", s)])
    return g.compile(checkpointer=saver)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_the_sent_state_keeps_its_untracked_value_in_memory_only(kind: str, tmp_path: Path) -> None:
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "c.sqlite")
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    out = graph.invoke({}, cfg)
    assert out["log"] == ["setup", "used first"] and out["resource"].name == "second"
    assert "resource" not in graph.get_state(cfg).values
    for snapshot in graph.get_state_history(cfg):
        assert "resource" not in snapshot.values
