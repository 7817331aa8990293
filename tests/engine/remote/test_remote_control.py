"""Breakpoints, stepping, interrupts, forks, stop and join on a real ``langgraph dev`` server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.debug import Debugger
from engine.events import EventBase
from engine.messages import HumanMessage
from engine.targets import STAY
from engine.types import Command
from tests.engine.remote.helpers import (
    another_client,
    drive,
    kinds,
    new_thread,
    open_target,
    run_events,
)

pytestmark = pytest.mark.timeout(120)
HI = {"messages": [HumanMessage(content="hi")]}


class Pauses:
    """An event handler that answers each pause with the next command, noting where it was
    and what the server said of the thread at that moment."""

    def __init__(self, target: Any, dbg: Debugger, thread: str, commands: list[str]) -> None:
        self.target, self.dbg, self.thread = target, dbg, thread
        self.commands = list(commands)
        self.at: list[str] = []
        self.server_next: list[tuple[str, ...]] = []
        self.events: list[EventBase] = []

    async def __call__(self, ev: EventBase) -> None:
        self.events.append(ev)
        if ev.kind != "debug.paused":
            return
        cur = self.dbg.current_event
        assert cur is not None
        self.at.append(f"{cur.kind} {cur.__dict__.get('node')}")
        snap = await self.target.state(self.thread)
        self.server_next.append(tuple(snap.next) if snap else ())
        getattr(self.dbg, self.commands.pop(0) if self.commands else "continue_")()


async def test_breakpoint_before_a_node_is_a_real_pause(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    dbg = Debugger()
    dbg.break_before("think")
    pauses = Pauses(target, dbg, thread, ["continue_"])
    try:
        outcome = await drive(target, HI, thread, dbg, pauses)
    finally:
        await target.aclose()
    assert pauses.at == ["node.started think"]
    assert pauses.server_next == [("think",)]  # the server itself waits before think
    assert outcome.status == "interrupted"  # then the review's interrupt()
    assert [e.__dict__["node"] for e in kinds(pauses.events, "node.started", ns="")] == [
        "plan", "work", "think", "review",
    ]  # fmt: skip
    assert len(kinds(pauses.events, "run.started")) == 1  # one run for us, two on the server


async def test_a_breakpoint_in_a_subgraph_is_no_stop_of_the_root_graph(langgraph_server) -> None:
    """A breakpoint set inside a subgraph (``graph=``) names a node of that subgraph: the
    server run gets no ``interrupt_before`` for the root's node of the same name."""
    target = await open_target(langgraph_server)
    thread = new_thread()
    dbg = Debugger()
    dbg.break_before("think", graph=("inner",))
    pauses = Pauses(target, dbg, thread, [])
    try:
        outcome = await drive(target, HI, thread, dbg, pauses)
        runs = await another_client(langgraph_server).runs.list(thread)
    finally:
        await target.aclose()
    assert pauses.at == []
    assert outcome.status == "interrupted"  # the review's interrupt() only
    assert len(runs) == 1  # the server never stopped before think


async def test_breakpoint_after_a_node_and_step_over(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    dbg = Debugger()
    dbg.break_after("plan")
    pauses = Pauses(target, dbg, thread, ["step_over", "step_over", "continue_"])
    try:
        await drive(target, HI, thread, dbg, pauses)
    finally:
        await target.aclose()
    assert pauses.at == ["node.finished plan", "node.started work", "node.started think"]
    assert pauses.server_next == [("work",), ("work",), ("think",)]


async def test_breakpoints_changed_during_a_run_apply_from_the_next_stop(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    dbg = Debugger()
    dbg.break_before("work")

    async def on_event(ev: EventBase) -> None:
        if ev.kind == "debug.paused":
            dbg.clear()
            dbg.break_before("think")
            dbg.continue_()

    pauses: list[str] = []
    dbg.on_pause.append(lambda d: pauses.append(str(d.current_event.__dict__.get("node"))))
    try:
        await drive(target, HI, thread, dbg, on_event)
    finally:
        await target.aclose()
    assert pauses == ["work", "think"]


async def test_an_interrupt_is_answered_with_command_resume(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    events: list[EventBase] = []

    async def answer(interrupts: list[Any]) -> Any:
        assert interrupts[0].__dict__["value"] == {"question": "approve the plan?"}
        return Command(resume="yes")

    try:
        outcome = await drive(target, HI, thread, Debugger(), events.append, answer)
        snap = await target.state(thread)
    finally:
        await target.aclose()
    assert outcome.status == "done"
    assert snap is not None and snap.values["approved"] == "yes"
    assert snap.values["messages"][0].text == "hi"  # our message objects
    resumed = kinds(events, "interrupt.resumed")
    assert resumed and resumed[0].__dict__["value"] == "yes"
    (raised,) = [e for e in kinds(events, "interrupt.raised") if not e.ns]
    assert resumed[0].__dict__["node"] == "review"  # the interrupt it answers, as the engine says
    assert resumed[0].__dict__["interrupt_id"] == raised.__dict__["interrupt_id"]


async def test_stop_cancels_the_server_run(langgraph_server) -> None:
    target = await open_target(langgraph_server, "slow")
    thread = new_thread()
    dbg = Debugger()

    def on_event(ev: EventBase) -> None:
        if ev.kind == "custom" and ev.__dict__["data"].get("tick") == 2:
            dbg.stop()

    try:
        outcome = await drive(target, {}, thread, dbg, on_event)
        client = another_client(langgraph_server)
        runs = await client.runs.list(thread)
    finally:
        await target.aclose()
    assert outcome.status == "cancelled"
    assert [r["status"] for r in runs] == ["interrupted"]  # what the server calls cancelled


async def test_fork_from_a_past_checkpoint_takes_the_other_branch(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    try:
        _, first = await run_events(target, HI, thread)
        assert first.status == "interrupted"
        history = await target.history(thread)
        before_think = next(s for s in history if s.next == ("think",))
        cid = before_think.config["configurable"]["checkpoint_id"]
        fork = await target.update_state(
            thread, {"mode": "quick"}, as_node="work", checkpoint_id=cid
        )
        events, outcome = await run_events(target, None, thread, checkpoint_id=fork)
        after = await target.history(thread)
    finally:
        await target.aclose()
    assert outcome.status == "done"
    assert [e.__dict__["node"] for e in kinds(events, "node.started")] == ["think"]
    assert len(after) > len(history)
    parents = {s.config["configurable"]["checkpoint_id"]: s.parent_config for s in after}
    assert parents[fork]["configurable"]["checkpoint_id"] == cid  # the branch point


async def test_join_a_run_another_client_started(langgraph_server) -> None:
    target = await open_target(langgraph_server, "slow")
    client = another_client(langgraph_server)
    thread = (await client.threads.create())["thread_id"]
    try:
        await client.runs.create(
            thread, "slow", input={"ticks": 20},
            stream_mode=["debug", "events", "custom"], stream_resumable=True,
        )  # fmt: skip
        events: list[EventBase] = []
        handle = target.join(thread)
        async for ev in handle:
            events.append(ev)
    finally:
        await target.aclose()
    assert handle.outcome is not None and handle.outcome.status == "done"
    assert [e.__dict__["node"] for e in kinds(events, "node.started")] == ["plan", "tick"]
    assert [e.__dict__["data"]["tick"] for e in kinds(events, "custom", node="tick")] == list(
        range(20)
    )


async def test_an_interrupt_left_waiting_is_answered_later(langgraph_server) -> None:
    target = await open_target(langgraph_server)
    thread = new_thread()
    try:
        first = await drive(target, HI, thread, Debugger(), lambda ev: None, _stay)
        assert first.status == "interrupted"
        _, second = await run_events(target, Command(resume="later"), thread)
        snap = await target.state(thread)
    finally:
        await target.aclose()
    assert second.status == "done" and snap is not None and snap.values["approved"] == "later"


async def _stay(interrupts: list[Any]) -> Any:
    await asyncio.sleep(0)
    return STAY


async def test_history_and_the_timeline_listing_read_in_pages(
    langgraph_server, monkeypatch
) -> None:
    from engine.remote import target as target_module

    monkeypatch.setattr(target_module, "HISTORY_PAGE", 4)
    target = await open_target(langgraph_server, "counter")
    thread = new_thread()
    try:
        _, outcome = await run_events(target, {"ticks": 6}, thread)
        history = await target.history(thread)
        records = await target.checkpoints(thread)
        newest_two = await target.history(thread, limit=2)
    finally:
        await target.aclose()
    assert outcome.status == "done"
    assert len(history) == 8  # input, start, 6 loop steps
    ids = [s.config["configurable"]["checkpoint_id"] for s in history]
    assert len(set(ids)) == 8
    assert [r.checkpoint_id for r in records] == list(reversed(ids))  # oldest first
    assert records[-1].next == () and records[2].writers == ("count",)
    assert [s.config["configurable"]["checkpoint_id"] for s in newest_two] == ids[:2]


async def test_the_apps_configurable_keys_reach_the_server_run(langgraph_server) -> None:
    target = await open_target(langgraph_server, "configured")
    thread = new_thread()
    try:
        _events, outcome = await run_events(target, {}, thread, configurable={"user_id": "ada"})
        snap = await target.state(thread)
    finally:
        await target.aclose()
    assert outcome.status == "done", outcome.error
    assert snap is not None and snap.values == {"greeting": "hello ada"}
