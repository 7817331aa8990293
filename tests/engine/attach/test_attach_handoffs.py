"""The docs' multi-agent handoffs attached: agents invoked inside node functions, a tool handing
off with ``Command(goto=..., graph=Command.PARENT)``.  The run goes on to the other agent (no
hang), the handoff is one route of the parent graph, never a node error, and the app's thread
holds what a run without Stepwise holds."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from engine.attach import attach
from engine.cli.render import render_events
from tests.engine.attach.test_attach_langgraph import collect
from tests.fixtures.docs_app_sources import HANDOFF_APP
from tests.fixtures.docs_apps import write_app
from tests.fixtures.plain_langgraph import plain_module, plain_run, thread_digest


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_a_handoff_is_a_route_of_the_parent_graph(tmp_path: Path, sync: bool) -> None:
    app = write_app(tmp_path, HANDOFF_APP)
    module = plain_module(app)
    graph = attach(module.graph, sync=sync)
    events = collect(graph, module.INPUT, {"configurable": {"thread_id": "t"}})
    assert events[-1].__dict__["status"] == "done"
    routes = [
        (e.ns, e.__dict__["from_node"], e.__dict__["to"], e.__dict__["reason"])
        for e in events
        if e.kind == "route" and e.__dict__["reason"] == "command"
    ]
    assert routes == [("", "alice", ["bob"], "command")]
    from_alice = [e for e in events if e.kind == "route" and e.__dict__["from_node"] == "alice"]
    assert len(from_alice) == 1  # drawn once, not again at the checkpoint after it
    ended = [e for e in events if e.kind == "node.finished"]
    assert {e.__dict__["status"] for e in ended} == {"ok"}
    assert "ParentCommand" not in render_events(events, times=False)
    nodes = [e.__dict__["node"] for e in ended if not e.ns]
    assert nodes == ["alice", "bob"]
    assert thread_digest(graph.real, "t") == plain_run(app, "t", [module.INPUT])
