"""A sync attached run does not wait for each checkpoint's save before it goes on (issue 26:
that wait was a third of what attach mode added to a plain agent), and its events keep their
order: a checkpoint shows as saved, or as not saved, before anything the run did after it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from engine.attach import attach
from engine.errors import CheckpointError
from engine.events import CheckpointSaved, EventBase, MiddlewareAction, NodeStarted
from engine.recording import Session, SessionRecorder


class State(TypedDict):
    log: list[str]


class HeldSaver(InMemorySaver):
    """Holds the save of the checkpoint after node ``a`` until node ``b`` lets it go (so ``b``
    can only run if the run did not wait for that save); ``fail``: that save then fails."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.fail = fail
        self.release = threading.Event()
        self.held: list[bool] = []
        """Per hold, whether ``b`` let it go (shared with the copy attach mode runs on)."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if metadata.get("step") == 1:
            # a guard against a run that waits for this save before ``b``: no test hangs
            self.held.append(self.release.wait(timeout=20))
            if self.fail:
                raise OSError("disk full")
        return super().put(config, checkpoint, metadata, new_versions)


def a_then_b(schema: Any, a: Any, b: Any, saver: HeldSaver) -> Any:
    """``START -> a -> b -> END`` on ``saver``."""
    g = StateGraph(schema)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def build(saver: HeldSaver) -> Any:
    def a(state: State) -> dict[str, Any]:
        return {"log": [*state["log"], "a"]}

    def b(state: State) -> dict[str, Any]:
        saver.release.set()  # runs while the save of the checkpoint after ``a`` is held
        return {"log": [*state["log"], "b"]}

    return a_then_b(State, a, b, saver)


def kinds(events: list[EventBase]) -> list[str]:
    out = []
    for ev in events:
        if isinstance(ev, NodeStarted):
            out.append(f"start {ev.node}")
        elif isinstance(ev, CheckpointSaved):
            out.append(f"saved {ev.step}")
        elif isinstance(ev, MiddlewareAction) and ev.action == "checkpoint_not_saved":
            out.append(f"not saved {ev.detail['step']}")
    return out


def test_the_run_goes_on_while_a_checkpoint_saves_and_its_events_stay_in_order() -> None:
    saver = HeldSaver()
    graph = attach(build(saver))
    assert graph.sync  # LangGraph's sync stream, on a thread of its own
    events: list[EventBase] = []
    graph.subscribe(events.append)
    out = graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    assert out == {"log": ["a", "b"]}
    assert saver.held == [True]  # ``b`` ran before the save it let go was done
    assert kinds(events) == ["saved -1", "saved 0", "start a", "saved 1", "start b", "saved 2"]
    saved = [ev for ev in events if isinstance(ev, CheckpointSaved)]
    assert [ev.seq for ev in events] == sorted(ev.seq for ev in events)
    history = build(saver).get_state_history({"configurable": {"thread_id": "t"}})
    assert [s.config["configurable"]["checkpoint_id"] for s in history][::-1] == [
        ev.checkpoint_id for ev in saved
    ]


def test_a_checkpoint_whose_save_failed_shows_as_not_saved_in_its_place(tmp_path: Path) -> None:
    saver = HeldSaver(fail=True)
    graph = attach(build(saver))
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(graph)
    events: list[EventBase] = []
    graph.subscribe(events.append)
    with pytest.raises(CheckpointError, match="failed to save 1 checkpoint"):
        graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with Session.open(tmp_path / "s.stepwise") as session:  # no copy of what was not saved
        assert [c.step for c in session.checkpoints("t")] == [-1, 0]
    assert saver.held == [True]
    shown = kinds(events)
    assert shown[:5] == ["saved -1", "saved 0", "start a", "not saved 1", "start b"]
    assert "saved 1" not in shown and "saved 2" not in shown  # later saves fail with it
    not_saved = next(ev for ev in events if isinstance(ev, MiddlewareAction))
    assert "OSError: disk full" in not_saved.detail["error"]


class Notes(TypedDict):
    notes: list[str]


def test_a_recorded_run_copies_each_checkpoint_as_it_was_and_only_if_saved(
    tmp_path: Path,
) -> None:
    """The session file's copy of a checkpoint is made as the checkpoint comes: the next node
    changing the very list in place (as LangGraph lets it) does not change the copy, written
    once the app's saver saved the checkpoint."""
    saver = HeldSaver()

    def a(state: Notes) -> dict[str, Any]:
        return {"notes": ["from a"]}

    def b(state: Notes) -> dict[str, Any]:
        state["notes"].append("changed in place by b")  # the checkpoint's own list
        saver.release.set()
        return {"notes": state["notes"]}

    graph = attach(a_then_b(Notes, a, b, saver))
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(graph)
    events: list[EventBase] = []
    graph.subscribe(events.append)
    graph.invoke({"notes": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    assert saver.held == [True]
    saved = [ev.checkpoint_id for ev in events if isinstance(ev, CheckpointSaved)]
    with Session.open(tmp_path / "s.stepwise") as session:
        listed = session.checkpoints("t")
        assert [c.checkpoint_id for c in listed] == saved
        after_a = session.state("t", listed[2].checkpoint_id)
        assert after_a["notes"] == ["from a"]
        assert session.state("t")["notes"] == ["from a", "changed in place by b"]


def test_a_tasks_writes_failing_says_nothing_of_a_checkpoint_still_saving() -> None:
    """LangGraph saves a task's writes alongside the checkpoint chain: their failure leaves a
    checkpoint whose save is under way pending (it may well be saved); a failed checkpoint
    save fails every later one (they are never tried); once the stream is over, a checkpoint
    never reported is not saved."""
    import asyncio

    from engine.attach.confirm import SaveWatch

    loop = asyncio.new_event_loop()
    watch = SaveWatch(loop)
    watch.failed(None, OSError("writes lost"))
    assert watch.outcome_now("c1") == (False, None)
    watch.saved("c1")
    assert watch.outcome_now("c1") == (True, None)
    watch.failed("c2", OSError("connection closed"))
    known, error = watch.outcome_now("c3")
    assert known and isinstance(error, OSError) and "connection closed" in str(error)
    assert watch.failed_ids == ["c3"]

    other = SaveWatch(loop)
    assert other.outcome_now("c9") == (False, None)
    other.finish()
    known, error = other.outcome_now("c9")
    assert known and error is not None
    loop.close()


class Count(TypedDict):
    n: int


def test_a_recorded_run_goes_only_a_few_session_copies_ahead_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session file's writes are held until the run's thread stops to wait for them (or the
    run is over): the run never has more than ``COPIES_AHEAD`` copies queued past the one being
    written (unbounded, a 2,000-turn recorded run kept every copy and its events in memory)."""
    import asyncio
    import sys

    import engine.attach.saved_checkpoints as saved_checkpoints
    from engine.attach.mirror import CheckpointMirror

    monkeypatch.setattr(saved_checkpoints, "COPIES_AHEAD", 2)
    counts = {"prepared": 0, "written": 0}
    gaps: list[int] = []
    prepare, write = CheckpointMirror.prepare, CheckpointMirror.write

    def counted_prepare(self: Any, **kw: Any) -> Any:
        counts["prepared"] += 1
        return prepare(self, **kw)

    def run_thread_waits() -> bool:
        """Is the run's stream thread gone, or waiting for a copy to be written?"""
        runs = [t for t in threading.enumerate() if t.name == "stepwise-attach"]
        if not runs:
            return True
        frame = sys._current_frames().get(runs[0].ident or 0)
        names = []
        while frame is not None:
            names.append(frame.f_code.co_name)
            frame = frame.f_back
        return "_saved_queued" in names and "result" in names

    async def held_write(self: Any, copy: Any) -> None:
        for _ in range(20_000):  # a guard: the run's thread stops or ends long before
            if run_thread_waits():
                break
            await asyncio.sleep(0.001)
        gaps.append(counts["prepared"] - counts["written"])
        await write(self, copy)
        counts["written"] += 1

    monkeypatch.setattr(CheckpointMirror, "prepare", counted_prepare)
    monkeypatch.setattr(CheckpointMirror, "write", held_write)

    def tick(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    g = StateGraph(Count)
    g.add_node("tick", tick)
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 12 else END, ["tick", END])
    graph = attach(g.compile(checkpointer=InMemorySaver()))
    assert graph.sync
    rec = SessionRecorder(tmp_path / "s.stepwise")
    rec.attach(graph)
    assert graph.invoke({"n": 0}, {"configurable": {"thread_id": "t"}}) == {"n": 12}
    rec.close()
    assert counts["written"] == counts["prepared"] >= 13
    assert max(gaps) <= 3, gaps  # the copy being written and two queued behind it
    with Session.open(tmp_path / "s.stepwise") as session:
        assert session.state("t") == {"n": 12}
