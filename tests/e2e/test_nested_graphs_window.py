"""Graphs invoked inside a user's node functions (``agent.invoke(...)`` in the node's code),
run through the studio window on attach mode: their routes are told as the same graphs'
routes are when they run at the top level (the conditional edge taken, its reason and its
name, not a guess from the nodes due next), their store calls are told with their scope, and
the app's thread, read back with plain LangGraph, equals a run without Stepwise."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

from tests.e2e.attach_window import Plain, Studio, studio_digest
from tests.fixtures.docs_app_sources import NESTED_APP
from tests.fixtures.docs_apps import write_app
from tests.fixtures.plain_langgraph import plain_module

pytestmark = pytest.mark.timeout(180)


def _routes(events: list[Any], ns_prefix: str) -> list[tuple[str, list[str], str, str]]:
    return [
        (d["from_node"], list(d["to"]), d["reason"], d["detail"])
        for e in events
        if e.kind == "route" and (e.ns.startswith(ns_prefix) if ns_prefix else not e.ns)
        for d in [e.__dict__]
    ]


def _top_level_routes(graph: Any, inp: Any) -> list[tuple[str, list[str], str, str]]:
    """The routes ``graph`` reports attached on its own (with a saver and a store of its own,
    as the outer graph lends them when it invokes it)."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from engine.attach import attach

    own = {"store": InMemoryStore(), "checkpointer": InMemorySaver()}
    attached = attach(graph.copy(update=own))

    async def go() -> list[Any]:
        config = {"configurable": {"thread_id": "alone"}}
        return [e async for e in attached.astream_events(inp, config, version="stepwise")]

    return _routes(asyncio.run(go()), "")


def test_routes_and_store_calls_of_graphs_invoked_inside_nodes(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, NESTED_APP)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        events = studio.window.hub.events
        alone = plain_module(app)
        agent_routes = _top_level_routes(alone.agent, alone.INPUT)
        assert [r[2] for r in agent_routes] == ["tool_calls", "tool_calls", "no_tool_calls"]
        assert _routes(events, "helper:") == agent_routes
        counter_routes = _top_level_routes(alone.counter, {"n": 0})
        assert [r[:3] for r in counter_routes] == [
            ("bump", ["bump"], "conditional"),
            ("bump", [], "end"),
        ]
        assert _routes(events, "count:") == counter_routes
        stored = [
            (e.ns.split(":")[0], e.__dict__["op"], e.__dict__["namespace"], e.__dict__["key"])
            for e in events
            if e.kind == "store.access"
        ]
        assert stored == [
            ("helper", "put", ["facts"], "f1"),
            ("helper", "get", ["facts"], "f1"),
            ("count", "put", ["counts"], "n"),
            ("count", "put", ["counts"], "n"),
        ]
    finally:
        studio.close()
