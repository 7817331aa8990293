"""The Mermaid export can draw a run's path on its graph (item 10 of the studio report)."""

from __future__ import annotations

from engine.graph.run_path import RunPath
from engine.messages import HumanMessage
from resources.scenarios.retry_todos import INPUT, build_agent


def test_seed_000_path_counts_visits_and_taken_edges() -> None:
    agent = build_agent(initial_delay=0.0)
    events: list = []
    agent.subscribe(events.append)
    agent.invoke({"messages": [HumanMessage(INPUT)]}, {"configurable": {"thread_id": "p"}})
    path = RunPath.from_events(events)
    assert path.visits["model"] == 4 and path.visits["tools"] == 3
    assert path.taken[("tools", "model")] == 3

    text = agent.get_graph().draw_mermaid(path=path)
    assert '\tmodel("model ×4"):::visited' in text
    assert '\ttools("tools ×3"):::visited' in text
    assert "linkStyle" in text and "stroke-width:3px" in text
    plain = agent.get_graph().draw_mermaid()
    assert "×" not in plain and "linkStyle" not in plain  # without a path: the bare graph


def test_a_node_the_run_skipped_is_faded() -> None:
    agent = build_agent(initial_delay=0.0)
    path = RunPath()
    path.visits["model"] = 1
    text = agent.get_graph().draw_mermaid(path=path)
    assert '\ttools("tools"):::skipped' in text
    assert "linkStyle" not in text  # no edge taken


def test_cli_export_draws_the_recorded_runs_path(tmp_path) -> None:
    import io
    from pathlib import Path

    from engine.cli import main

    scenario = Path(__file__).resolve().parents[2] / "resources" / "scenarios" / "retry_todos.py"
    session = tmp_path / "s.stepwise"

    def cli(*argv: str) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), stdin=io.StringIO(""), stdout=out, stderr=err)
        return code, out.getvalue()

    assert cli("run", f"{scenario}:agent", "--session", str(session))[0] == 0
    code, text = cli("export", str(session), "--format", "mermaid", "--path")
    assert code == 0 and '\tmodel("model ×4"):::visited' in text and "linkStyle" in text
    assert "×" not in cli("export", str(session), "--format", "mermaid")[1]
