"""Opening a recorded session offline: the hub sees the same checkpoints, states and events."""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine.messages import AIMessage, HumanMessage, add_messages
from engine.recording import SessionRecorder
from studio.history.replay import open_session, open_session_into, recorded_model_events
from studio.models.hub import Hub
from studio.models.timeline import TimelineModel, iter_tree
from tests.studio.tt_agents import build_seed, seed_input


def _record(path: Path) -> tuple[Any, TimelineModel]:
    """Record the seed run; ``seed.states`` keeps every checkpoint's live snapshot."""
    rec = SessionRecorder(path)
    seed = build_seed(checkpointer=rec.checkpointer)
    rec.attach(seed.agent)
    live = TimelineModel("seed")
    seed.agent.subscribe(lambda ev: live.apply_events([ev]))
    seed.agent.invoke(seed_input(), seed.config())
    seed.states = {cid: seed.agent.get_state(seed.config(checkpoint_id=cid)) for cid in live.by_id}  # type: ignore[attr-defined]
    rec.close()
    return seed, live


def _tree(m: TimelineModel) -> list[tuple[int, str]]:
    return [(d, getattr(i, "checkpoint_id", None) or f"<{i.name}>") for d, i in iter_tree(m)]  # type: ignore[union-attr]


def test_session_opens_with_the_live_checkpoints_and_states(tmp_path: Path) -> None:
    seed, live = _record(tmp_path / "seed.stepwise")
    hub = Hub()
    seen: list[str] = []
    hub.subscribe("status", seen.append)
    opened = open_session(hub, tmp_path / "seed.stepwise", first_page=50, page_size=20)
    assert hub.thread_id == "seed" and hub.status == "replay" and seen == ["replay"]
    assert hub.drawable is not None and "model" in hub.drawable.nodes
    assert hub.session_path == str(tmp_path / "seed.stepwise")
    # the timeline built from the file is the live one, with writers and next
    offline = TimelineModel("seed")
    offline.load(asyncio.run(hub.target.checkpoints(hub.thread_id)))
    assert _tree(offline) == _tree(live)
    for cid, node in live.by_id.items():
        other = offline.get(cid)
        assert other is not None
        assert (other.step, other.source, other.writers, other.next) == (
            node.step,
            node.source,
            node.writers,
            node.next,
        )
        # and every state reads back the same through the hub
        offline_values = hub.snapshot(cid).values
        live_values = seed.states[cid].values
        # (a channel never written, e.g. messages at the input checkpoint, is empty live and
        # absent from the file)
        assert set(offline_values) == {k for k, v in live_values.items() if v not in ([], None)}
        for key, value in offline_values.items():
            assert (
                list(value) == list(live_values[key])
                if isinstance(value, list)
                else value == live_values[key]
            )
        assert hub.snapshot(cid).next == node.next
    # events: a first page at once, the rest on demand, all of them in order
    assert opened.fed == 60 and len(hub.events) == 60
    asyncio.run(opened.afeed_rest(chunk=40))
    assert opened.complete and opened.fed == opened.total_events == len(seed.events)
    assert [e.kind for e in hub.events] == [e.kind for e in seed.events]
    opened.close()


def test_feed_limit_bounds_what_is_loaded(tmp_path: Path) -> None:
    _record(tmp_path / "seed.stepwise")
    hub = Hub()
    opened = open_session(
        hub, tmp_path / "seed.stepwise", first_page=10, page_size=10, feed_limit=35
    )
    asyncio.run(opened.afeed_rest())
    assert opened.fed == len(hub.events) <= 35 and opened.complete
    # one run past the limit: its start and its end are loaded, and the events in between
    # that stay in the file are counted, every one
    assert hub.events[0].kind == "run.started" and hub.events[-1].kind == "run.finished"
    assert hub.older_runs is not None
    assert hub.older_runs.cut + opened.fed == opened.total_events == 165
    opened.close()


def test_open_session_into_feeds_in_the_background(tmp_path: Path) -> None:
    seed, _ = _record(tmp_path / "seed.stepwise")
    hub = Hub()

    async def main() -> Any:
        opened = open_session_into(hub, tmp_path / "seed.stepwise", first_page=10, page_size=10)
        assert opened.task is not None and not opened.done()
        await opened.task
        return opened

    opened = asyncio.run(main())
    assert opened.done() and len(hub.events) == len(seed.events)
    opened.close()


def test_rerun_a_recorded_session_with_a_changed_prompt(tmp_path: Path) -> None:
    path = tmp_path / "seed.stepwise"
    _record(path)
    hub = Hub()
    opened = open_session(hub, path)
    timeline = TimelineModel("seed")
    timeline.load(asyncio.run(hub.target.checkpoints(hub.thread_id)))
    hub.subscribe("events", timeline.apply_events)
    after_todos = next(n for n in timeline.main.nodes if n.writers == ("tools",))  # type: ignore[union-attr]

    def factory(model: Any, checkpointer: Any) -> Any:
        return build_seed(model, checkpointer=checkpointer, system_prompt="A changed prompt").agent

    changed: list[bool] = []
    hub.subscribe("checkpoints", lambda: changed.append(True))
    result = asyncio.run(opened.arerun(timeline, after_todos.checkpoint_id, factory))
    assert result.status == "diverged" and result.plan.diverged_at_call == 2
    assert changed == [True]
    # the new branch went into the file, next to the old one, with the divergence marked
    reopened = TimelineModel("seed")
    reopened.load(asyncio.run(opened.target.checkpoints(opened.thread_id)))
    assert len(reopened.branches) == 2 and len(reopened.main.nodes) == 13  # type: ignore[union-attr]
    marked = [n for n in timeline.by_id.values() if n.marker("divergence")]
    assert [n.checkpoint_id for n in marked] == [result.tip_id]

    # and the same re-run with the recorded prompt replays to the end
    def same(model: Any, checkpointer: Any) -> Any:
        return build_seed(model, checkpointer=checkpointer).agent

    result = asyncio.run(opened.arerun(timeline, after_todos.checkpoint_id, same))
    assert result.status == "done" and result.plan.model.served == 3
    opened.close()


def test_recorded_model_events_cover_every_run_of_the_thread(tmp_path: Path) -> None:
    seed, _ = _record(tmp_path / "seed.stepwise")
    events = recorded_model_events(tmp_path / "seed.stepwise", "seed")
    expected = [
        (e.run_id, e.seq) for e in seed.events if e.kind in ("model.request", "model.response")
    ]
    assert [(e.run_id, e.seq) for e in events] == expected and len(
        expected
    ) == 10  # 5 calls, 1 failed
    assert recorded_model_events(tmp_path / "seed.stepwise", "other") == []


def test_a_recorded_sessions_checkpoints_are_warmed_for_quick_selection(
    qtbot: Any, tmp_path: Path
) -> None:
    from studio.docks.timeline.view import TimelineDock

    _record(tmp_path / "seed.stepwise")
    hub = Hub()
    timeline = TimelineDock(hub)
    qtbot.addWidget(timeline)
    timeline.warmup_enabled = False  # warmed below, where the test can wait for it
    opened = open_session(hub, tmp_path / "seed.stepwise")
    try:
        timeline.reload()
        saver = hub.target.checkpointer  # type: ignore[union-attr]
        assert hub.checkpointer is saver  # the session's saver: the one every read goes through
        warming = timeline.warm_up()
        assert warming is not None  # was None: the hub had no saver for a recorded session
        warming.join()
        decoded: list[str] = []
        decode = saver._decode_chain
        saver._decode_chain = lambda *a: decoded.append(a[2]) or decode(*a)  # type: ignore[method-assign]
        for node in timeline.timeline.ordered():
            assert asyncio.run(hub.read_state(node.checkpoint_id)) is not None
        assert "messages" not in decoded  # every message history came from the warmed cache
    finally:
        opened.close()


def test_the_end_of_the_warm_up_freezes_the_checkpoints_it_loaded(
    qtbot: Any, tmp_path: Path
) -> None:
    """The Timeline's warm-up leaves a thread's checkpoints and their cached states in memory
    until the next reset; when it ends the hub says so ("warmed", on the window's thread) and
    the app's GC policy freezes them: a full collection scanning a 10,000-checkpoint thread's
    objects stalled a selection by 100-600 ms."""
    import gc
    import threading

    from studio.app.gc_policy import GcPolicy
    from studio.docks.timeline.view import TimelineDock

    _record(tmp_path / "seed.stepwise")
    hub = Hub()
    heard: list[str] = []
    hub.subscribe("warmed", lambda: heard.append(threading.current_thread().name))
    timeline = TimelineDock(hub)
    qtbot.addWidget(timeline)
    timeline.warmup_enabled = False  # warmed below
    opened = open_session(hub, tmp_path / "seed.stepwise")
    gc.unfreeze()
    try:
        policy = GcPolicy(hub)
        frozen = policy.freezes
        timeline.reload()
        warming = timeline.warm_up()
        assert warming is not None
        warming.join()
        qtbot.waitUntil(lambda: bool(heard))
        assert heard == [threading.main_thread().name]  # delivered on the window's thread
        assert policy.freezes == frozen + 1 and gc.get_freeze_count() > 0
        hub.set_thread("another")  # the Timeline drops this thread's checkpoints
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        opened.close()


class _Log(TypedDict):
    log: Annotated[list[str], operator.add]


class _Chat(TypedDict):
    messages: Annotated[list[Any], add_messages]


def _record_runs(path: Path, runs: int) -> list[str]:
    """``runs`` runs of a two-node graph on one thread; their run ids, oldest first."""
    from engine import END, START, StateGraph
    from engine.recording import Session

    rec = SessionRecorder(path)
    graph = (
        StateGraph(_Log)
        .add_node("a", lambda _s: {"log": ["a"]})
        .add_node("b", lambda _s: {"log": ["b"]})
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", END)
        .compile(checkpointer=rec.checkpointer)
    )
    rec.attach(graph)
    for _ in range(runs):
        graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with Session.open(path) as session:
        return [r.run_id for r in session.runs("t")]


def test_a_session_past_the_limit_loads_its_newest_whole_runs(qapp: Any, tmp_path: Path) -> None:
    from studio.docks.events.view import EventLogDock

    path = tmp_path / "five.stepwise"
    run_ids = _record_runs(path, 5)
    hub = Hub()
    dock = EventLogDock(hub)
    per_run = open_session(hub, path).total_events // 5
    opened = open_session(hub, path, first_page=7, page_size=7, feed_limit=int(per_run * 2.5))
    asyncio.run(opened.afeed_rest())
    assert [e.run_id for e in hub.events if e.kind == "run.started"] == run_ids[3:]
    assert len(hub.events) == 2 * per_run  # whole runs: no run cut short
    assert hub.older_runs is not None
    assert (hub.older_runs.runs, hub.older_runs.events) == (3, 3 * per_run)
    dock._update_status()
    assert f"the oldest 3 runs ({3 * per_run:,} events) not loaded" in dock.status.text()
    # a session within the limit loads every run and says nothing of older ones
    complete = open_session(hub, path)
    asyncio.run(complete.afeed_rest())
    assert hub.older_runs is None and len(hub.events) == 5 * per_run
    dock._update_status()
    assert "not loaded" not in dock.status.text()
    for o in (opened, complete):
        o.close()
    dock.detach()


def test_the_transcript_of_a_session_opened_on_its_newest_runs_is_whole(
    qapp: Any, tmp_path: Path
) -> None:
    """The Messages dock starts with what the runs not loaded said (the state the first
    loaded run started from), then the loaded runs' own messages."""
    from engine import END, START, StateGraph
    from studio.docks.messages.view import MessagesDock

    path = tmp_path / "chat.stepwise"
    rec = SessionRecorder(path)
    graph = (
        StateGraph(_Chat)
        .add_node("reply", lambda s: {"messages": [AIMessage(f"reply {len(s['messages'])}")]})
        .add_edge(START, "reply")
        .add_edge("reply", END)
        .compile(checkpointer=rec.checkpointer)
    )
    rec.attach(graph)
    for i in range(5):
        graph.invoke({"messages": [HumanMessage(f"ask {i}")]}, {"configurable": {"thread_id": "t"}})
    rec.close()
    hub = Hub()
    dock = MessagesDock(hub)
    per_run = open_session(hub, path).total_events // 5
    opened = open_session(hub, path, feed_limit=2 * per_run)
    asyncio.run(opened.afeed_rest())
    assert hub.older_runs is not None and hub.older_runs.runs == 3
    texts = [e.text for e in dock.live_entries]
    assert texts == [t for i in range(5) for t in (f"ask {i}", f"reply {2 * i + 1}")]
    opened.close()
    dock.detach()
