"""A session opened on its newest runs still counts its older ones: the thread's cost in the
status bar and the Graph dock's visits and cost badges are those of the whole thread, as when
every run is loaded (read from the older runs' outline, not their events)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine import create_agent
from engine.middleware import ModelRetryMiddleware
from engine.models import ScriptedChatModel
from engine.recording import Session, SessionRecorder
from studio.app.status_bar import RunStatusBar
from studio.docks.graph.panel import GraphPanel
from studio.history.replay import open_session
from studio.models.hub import Hub
from studio.widgets.cost_status import CostStatus
from tests.studio import obs_agents

RUNS = 5


def _record(path: Path, *, fork: bool = False) -> None:
    """``RUNS`` priced agent turns on one thread (a timeout retried, two tools, an answer);
    with ``fork``, one more run from the first run's last checkpoint."""
    rec = SessionRecorder(path)
    agent = create_agent(
        ScriptedChatModel(obs_agents.script(RUNS + 1), name="gpt-4o-mini"),
        [obs_agents.weather, obs_agents.local_time],
        middleware=[
            ModelRetryMiddleware(
                max_retries=2, retry_on=(TimeoutError,), initial_delay=0.0, jitter=False
            )
        ],
        checkpointer=rec.checkpointer,
    )
    rec.attach(agent)
    cfg: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    first_tip = None
    for _ in range(RUNS):
        agent.invoke(obs_agents.first_input(), cfg)
        first_tip = first_tip or agent.get_state(cfg).config["configurable"]["checkpoint_id"]
    if fork:
        at = {"configurable": {"thread_id": "t", "checkpoint_id": first_tip}}
        agent.invoke(obs_agents.first_input(), at)
    rec.close()


def _figures(qtbot: Any, path: Path, **kw: Any) -> tuple[Hub, str, dict[str, tuple[int, str]]]:
    """The status bar's cost, model calls and tokens, and each node's (visits, cost badge),
    the session opened."""
    hub = Hub()
    panel = GraphPanel(hub)
    cost = CostStatus(hub)
    bar = RunStatusBar(hub)
    for widget in (panel, cost, bar):
        qtbot.addWidget(widget)
    opened = open_session(hub, path, **kw)
    asyncio.run(opened.afeed_rest())
    state = panel.state
    nodes = {n: (state.node(n).visits, state.node(n).cost) for n in state.graph.nodes}
    opened.close()
    status = " · ".join([cost.text(), bar.fields["models"].text(), bar.fields["tokens"].text()])
    return hub, status, nodes


def _per_run(path: Path) -> int:
    with Session.open(path) as session:
        return session.count() // len(session.runs("t"))


def test_the_whole_threads_cost_and_visits_show_with_only_its_newest_runs_loaded(
    qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "priced.stepwise"
    _record(path)
    _, full_cost, full_nodes = _figures(qtbot, path)
    hub, cost, nodes = _figures(qtbot, path, feed_limit=int(_per_run(path) * 2.5))
    assert hub.older_runs is not None and hub.older_runs.runs == 3
    assert len({e.run_id for e in hub.events}) == 2
    assert full_nodes["model"][0] == 2 * RUNS  # a tool call, an answer (the retry: no visit)
    assert full_nodes["tools"][0] == 2 * RUNS  # one task per tool call
    assert nodes == full_nodes  # visits and cost badges of all five runs
    assert f"{3 * RUNS} model calls" in full_cost  # a timeout, a tool call, an answer a run
    assert "Thread" in full_cost and cost == full_cost


def test_older_runs_off_the_live_branch_count_in_the_cost_not_in_the_visits(
    qtbot: Any, tmp_path: Path
) -> None:
    """After a fork from the first run, the live branch holds the first run and the fork's:
    the older runs after the first lie on another branch, so their visits are not added to
    the live tip's (the thread's cost still counts everything it spent)."""
    path = tmp_path / "forked.stepwise"
    _record(path, fork=True)
    _, full_cost, full_nodes = _figures(qtbot, path)
    hub, cost, nodes = _figures(qtbot, path, feed_limit=int(_per_run(path) * 2.5))
    assert hub.older_runs is not None and not hub.older_runs.linear
    assert full_nodes["model"][0] == 4  # the first run's visits and the fork's
    assert nodes["model"][0] <= full_nodes["model"][0]
    assert cost == full_cost


def test_an_older_run_that_cannot_be_read_leaves_only_its_part_out(
    qtbot: Any, tmp_path: Path
) -> None:
    """A damaged model response among the older runs: the session opens on its newest runs
    all the same, and the figures cover the loaded runs (as before the older runs counted)."""
    import sqlite3

    path = tmp_path / "damaged.stepwise"
    _record(path)
    per_run = _per_run(path)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE session_events SET data='{broken' WHERE id=(SELECT MIN(id) FROM "
            "session_events WHERE kind='model.response')"
        )
    hub, cost, nodes = _figures(qtbot, path, feed_limit=int(per_run * 2.5))
    assert hub.older_runs is not None and hub.older_runs.runs == 3
    assert hub.older_runs.usage is None
    assert nodes["model"][0] == 4  # the two loaded runs' visits
    assert "Thread" in cost
