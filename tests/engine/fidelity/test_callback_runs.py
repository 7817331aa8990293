"""Callback handlers and tracers see a graph run as LangChain shows it: one top-level run named
after the graph, its tasks as child runs, a subgraph's tasks under the task that ran it, and a
functional-API task's calls (with their arguments by name) under the calling task."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from engine import START, StateGraph
from engine.func import entrypoint, task
from engine.observe.callbacks import BaseTracer, Run


class Tracer(BaseTracer):
    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.runs.append(run.copy(update={"name": run.name}))


class S(TypedDict):
    x: int


def _tree(run: Run) -> Any:
    return (run.name, [_tree(c) for c in run.child_runs]) if run.child_runs else run.name


def test_a_graph_run_is_one_run_with_its_tasks_and_subgraph_tasks_below_it() -> None:
    inner = (
        StateGraph(S)
        .add_node("edit", lambda s: {"x": s["x"] + 1})
        .add_edge(START, "edit")
        .compile()
    )
    outer = (
        StateGraph(S)
        .add_node("first", lambda s: {"x": s["x"] * 10})
        .add_node("sub", inner)
        .add_edge(START, "first")
        .add_edge("first", "sub")
        .compile(name="outer")
    )
    tracer = Tracer()
    assert outer.invoke({"x": 1}, {"callbacks": [tracer]}) == {"x": 11}
    assert len(tracer.runs) == 1
    root = tracer.runs[0]
    assert _tree(root) == ("outer", ["__start__", "first", ("sub", ["__start__", "edit"])])
    assert root.inputs == {"x": 1} and root.outputs == {"x": 11}
    sub = root.child_runs[2]
    edit = sub.child_runs[1]
    assert edit.trace_id == root.id and edit.parent_run_id == sub.id
    assert edit.dotted_order is not None and edit.dotted_order.count(".") == 2
    assert edit.dotted_order.startswith(root.dotted_order or "?")


def test_task_calls_are_children_of_the_entrypoint_with_named_arguments() -> None:
    @task
    async def mapper(value: int) -> str:
        return str(value) * 2

    @entrypoint()
    async def workflow(values: list[int]) -> list[str]:
        return list(await asyncio.gather(*(mapper(v) for v in values)))

    tracer = Tracer()
    assert asyncio.run(workflow.ainvoke([0, 1], {"callbacks": [tracer]})) == ["00", "11"]
    (root,) = tracer.runs
    (node,) = [r for r in root.child_runs if r.name == "workflow"]
    calls = sorted(r.inputs["value"] for r in node.child_runs if r.name == "mapper")
    assert calls == [0, 1]
