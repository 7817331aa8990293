"""An attached run reports each superstep as the engine does: its nodes, then the routes out of
them, the state it changed (messages appended, as ours), its checkpoint, and only then its end,
with how long it took; a node served from LangGraph's cache is a cached node span, not a state
change."""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy

from engine.attach import attach
from engine.cli.render import render_events
from engine.events import EventBase
from tests.engine.attach.test_attach_langgraph import collect
from tests.fixtures.docs_apps import APPROVE, agent_app
from tests.fixtures.plain_langgraph import plain_module


def agent_events(tmp_path: Path) -> list[EventBase]:
    module = plain_module(agent_app(tmp_path, "sync", "memory"))
    graph = attach(module.graph)
    cfg = {"configurable": {"thread_id": "t"}}

    async def go() -> list[EventBase]:
        from engine.types import Command

        first = [ev async for ev in graph.astream_events(module.INPUT, cfg, version="stepwise")]
        again = [
            ev
            async for ev in graph.astream_events(Command(resume=APPROVE), cfg, version="stepwise")
        ]
        return first + again

    return asyncio.run(go())


def test_a_superstep_ends_after_its_routes_changes_and_checkpoint(tmp_path: Path) -> None:
    events = agent_events(tmp_path)
    steps = [e for e in events if e.kind == "superstep.started" and not e.ns]
    assert steps and steps[0].step == 0  # the input applied, as the engine reports it
    for start in steps:
        inside = [e for e in events if e.parent_span_id == start.span_id]
        end = next(
            e for e in events if e.kind == "superstep.finished" and e.span_id == start.span_id
        )
        kinds = [e.kind for e in inside]
        if end.__dict__["status"] == "interrupted":
            continue  # stopped at interrupt(): no checkpoint
        assert "checkpoint.saved" in kinds, kinds
        assert all(e.seq < end.seq for e in inside)  # nothing of it after its end
        assert end.__dict__["duration_ms"] > 0
        nodes = [e for e in inside if e.kind == "node.started"]
        routes = [e for e in inside if e.kind == "route"]
        assert {r.__dict__["from_node"] for r in routes} <= {n.__dict__["node"] for n in nodes}


def test_messages_are_reported_appended_as_ours_and_print_as_plus_one(tmp_path: Path) -> None:
    events = agent_events(tmp_path)
    changes = [
        c for e in events if e.kind == "state.updated" and not e.ns for c in e.__dict__["changes"]
    ]
    messages = [c for c in changes if c["channel"] == "messages"]
    assert messages and {c["op"] for c in messages} == {"append"}
    appended = [m for c in messages for m in c["appended"]]
    assert [m["content"] for m in appended][:1] == ["What is the weather in sf? Tell my boss."]
    # one of each, in order, as the thread holds them (the model's retry added nothing)
    assert len(appended) == messages[-1]["length"] == 6
    assert appended[1]["tool_calls"][0]["name"] == "get_weather"
    tree = render_events(events, times=False)
    assert "Δ state messages +1" in tree
    assert '"additional_kwargs"' not in tree  # never the raw LangChain dict
    lines = tree.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("└ superstep"):
            last = lines[i - 1].strip()
            assert last.startswith("◆ checkpoint" if "✓" in line else "⏸ interrupt"), line


class Log(TypedDict):
    n: int
    seen: Annotated[list[int], operator.add]


def test_a_cached_node_is_a_cached_span_not_a_state_change() -> None:
    def slow(state: Log) -> dict[str, Any]:
        return {"seen": [state["n"] * 10]}

    graph = (
        StateGraph(Log)
        .add_node("slow", slow, cache_policy=CachePolicy())
        .add_edge(START, "slow")
        .add_edge("slow", END)
        .compile(checkpointer=InMemorySaver(), cache=InMemoryCache())
    )
    attached = attach(graph)
    collect(attached, {"n": 1, "seen": []}, {"configurable": {"thread_id": "a"}})
    events = collect(attached, {"n": 1, "seen": []}, {"configurable": {"thread_id": "b"}})
    done = [e for e in events if e.kind == "node.finished"]
    assert [(e.__dict__["node"], e.__dict__["cached"]) for e in done] == [("slow", True)]
    started = next(e for e in events if e.kind == "node.started")
    assert started.span_id == done[0].span_id
    routes = [e.__dict__["to"] for e in events if e.kind == "route"]
    assert routes == [[]]  # slow -> END, never to "__metadata__"
    changed = [
        c["channel"] for e in events if e.kind == "state.updated" for c in e.__dict__["changes"]
    ]
    assert "cached" not in changed and "__metadata__" not in changed
    assert events[-1].__dict__["output"]["seen"] == [10]


def test_two_nodes_starting_at_once_on_worker_threads_start_inside_their_superstep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first of two sync nodes to start opens their superstep; the other's start waits
    until ``superstep.started`` is out (here the opener holds its event back until the other
    node has asked for the superstep: before, that one's ``node.started`` went out first)."""
    import threading

    from engine.attach.callbacks import AttachCallbacks
    from engine.events import SuperstepStarted

    class Both(TypedDict, total=False):
        notes: Annotated[list[str], operator.add]

    asked: dict[int, threading.Event] = {}
    real_span, real_emit = AttachCallbacks.superstep_span, AttachCallbacks._emit

    async def superstep_span(self: Any, ns: str, step: Any, tasks: Any = None) -> str:
        asked.setdefault(threading.get_ident(), threading.Event()).set()
        return await real_span(self, ns, step, tasks)

    async def emit(self: Any, cls: Any, ns: str, **fields: Any) -> Any:
        if cls is SuperstepStarted and fields.get("step") == 1:
            me = threading.get_ident()
            for _ in range(200):  # until the other node's thread asked (or 10 s)
                if any(t != me and e.is_set() for t, e in list(asked.items())):
                    break
                threading.Event().wait(0.05)
        return await real_emit(self, cls, ns, **fields)

    monkeypatch.setattr(AttachCallbacks, "superstep_span", superstep_span)
    monkeypatch.setattr(AttachCallbacks, "_emit", emit)
    g = StateGraph(Both)
    g.add_node("a", lambda s: {"notes": ["a"]}).add_node("b", lambda s: {"notes": ["b"]})
    g.add_edge(START, "a").add_edge(START, "b").add_edge("a", END).add_edge("b", END)
    attached = attach(g.compile(checkpointer=InMemorySaver()), sync=True)
    events: list[EventBase] = []
    attached.subscribe(events.append)
    attached.invoke({"notes": []}, {"configurable": {"thread_id": "t"}})
    kinds = [(e.kind, getattr(e, "node", None)) for e in events if e.step == 1]
    opened = kinds.index(("superstep.started", None))
    assert opened < kinds.index(("node.started", "a"))
    assert opened < kinds.index(("node.started", "b"))
    (step,) = [e for e in events if e.kind == "superstep.started" and e.step == 1]
    starts = [e for e in events if e.kind == "node.started"]
    assert {e.parent_span_id for e in starts} == {step.span_id}


def test_a_checkpoints_due_tasks_are_the_models_validation_would_make() -> None:
    """The translator builds each checkpoint's due tasks without validating them: the same
    model as ``PlannedTask(node=..., task_id=...)``, field by field, and a list of its own."""
    from engine.attach.translate import planned_task
    from engine.events import PlannedTask

    fast, checked = planned_task("model", "t1"), PlannedTask(node="model", task_id="t1")
    assert fast.__getstate__() == checked.__getstate__()
    assert list(vars(fast)) == list(PlannedTask.model_fields)
    assert fast.model_dump_json() == checked.model_dump_json()
    assert planned_task("a", "b").triggers is not planned_task("a", "b").triggers
