"""On a LangGraph server, a subgraph's ``interrupt()`` is told once, as on the engine and
attached (``tests.engine.targets.test_subgraph_interrupt_once``): the server reports it with
the subgraph's task and again with the parent's task that ran the subgraph."""

from __future__ import annotations

from typing import Any

import pytest

from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.types import Command
from tests.engine.remote.helpers import drive, new_thread, open_target, run_events
from tests.engine.targets.test_subgraph_interrupt_once import check_told_once

pytestmark = pytest.mark.timeout(120)


async def test_a_subgraph_interrupt_is_told_once_and_answered(langgraph_server) -> None:
    target = await open_target(langgraph_server, "reviewed")
    thread = new_thread()
    try:
        events, outcome = await run_events(target, {"steps": []}, thread)
        intr = check_told_once(events, "review", "legal")
        assert outcome.status == "interrupted"
        assert [(i.interrupt_id, i.node) for i in outcome.interrupts] == [
            (intr.interrupt_id, "review")
        ]
        asked: list[list[InterruptRaised]] = []

        async def answer(interrupts: list[InterruptRaised]) -> Any:
            asked.append(interrupts)
            return Command(resume="ok")

        resumed: list[EventBase] = []
        thread2 = new_thread()
        done = await drive(target, {"steps": []}, thread2, Debugger(), resumed.append, answer)
        assert done.status == "done"
        assert [[i.node for i in a] for a in asked] == [["review"]]
        snap = await target.state(thread2)
        assert snap is not None and snap.values["steps"] == ["legal: ok"]
    finally:
        await target.aclose()
