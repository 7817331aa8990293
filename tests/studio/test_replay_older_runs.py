"""A session opened on its newest runs still counts its older ones: the thread's cost in the
status bar and the Graph dock's visits and cost badges are those of the whole thread, as when
every run is loaded (read from the older runs' outline, not their events)."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine import create_agent
from engine.middleware import ModelRetryMiddleware
from engine.models import ScriptedChatModel
from engine.recording import Session, SessionRecorder
from studio.app.status_bar import COUNTING_NOTE, RunStatusBar
from studio.docks.graph.panel import GraphPanel
from studio.history.replay import open_session
from studio.models.hub import Hub
from studio.widgets.cost_status import CostStatus
from tests.studio import obs_agents
from tests.studio.long_runs import record_loop

RUNS = 5


class Loop(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


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


Figures = tuple[str, dict[str, tuple[int, str]]]


def _views(qtbot: Any) -> tuple[Hub, Callable[[], Figures]]:
    """A hub with the views that show the thread's figures, and a reader of them: the status
    bar's cost, model calls and tokens, and each node's (visits, cost badge)."""
    hub = Hub()
    panel = GraphPanel(hub)
    cost = CostStatus(hub)
    bar = RunStatusBar(hub)
    for widget in (panel, cost, bar):
        qtbot.addWidget(widget)

    def figures() -> Figures:
        state = panel.state
        nodes = {n: (state.node(n).visits, state.node(n).cost) for n in state.graph.nodes}
        fields = [cost.text(), bar.fields["models"].text(), bar.fields["tokens"].text()]
        return " · ".join(fields), nodes

    return hub, figures


def _figures(qtbot: Any, path: Path, **kw: Any) -> tuple[Hub, str, dict[str, tuple[int, str]]]:
    """The thread's figures (``_views``), the session opened."""
    hub, figures = _views(qtbot)
    opened = open_session(hub, path, **kw)
    asyncio.run(opened.afeed_rest())
    status, nodes = figures()
    opened.close()
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
    the live tip's, while the first run's are (the thread's cost still counts everything it
    spent).  At any checkpoint of either branch, loaded or not, the figures are those the
    whole session shows there."""
    path = tmp_path / "forked.stepwise"
    _record(path, fork=True)
    _, full_cost, full_nodes = _figures(qtbot, path)
    hub, cost, nodes = _figures(qtbot, path, feed_limit=int(_per_run(path) * 2.5))
    assert hub.older_runs is not None and not hub.older_runs.linear
    assert hub.older_runs.runs == 4
    assert full_nodes["model"][0] == 4  # the first run's visits and the fork's
    assert nodes == full_nodes
    assert cost == full_cost

    with Session.open(path) as session:
        runs = [r.run_id for r in session.runs("t")]
        listed = session.checkpoints("t")
    # the first run's (the fork's base), the third's (the other branch), the fork's own
    of_run = [[c for c in listed if c.run_id == r] for r in runs]
    moments = [of_run[i][len(of_run[i]) // 2] for i in (0, 2, 5)]

    def at_moments(**kw: Any) -> list[Figures]:
        hub, figures = _views(qtbot)
        opened = open_session(hub, path, **kw)
        asyncio.run(opened.afeed_rest())
        hub.note_parents((c.checkpoint_id, c.parent_id) for c in listed)  # as the Timeline
        seen = []
        for c in moments:
            hub.select_checkpoint(c.checkpoint_id)
            seen.append(figures())
        opened.close()
        return seen

    whole = at_moments()
    assert at_moments(feed_limit=int(_per_run(path) * 2.5)) == whole
    assert [nodes["model"][0] for _, nodes in whole] == [1, 5, 3]


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


def test_a_run_past_the_limit_alone_opens_on_its_start_and_its_end(
    qtbot: Any, tmp_path: Path
) -> None:
    """One long run holds more than the limit: it is loaded as its start, the spans its last
    events lie in, and its last events (how it ended); the Events tree nests them as recorded,
    the footer says how many events in between stay in the file, and the graph still counts
    every visit."""
    from studio.docks.events.view import EventLogDock

    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    _, _, full_nodes = _figures(qtbot, path)
    assert full_nodes["step"][0] == 40 and full_nodes["check"][0] == 40

    hub = Hub()
    dock = EventLogDock(hub)
    panel = GraphPanel(hub)
    qtbot.addWidget(panel)
    limit = total // 4
    opened = open_session(hub, path, feed_limit=limit)
    asyncio.run(opened.afeed_rest())
    kinds = [e.kind for e in hub.events]
    assert kinds[0] == "run.started" and kinds[-1] == "run.finished"
    assert len(hub.events) <= limit
    seqs = [e.seq for e in hub.events]
    assert seqs == sorted(seqs) and seqs[-1] - seqs[0] + 1 > len(seqs)  # a gap in the middle
    # every loaded event nests under a span that is loaded too: none is left at the root
    dock.flush()
    tree = dock.tree
    assert len(tree.children(tree.root)) == 1  # the run's row, everything else inside it
    older = hub.older_runs
    assert older is not None and older.runs == 0 and older.cut == total - len(hub.events)
    dock._update_status()
    assert f"{older.cut:,} events in the middle of the newest run not loaded" in dock.status.text()
    state = panel.state
    assert {n: (state.node(n).visits, state.node(n).cost) for n in state.graph.nodes} == full_nodes
    opened.close()
    dock.detach()


def test_a_long_run_whose_end_is_damaged_opens_on_its_first_events(
    qtbot: Any, tmp_path: Path
) -> None:
    """The end of a run past the limit cannot be read (a damaged row among its last events):
    the session opens all the same, on the run's first events, as far as the limit goes."""
    import sqlite3

    from engine import END, START, StateGraph

    path = tmp_path / "long.stepwise"
    rec = SessionRecorder(path)
    graph = (
        StateGraph(Loop)
        .add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"step {s['n']}"]})
        .add_conditional_edges("step", lambda s: END if s["n"] >= 30 else "step", ["step", END])
        .add_edge(START, "step")
        .compile(checkpointer=rec.checkpointer)
    )
    rec.attach(graph)
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE session_events SET data='{broken' WHERE id=(SELECT MAX(id) - 3 FROM session_events)"
        )
        total = conn.execute("SELECT COUNT(*) FROM session_events").fetchone()[0]
    hub = Hub()
    opened = open_session(hub, path, first_page=10, page_size=10, feed_limit=total // 3)
    asyncio.run(opened.afeed_rest())
    assert hub.events[0].kind == "run.started" and len(hub.events) == total // 3
    assert [e.seq for e in hub.events] == list(range(1, total // 3 + 1))
    opened.close()


def test_the_transcript_of_a_run_opened_on_its_end_is_whole(qtbot: Any, tmp_path: Path) -> None:
    """An agent's one long run (many tool calls) past the limit: the Messages dock starts
    from the state its loaded end continues, so the conversation shows whole."""
    from engine.messages import AIMessage, HumanMessage
    from engine.tools import tool
    from studio.docks.messages.view import MessagesDock

    @tool
    def count(n: int) -> str:
        """Count to n."""
        return f"counted to {n}"

    calls = 30
    replies = [
        AIMessage("", tool_calls=[{"name": "count", "args": {"n": i}, "id": f"c{i}"}])
        for i in range(calls)
    ]
    path = tmp_path / "agent.stepwise"
    rec = SessionRecorder(path)
    agent = create_agent(
        ScriptedChatModel([*replies, AIMessage("Done counting.")]),
        [count],
        checkpointer=rec.checkpointer,
    )
    rec.attach(agent)
    agent.invoke({"messages": [HumanMessage("count")]}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with Session.open(path) as session:
        total = session.count()
    hub = Hub()
    dock = MessagesDock(hub)
    qtbot.addWidget(dock)
    opened = open_session(hub, path, feed_limit=total // 3)
    asyncio.run(opened.afeed_rest())
    assert hub.older_runs is not None and hub.older_runs.cut > 0
    texts = [e.text for e in dock.live_entries]
    assert len(texts) == 2 + 2 * calls  # the question, each call and its result, the answer
    assert texts[0] == "count" and texts[-1] == "Done counting."
    opened.close()
    dock.detach()


def test_the_window_reads_the_older_runs_part_in_the_background(qtbot: Any, tmp_path: Path) -> None:
    """``open_session_into`` (the window's way) returns before the older runs' outline is read:
    the figures cover the loaded runs at first, then every run, once read off the loop."""
    from studio.history.replay import open_session_into

    path = tmp_path / "priced.stepwise"
    _record(path)
    _, full_status, full_nodes = _figures(qtbot, path)
    hub, figures = _views(qtbot)
    bar = RunStatusBar(hub)
    qtbot.addWidget(bar)
    heard: list[Any] = []
    hub.subscribe("older_runs", heard.append)

    async def main() -> Any:
        opened = open_session_into(hub, path, feed_limit=int(_per_run(path) * 2.5))
        assert hub.older_runs is not None and hub.older_runs.runs == 3
        assert hub.older_runs.usage is None and not heard  # not read yet
        assert hub.older_runs.reading
        assert bar.message_label.full_text() == COUNTING_NOTE  # the status bar says so
        assert opened.older_task is not None
        await opened.older_task
        if opened.task is not None:
            await opened.task
        return opened

    opened = asyncio.run(main())
    assert len(heard) == 1 and hub.older_runs is heard[0] and heard[0].usage is not None
    assert not hub.older_runs.reading
    assert figures() == (full_status, full_nodes)
    assert bar.message_label.full_text() == ""  # counted: the note is gone
    opened.close()


def test_a_checkpoint_of_the_runs_not_loaded_says_so(qtbot: Any, tmp_path: Path) -> None:
    """Time travel to a checkpoint of an unloaded older run: the status bar says its figures
    are counted from the file and where its events are; one of the loaded runs still reads as
    its step."""
    path = tmp_path / "priced.stepwise"
    _record(path)
    from studio.docks.events.view import EventLogDock

    hub = Hub()
    status = RunStatusBar(hub)
    qtbot.addWidget(status)
    log = EventLogDock(hub)
    qtbot.addWidget(log)
    opened = open_session(hub, path, feed_limit=int(_per_run(path) * 2.5))
    asyncio.run(opened.afeed_rest())
    log.flush()
    with Session.open(path) as session:
        first_run = session.runs("t")[0].run_id
        old = next(c for c in session.checkpoints("t") if c.run_id == first_run)
    loaded = next(e for e in hub.events if e.kind == "checkpoint.saved")
    assert log.follow
    hub.select_checkpoint(old.checkpoint_id)
    note = status.message_label.full_text()
    assert f"step {old.step} of a run not loaded" in note and "counted from the file" in note
    assert "its events in the Timeline's right-click menu" in note
    assert status.fields["step"].text() == f"Step {old.step}"
    # the Events log has no row for it: it stops following and says where its events are
    assert not log.follow and log.selected_row() is None
    told = log.details.toPlainText()
    assert (
        told.startswith(f"Step {old.step} is in a run not loaded") and "the oldest 3 runs" in told
    )
    assert "Show this run's events (left in the file)" in told
    hub.select_checkpoint(loaded.checkpoint_id)
    assert f"showing step {loaded.step}" in status.message_label.full_text()
    assert log.selected_row() is log.tree.find(loaded.seq, loaded.run_id)


def test_time_travel_into_the_runs_not_loaded_counts_up_to_that_checkpoint(
    qtbot: Any, tmp_path: Path
) -> None:
    """At a checkpoint of an unloaded older run, the graph's visits and cost badges, the model
    calls, the tokens and the run's and thread's cost are those the whole session shows at the
    same checkpoint: counted from the older runs' outline up to it."""
    path = tmp_path / "priced.stepwise"
    _record(path)
    with Session.open(path) as session:
        second = session.runs("t")[1].run_id
        theirs = [c for c in session.checkpoints("t") if c.run_id == second]
    assert len(theirs) >= 3
    moments = [theirs[0], theirs[len(theirs) // 2], theirs[-1]]

    def at_each(**kw: Any) -> list[Figures]:
        hub, figures = _views(qtbot)
        opened = open_session(hub, path, **kw)
        asyncio.run(opened.afeed_rest())
        seen = []
        for c in moments:
            hub.select_checkpoint(c.checkpoint_id)
            seen.append(figures())
        hub.select_checkpoint(None)
        seen.append(figures())
        opened.close()
        return seen

    whole = at_each()
    part = at_each(feed_limit=int(_per_run(path) * 2.5))
    assert part == whole
    # the moments differ: the counts grow through the run, and live counts every run
    visits = [nodes["model"][0] for _, nodes in whole]
    assert visits == sorted(visits) and visits[0] < visits[-2] < visits[-1]
    assert whole[0][0].startswith("Run - ")  # the run had not called its model yet
    assert whole[1][0].startswith("Run $")  # the run's cost up to that checkpoint


def test_time_travel_into_the_middle_of_a_cut_run_counts_up_to_that_checkpoint(
    qtbot: Any, tmp_path: Path
) -> None:
    """A run past the limit is loaded as its start and its end: at a checkpoint of its middle
    (not loaded), the graph's visits and the status bar's step are those the whole session
    shows there."""
    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    with Session.open(path) as session:
        middle = [c for c in session.checkpoints("t") if c.step in (20, 31)]
    assert len(middle) == 2

    def at_middle(**kw: Any) -> tuple[Hub, list[tuple[dict[str, int], str]]]:
        hub = Hub()
        panel = GraphPanel(hub)
        bar = RunStatusBar(hub)
        qtbot.addWidget(panel)
        qtbot.addWidget(bar)
        opened = open_session(hub, path, **kw)
        asyncio.run(opened.afeed_rest())
        seen = []
        for c in middle:
            hub.select_checkpoint(c.checkpoint_id)
            state = panel.state
            seen.append(
                ({n: state.node(n).visits for n in state.graph.nodes}, bar.fields["step"].text())
            )
        opened.close()
        return hub, seen

    _, whole = at_middle()
    hub, part = at_middle(feed_limit=total // 4)
    assert hub.older_runs is not None and hub.older_runs.cut > 0
    assert not any(hub.saved.get(c.checkpoint_id) for c in middle)  # neither is loaded
    assert part == whole
    assert whole[0][0]["step"] == 10 and whole[1][0]["step"] == 16  # supersteps 20 and 31
