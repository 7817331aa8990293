"""The debug stream of a resumed entrypoint, as LangGraph streams it.

A task call answered from its saved result is still streamed as a task (not run, so no
result of its own); the entrypoint's task result shows its output, not what it saved for the
next run; with ``durability="exit"`` nothing is saved mid-run, so checkpoints name no parent.
"""

from __future__ import annotations

from typing import Any

from engine.checkpoint import InMemorySaver
from engine.func import entrypoint, task
from engine.graph import interrupt
from engine.types import Command

RUNS: list[str] = []


@task
def falsy() -> bool:
    RUNS.append("falsy")
    return False


def _graph() -> Any:
    @entrypoint(checkpointer=InMemorySaver())
    def graph(state: dict[str, Any]) -> None:
        falsy().result()
        interrupt("go on?")

    return graph


def _summary(chunks: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for c in chunks:
        p = c["payload"]
        if c["type"] == "checkpoint":
            out.append(("checkpoint", c["step"], p["parent_config"]))
        elif c["type"] == "task":
            out.append(("task", p["name"]))
        else:
            out.append(("result", p["name"], p["result"]))
    return out


def test_a_resumed_entrypoint_streams_its_saved_task_call_and_only_its_output() -> None:
    RUNS.clear()
    graph = _graph()
    cfg = {"configurable": {"thread_id": "t"}}
    first = list(graph.stream({"a": 1}, cfg, stream_mode="debug", durability="exit"))
    assert _summary(first)[1:] == [
        ("task", "graph"),
        ("task", "falsy"),
        ("result", "falsy", {"__return__": False}),
        ("result", "graph", {}),
    ]
    again = list(graph.stream(Command(resume="yes"), cfg, stream_mode="debug", durability="exit"))
    assert _summary(again)[1:] == [
        ("task", "graph"),
        ("task", "falsy"),  # answered from its saved result
        ("result", "graph", {"__end__": None}),
        ("checkpoint", 0, None),
    ]
    assert RUNS == ["falsy"]  # run once
