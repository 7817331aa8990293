"""RunController: runs as tasks on the loop, batched hub updates, debugger states, recording."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.events import EventBase
from engine.graph import StateGraph, interrupt
from engine.loader import AgentLoadError
from engine.recording import Session
from engine.types import Command
from studio.models.hub import Hub
from studio.run.controller import STAY, NeedsInput, RunController
from tests.studio import app_agents


@pytest.fixture
def controller(tmp_path: Path) -> RunController:
    hub = Hub()
    ctl = RunController(hub, session_dir=tmp_path / "sessions")
    yield ctl
    ctl.close()


def _statuses(hub: Hub) -> list[str]:
    seen: list[str] = []
    hub.subscribe("status", seen.append)
    return seen


def test_runs_seed000_to_the_end_and_records_it(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    hub = controller.hub
    statuses = _statuses(hub)
    batches: list[list[EventBase]] = []
    hub.subscribe("events", batches.append)
    controller.load_factory(app_agents.factory(), "seed000")
    assert hub.status == "idle" and hub.drawable is not None and hub.thread_id == "thread-1"
    qloop.run_until_complete(controller.start())
    assert statuses[-2:] == ["running", "done"]
    kinds = [e.kind for e in hub.events]
    assert kinds[0] == "run.started" and kinds[-1] == "run.finished"
    failed = [e for e in hub.events if e.kind == "attempt.finished" and e.outcome == "error"]  # type: ignore[attr-defined]
    assert {e.middleware for e in failed} == {"ModelRetryMiddleware", "ToolRetryMiddleware"}  # type: ignore[attr-defined]
    assert len(batches) < len(hub.events) / 5, "events must reach the hub in batches"
    snap = hub.snapshot()
    assert snap is not None and len(snap.values["messages"]) == app_agents.EXPECTED_MESSAGES
    assert controller.session_path is not None
    controller.recorder.flush()
    with Session.open(controller.session_path) as session:
        assert session.count() == len(hub.events)
        assert [r.status for r in session.runs()] == ["done"]


def test_breakpoint_step_over_and_stop(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    hub = controller.hub
    controller.load_factory(app_agents.factory(), "seed000")
    controller.debugger.break_before("tools")
    task = controller.start()
    qloop.run_until_complete(_until(lambda: hub.status == "paused"))
    assert controller.debugger.current_event.node == "tools"  # type: ignore[union-attr]
    assert hub.events[-1].kind == "debug.paused", "the views see everything up to the pause"
    controller.step("step_over")
    qloop.run_until_complete(
        _until(lambda: hub.status == "paused" and controller.debugger.current_event.node == "model")
    )  # type: ignore[union-attr]
    controller.stop()
    qloop.run_until_complete(task)
    assert hub.status == "cancelled"
    assert not controller.busy and not controller.debugger.paused


def test_restart_loads_afresh_on_a_new_thread(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    hub = controller.hub
    controller.load_factory(app_agents.factory(), "seed000")
    qloop.run_until_complete(controller.start())
    first = controller.session_path
    qloop.run_until_complete(
        controller.run_or_continue()
    )  # F5 after the end: run again from scratch
    assert hub.status == "done" and hub.thread_id == "thread-2"
    assert controller.session_path != first
    assert len(hub.snapshot().values["messages"]) == app_agents.EXPECTED_MESSAGES  # type: ignore[union-attr]


def test_fault_injection_makes_the_model_retry(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    hub = controller.hub
    script = ["Hello!"]
    controller.load_factory(app_agents.factory(script_items=script), "hello")
    controller.inject_model_timeout()
    qloop.run_until_complete(controller.start())
    attempts = [e for e in hub.events if e.kind == "attempt.finished"]
    assert [a.outcome for a in attempts] == ["error", "ok"]  # type: ignore[attr-defined]
    assert attempts[0].error.type == "TimeoutError"  # type: ignore[attr-defined]
    assert hub.status == "done"


def test_run_error_keeps_state_and_says_why(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    controller.load_factory(app_agents.factory(script_items=[]), "empty script")
    qloop.run_until_complete(controller.start())
    assert controller.hub.status == "error"
    assert controller.last_error and "ScriptExhaustedError" in controller.last_error
    assert controller.hub.snapshot() is not None


def test_messages_and_threads(qloop: asyncio.AbstractEventLoop, controller: RunController) -> None:
    hub = controller.hub
    controller.load_factory(app_agents.factory(script_items=["one", "two"]), "chat")
    controller.default_input = None
    with pytest.raises(NeedsInput):
        controller.start()
    qloop.run_until_complete(controller.send_message("hi"))
    qloop.run_until_complete(controller.send_message("again"))
    assert [m.text for m in hub.snapshot().values["messages"]] == ["hi", "one", "again", "two"]  # type: ignore[union-attr]
    tid = controller.new_thread()
    controller.switch_thread(tid)
    assert hub.thread_id == tid and hub.status == "idle" and hub.snapshot().values == {}  # type: ignore[union-attr]


def _interrupting_graph() -> Any:
    from typing import TypedDict

    class S(TypedDict, total=False):
        answer: str

    def ask(state: S) -> dict[str, Any]:
        return {"answer": interrupt({"question": "ok?"})}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.set_entry_point("ask")
    g.set_finish_point("ask")
    return g.compile()


def test_interrupt_handler_resumes_or_stays(
    qloop: asyncio.AbstractEventLoop, controller: RunController
) -> None:
    hub = controller.hub
    answers: list[Any] = [STAY, Command(resume="yes")]
    seen: list[Any] = []

    async def handler(interrupts: list[Any]) -> Any:
        seen.append([i.value for i in interrupts])
        return answers.pop(0)

    controller.interrupt_handler = handler
    controller.load_factory(lambda: (_interrupting_graph(), {}), "ask")
    qloop.run_until_complete(controller.start())
    assert hub.status == "interrupted" and seen == [[{"question": "ok?"}]]
    qloop.run_until_complete(controller.run_or_continue())  # answer it later
    assert hub.status == "done"
    assert hub.snapshot().values["answer"] == "yes"  # type: ignore[union-attr]


def test_broken_file_raises_one_line(tmp_path: Path, controller: RunController) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text("x = 1\nraise ValueError('boom')\n")
    with pytest.raises(AgentLoadError) as info:
        controller.load(f"{bad}:agent")
    assert "ValueError: boom" in str(info.value) and "\n" not in str(info.value)


def test_save_session_as_copies_a_readable_file(
    qloop: asyncio.AbstractEventLoop, controller: RunController, tmp_path: Path
) -> None:
    controller.load_factory(app_agents.factory(), "seed000")
    qloop.run_until_complete(controller.start())
    dest = tmp_path / "saved.stepwise"
    controller.save_session_as(dest)
    with Session.open(dest) as session:
        assert session.count() == len(controller.hub.events)
        assert session.threads() == ["thread-1"]


async def _until(predicate: Any, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), timeout)
