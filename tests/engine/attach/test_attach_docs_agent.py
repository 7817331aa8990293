"""A docs-style ``create_agent`` attached: ordinary sync ``@tool`` functions run on worker threads
and report through the run's loop, and nothing Stepwise itself does (a stop, a failure of ours)
is ever written into the app's thread: plain LangGraph reads back what a run without Stepwise
leaves."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from engine.attach import attach
from engine.debug import Debugger
from engine.events import EventBase
from engine.targets import STAY, AttachTarget, RunDriver, RunOutcome, RunRequest
from engine.types import Command
from tests.fixtures.docs_apps import APPROVE, AppFile, agent_app
from tests.fixtures.plain_langgraph import plain_module, plain_run, reader, thread_digest


class _NoLoopsOffTheMainThread(asyncio.DefaultEventLoopPolicy):
    """What qasync's policy amounts to on a worker thread: no event loop can run there (its loops
    are the Qt application's, which only runs on the main thread)."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("QApplication::exec: Must be called from the main thread")
        return super().new_event_loop()


@pytest.fixture
def qt_like_policy() -> Iterator[None]:
    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(_NoLoopsOffTheMainThread())
    try:
        yield
    finally:
        asyncio.set_event_loop_policy(old)


def drive(
    graph: Any, thread: str, answers: list[Any], debugger: Debugger | None = None
) -> tuple[RunOutcome, list[EventBase]]:
    """Run ``graph`` (attached) from its ``INPUT`` on ``thread`` through the target protocol,
    answering each interrupt with the next of ``answers``."""
    events: list[EventBase] = []
    todo = iter(answers)

    async def answer(_interrupts: Any) -> Any:
        value = next(todo, STAY)
        return value if value is STAY else Command(resume=value)

    async def go() -> RunOutcome:
        driver = RunDriver(AttachTarget(graph), debugger or Debugger())
        return await driver.drive(RunRequest(graph.module_input, thread), events.append, answer)

    return asyncio.run(go()), events


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_sync_tools_run_on_worker_threads_and_report_through_the_runs_loop(
    tmp_path: Path, qt_like_policy: None, sync: bool
) -> None:
    app = agent_app(tmp_path, "sync", "memory")
    module = plain_module(app)
    graph = attach(module.graph, sync=sync)
    graph.module_input = module.INPUT
    # astream: the sync tools go to worker threads; stream: the whole run goes to one
    assert graph.sync is sync
    assert attach(module.graph).sync  # nothing in this app needs the async API
    outcome, events = drive(graph, "t", [APPROVE])
    assert outcome.status == "done", outcome.error
    tools = [e.__dict__["tool"] for e in events if e.kind == "tool.finished"]
    assert tools == ["get_weather", "send_email"]
    assert thread_digest(graph.real, "t") == plain_run(app, "t", [app_input(app), resume()])


def app_input(app: AppFile) -> Any:
    return plain_module(app).INPUT


def resume() -> Command:
    from langgraph.types import Command as LGCommand

    return LGCommand(resume=APPROVE)  # type: ignore[return-value]


SYNC_OR_NOT = pytest.mark.parametrize(
    ("sync", "saver"), [(False, "memory"), (True, "sqlite")], ids=["astream", "stream"]
)


@SYNC_OR_NOT
def test_a_failure_of_stepwise_aborts_the_run_and_is_never_written_into_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sync: bool, saver: Any
) -> None:
    from engine.attach.calls import CallEvents

    app = agent_app(tmp_path, "sync", saver)
    module = plain_module(app)
    graph = attach(module.graph, sync=sync)
    graph.module_input = module.INPUT
    first, _ = drive(graph, "t", [])
    assert first.status == "interrupted"  # send_email waits for approval
    before = thread_digest(reader(app, module.graph), "t")
    broken = CallEvents._open_call

    def fails_on_email(self: Any, run_id: Any, parent: Any, kind: str, name: str, meta: Any) -> Any:
        if name == "send_email":
            raise KeyError("a bug of ours")
        return broken(self, run_id, parent, kind, name, meta)

    monkeypatch.setattr(CallEvents, "_open_call", fails_on_email)
    outcome, _ = asyncio.run(_resume(graph, "t"))
    assert outcome.status == "error"
    assert outcome.error is not None and outcome.error.startswith("AttachInternalError: Stepwise")
    assert "nothing of this failure was written" in outcome.error
    # plain LangGraph reads the thread as a crash in the tools task would leave it: the
    # approval committed (the human-in-the-loop step finished), the tools task due with no
    # write and no error
    after = thread_digest(reader(app, module.graph), "t")
    assert after[1:] == before
    assert after[0]["next"] == ("tools",) and after[0]["tasks"] == [("tools", None, [])]
    assert not [t for snap in after for t in snap["tasks"] if t[1] is not None]
    saved = reader(app, module.graph).checkpointer.get_tuple({"configurable": {"thread_id": "t"}})
    assert saved.pending_writes == []
    # continued without the bug, the thread ends exactly as a run without Stepwise ends
    monkeypatch.setattr(CallEvents, "_open_call", broken)
    last, _ = drive_input(graph, "t", None)
    assert last.status == "done", last.error
    plain = plain_run(app, "plain", [module.INPUT, resume()])
    assert thread_digest(reader(app, module.graph), "t") == plain


def drive_input(graph: Any, thread: str, inp: Any) -> tuple[RunOutcome, list[EventBase]]:
    events: list[EventBase] = []

    async def go() -> RunOutcome:
        return await RunDriver(AttachTarget(graph), Debugger()).run_once(
            RunRequest(inp, thread), events.append
        )

    return asyncio.run(go()), events


async def _resume(graph: Any, thread: str) -> tuple[RunOutcome, list[EventBase]]:
    events: list[EventBase] = []
    driver = RunDriver(AttachTarget(graph), Debugger())
    outcome = await driver.run_once(RunRequest(Command(resume=APPROVE), thread), events.append)
    return outcome, events


@SYNC_OR_NOT
def test_a_stop_outside_a_pause_leaves_the_thread_as_a_crash_would(
    tmp_path: Path, sync: bool, saver: Any
) -> None:
    app = agent_app(tmp_path, "sync", saver)
    module = plain_module(app)
    graph = attach(module.graph, sync=sync)
    graph.module_input = module.INPUT
    dbg = Debugger()
    tool = module.get_weather
    real = tool.func

    def stops_the_run(city: str) -> str:
        dbg.stop()  # the user presses Stop while the tool runs
        return real(city)

    tool.func = stops_the_run
    outcome, events = drive(graph, "t", [], dbg)
    assert outcome.status == "cancelled"
    assert events[-1].kind == "run.finished" and events[-1].__dict__["status"] == "cancelled"
    digest = thread_digest(reader(app, module.graph), "t")
    assert digest[0]["next"] == ("tools",)  # the tools task left no write: it runs again
    assert digest[0]["tasks"] == [("tools", None, [])]
    saved = reader(app, module.graph).checkpointer.get_tuple({"configurable": {"thread_id": "t"}})
    assert saved.pending_writes == []
