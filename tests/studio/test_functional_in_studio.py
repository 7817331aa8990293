"""An ``@entrypoint`` agent in the studio: its ``@task`` calls nest under the entrypoint's node
in the event log (on qasync's loop too), and the docks cope with a one-value state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.studio.app_agents import make_window, run_until

AGENT = """
from engine import entrypoint, task
from engine.checkpoint import InMemorySaver


@task
def fetch(topic: str) -> str:
    return f"notes on {topic}"


@entrypoint(checkpointer=InMemorySaver())
def agent(topics: list[str]) -> list[str]:
    return [f.result().upper() for f in [fetch(t) for t in topics]]


INPUT = ["cats", "dogs"]
"""


def test_task_calls_nest_under_the_entrypoint(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "func_agent.py"
    path.write_text(AGENT)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{path}:agent")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    run_until(qloop, lambda: window.hub.snapshots.idle)  # the docks read the state in tasks
    log = window.docks["events"].widget()
    log.flush()
    rows = {r.node: r for r in log.tree.rows if r.kind == "node.started"}
    assert rows["fetch"].parent is rows["agent"]
    state = qloop.run_until_complete(window.controller.graph.aget_state(window.hub.config()))
    assert state.values == ["NOTES ON CATS", "NOTES ON DOGS"]
    graph = window.graph_panel.state
    assert "fetch" in graph.graph.nodes and graph.visits("fetch") == 2  # a task is a node here
    diff = window.docks["diff"].widget()
    window.docks["diff"].raise_()  # its tab: a dock behind another compares when shown
    run_until(qloop, lambda: window.hub.snapshots.idle and diff.diff is not None)
    assert diff.diff is not None  # the Diff dock compared the one-value states
