"""The docks read checkpoints off the UI thread, once per checkpoint and moment.

A target whose ``state`` answers only when the test says so (as a slow server would): picking
a checkpoint never waits for it (the window keeps handling events), a slower answer for an
older pick is dropped, the docks a batch of events wakes up share one read of the tip, and a
checkpoint the run has moved on from is read once however often it is picked again."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from PySide6.QtCore import QTimer

from engine.events import CheckpointSaved
from engine.targets import Capabilities
from engine.types import StateSnapshot
from studio.docks.diff.view import DiffView
from studio.docks.messages.view import MessagesDock
from studio.docks.state.view import StateDock
from studio.models.hub import Hub
from tests.studio.tt_studio import until


def _snap(cid: str, parent: str | None) -> StateSnapshot:
    return StateSnapshot(
        {"where": cid, "messages": [{"type": "human", "content": f"at {cid}"}]},
        (),
        {"configurable": {"thread_id": "t", "checkpoint_id": cid}},
        {"step": int(cid[1:]), "source": "loop"},
        None,
        {"configurable": {"thread_id": "t", "checkpoint_id": parent}} if parent else None,
        (),
    )


class SlowTarget:
    """A server-like target: ``state`` waits until ``answer(cid)``; the tip is ``tip``."""

    kind = "remote"
    capabilities = Capabilities.all_but(pause_in_node="stops only between nodes")

    def __init__(self) -> None:
        self.tip = "c5"
        self.parents = {"c1": None, "c2": "c1", "c3": "c2", "c4": "c3", "c5": "c4"}
        self.gates: dict[str, asyncio.Event] = {}
        self.asked: list[str | None] = []
        self.threads: set[str] = set()

    def answer(self, cid: str) -> None:
        self.gates.setdefault(cid, asyncio.Event()).set()

    async def state(
        self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = ""
    ) -> StateSnapshot:
        self.asked.append(checkpoint_id)
        self.threads.add(threading.current_thread().name)
        cid = checkpoint_id or self.tip
        await self.gates.setdefault(cid, asyncio.Event()).wait()
        return _snap(cid, self.parents[cid])

    def state_keys(self) -> list[str]:
        return ["where", "messages"]


def _docks(qtbot: Any, qloop: Any) -> tuple[Hub, SlowTarget, StateDock, DiffView, MessagesDock]:
    """The docks on a hub debugging a ``SlowTarget``, made on the loop (as in the app)."""

    async def build() -> tuple[Hub, SlowTarget, StateDock, DiffView, MessagesDock]:
        hub = Hub()
        target = SlowTarget()
        hub.set_thread("t")
        docks = (StateDock(hub), DiffView(hub), MessagesDock(hub))
        for dock in docks:
            qtbot.addWidget(dock)
        hub.set_graph(None, None, "slow", target)  # type: ignore[arg-type]
        return hub, target, *docks

    return qloop.run_until_complete(build())


def _saved(cid: str, parent: str | None) -> CheckpointSaved:
    return CheckpointSaved(
        run_id="r", thread_id="t", checkpoint_id=cid, parent_id=parent, step=int(cid[1:])
    )


def test_a_slow_read_never_blocks_the_window_and_a_newer_pick_wins(qtbot: Any, qloop: Any) -> None:
    hub, target, state, diff, messages = _docks(qtbot, qloop)
    target.answer("c5")
    target.answer("c4")  # the Diff dock's base: the tip's parent
    until(qloop, lambda: hub.snapshots.idle)
    assert state.snapshot is not None and state.snapshot.values["where"] == "c5"
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(1)

    async def pick(cid: str) -> None:
        hub.select_checkpoint(cid)  # on the loop, as a click in the app is

    qloop.run_until_complete(pick("c1"))
    qloop.run_until_complete(pick("c2"))
    # neither answer came: the window went on handling events meanwhile
    until(qloop, lambda: len(ticks) >= 5)
    assert state.snapshot.values["where"] == "c5"  # still what was shown
    assert "c1" in target.asked and "c2" in target.asked
    assert threading.current_thread().name in target.threads  # on the loop, not a blocking hop
    target.answer("c2")
    target.answer("c1")  # the older pick answers last: dropped
    until(qloop, lambda: hub.snapshots.idle)
    timer.stop()
    assert state.snapshot.values["where"] == "c2" and state.checkpoint_id == "c2"
    assert state.title.text().startswith("Step 2")
    assert diff.target_id == "c2" and diff.base_id == "c1" and diff.diff is not None
    assert [e.text for e in messages.entries] == ["at c2"]


def test_docks_share_one_read_of_the_tip_and_keep_final_checkpoints(qtbot: Any, qloop: Any) -> None:
    hub, target, state, diff, _messages = _docks(qtbot, qloop)
    for cid in target.parents:
        target.answer(cid)
    until(qloop, lambda: hub.snapshots.idle)

    async def batch() -> None:
        hub.add_events([_saved("c4", "c3"), _saved("c5", "c4")])

    target.asked.clear()
    qloop.run_until_complete(batch())
    until(qloop, lambda: hub.snapshots.idle)
    # State and Diff both follow the tip: one read of it, and Diff's parent read once
    assert target.asked.count(None) == 1, target.asked
    assert diff.target_id == "c5" and diff.base_id == "c4"
    # c4 has a child now: final, kept (the Diff dock read it); picking it again reads nothing
    target.asked.clear()

    async def pick(cid: str | None) -> None:
        hub.select_checkpoint(cid)

    for cid in ("c4", None, "c4"):
        qloop.run_until_complete(pick(cid))
        until(qloop, lambda: hub.snapshots.idle)
    assert "c4" not in target.asked, target.asked
    assert state.snapshot is not None and state.snapshot.values["where"] == "c4"
    # the tip is not final: a new batch of events reads it again
    qloop.run_until_complete(pick(None))
    until(qloop, lambda: hub.snapshots.idle)
    target.asked.clear()
    qloop.run_until_complete(batch())
    until(qloop, lambda: hub.snapshots.idle)
    assert None in target.asked
