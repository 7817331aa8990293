"""Attach mode through the real window: faults injected from the Faults menu, each compared
with the same failure on plain LangGraph: a tool fault on a SqliteSaver and a PostgresSaver
app (the database must hold what a plain failed run holds, less the injected error), one under
a user's async tool wrapper with Break on Any Failure, and a model timeout on the docs' agent
recorded then re-run offline from the recording.  The apps are ``tests.fixtures.probe_apps``'s
and ``tests.fixtures.docs_apps``'s; ``_answer`` and ``_write_rows`` are
``test_attach_depth_probes``'s.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from langgraph.types import Command as LGCommand

from tests.e2e.attach_window import Plain, Studio, saver_url, studio_digest
from tests.e2e.test_attach_depth_probes import _answer, _write_rows
from tests.fixtures.postgres import postgres_server, postgres_url
from tests.fixtures.probe_apps import custom_middleware_app, tool_interrupt_app

__all__ = ["postgres_server", "postgres_url"]


def _failing(tool: Any, message: str) -> Any:
    """``tool`` (a plain module's ``@tool``) made to raise once, as the injected fault does."""
    original = tool.func
    calls = iter([True])

    def func(*args: Any, **kwargs: Any) -> Any:
        if next(calls, False):
            raise OSError(message)
        return original(*args, **kwargs)

    object.__setattr__(tool, "func", func)
    return tool


@pytest.mark.parametrize("saver", ["sqlite", "postgres"])
def test_a_tool_fault_from_the_menu_fails_the_run_as_a_plain_failure(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = saver_url(request, saver)
    app = tool_interrupt_app(tmp_path, saver, pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        assert "get_weather" in menus.tool_fault_actions, list(menus.tool_fault_actions)
        menus.tool_fault_actions["get_weather"].trigger()
        status = studio.trigger("run")
        assert status == "error", (status, studio.ctl.last_error)
        faults = [
            e for e in studio.window.hub.events if e.__dict__.get("action") == "fault_injected"
        ]
        assert len(faults) == 1
        _failing(plain.module.get_weather, "Injected failure of get_weather (Stepwise debugger)")
        with pytest.raises(OSError):
            plain.call(plain.module.INPUT)
        # the app's database holds what the plain failed run holds, less the injected error
        # (the debugger's failure is never saved: the task stays pending, without an error)
        assert studio_digest(studio) == _no_errors(plain.digest())
        studio_rows, plain_rows = _write_rows(app, studio.thread), _write_rows(app, "plain")
        assert plain_rows.pop("__error__") == 1 and studio_rows == plain_rows
        # F5: the pending tool runs again, and the run goes on to the booking
        studio.answers.append(_answer("yes"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(None)  # LangGraph keeps its failed task's error in that checkpoint's writes
        plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == _no_errors(plain.digest())
    finally:
        studio.close()


def _no_errors(digest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for snap in digest:
        snap["tasks"] = [(name, None, ints) for name, _err, ints in snap["tasks"]]
    return digest


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_fault_recorded_then_replayed_offline(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, saver: Any
) -> None:
    from tests.e2e.attach_window import decide
    from tests.fixtures.docs_apps import agent_app
    from tests.studio.app_agents import make_window

    app = agent_app(tmp_path, "sync", saver)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        menus.model_timeout.trigger()  # on top of the app's own first timeout: retried twice
        studio.answers.append(lambda dialog: decide(dialog, "approve"))
        assert studio.trigger("run") == "done", studio.ctl.last_error
        faults = [
            e for e in studio.window.hub.events if e.__dict__.get("action") == "fault_injected"
        ]
        assert len(faults) == 1
        plain.module.model.timeouts = 2
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume={"decisions": [{"type": "approve"}]}))
        assert studio_digest(studio) == plain.digest()
        live = [(e.kind, e.ns) for e in studio.window.hub.events]
        saved = tmp_path / "recorded.stepwise"
        menus.save_session(str(saved))
    finally:
        studio.close()

    # offline: the recording alone, every event and checkpoint as it was live
    fresh = make_window(qtbot, tmp_path)
    assert fresh.open_session(str(saved))
    if fresh.opened_session.task is not None:
        qloop.run_until_complete(fresh.opened_session.task)
    assert [(e.kind, e.ns) for e in fresh.hub.events] == live
    timeline = fresh.docks["timeline"].widget()
    studio.until(lambda: bool(timeline.timeline.ordered()))
    nodes = timeline.timeline.ordered()
    after_weather = next(n for n in nodes if n.record.writers == ("tools",))
    # "Re-run from here" on it: the recorded replies, no model call; the approval asked again
    answered: list[Any] = []

    def approve(dialog: Any) -> None:
        answered.append(dialog)
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, lambda: decide(dialog, "approve"))

    from studio.run.interrupts import dialog_opened

    disconnect = dialog_opened.connect(approve)
    try:
        before = len(fresh.hub.events)
        timeline.rerunRequested.emit(after_weather.checkpoint_id)
        fresh.confirm_dialog.accept_button.click()
        if saver == "memory":  # the app's saver is new and empty: said, nothing runs
            studio.until(lambda: fresh.error_dialog is not None, 30)
            assert "does not hold this checkpoint" in fresh.error_dialog.message_label.text()
            assert not [e for e in fresh.hub.events[before:] if e.kind == "run.started"]
            return
        studio.until(lambda: "replayed" in fresh.status.message_label.text(), 60)
    finally:
        disconnect()
    assert "no divergence" in fresh.status.message_label.text()
    rerun = fresh.hub.events[before:]
    responses = [e for e in rerun if e.kind == "model.response"]
    assert len(responses) == 2 and all(e.__dict__["replayed"] for e in responses)
    # the Timeline marks the branch's checkpoints as replayed
    studio.until(lambda: any(n.marker("replayed") for n in timeline.timeline.ordered()))
    assert len(answered) == 1  # the approval, asked again and answered: the branch resumed
    # the branch is a fork of the app's thread, as the same fork without Stepwise makes it
    from langchain_core.messages import AIMessage

    from tests.fixtures.plain_langgraph import reader, thread_digest

    served = [
        AIMessage(
            m["content"],
            tool_calls=[
                {"name": c["name"], "args": c["args"], "id": c["id"]}
                for c in m.get("tool_calls") or []
            ],
        )
        for m in (e.__dict__["message"] for e in responses)
    ]
    plain.module.model.messages = iter(served)
    plain.call(None, checkpoint_index=nodes.index(after_weather))
    plain.call(LGCommand(resume={"decisions": [{"type": "approve"}]}))
    thread = fresh.opened_session.thread_id
    assert thread_digest(reader(app, plain.module.graph), thread) == plain.digest()


def test_a_tool_fault_under_an_async_tool_wrapper_pauses_at_the_failure(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = custom_middleware_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        menus = studio.window.menus
        menus.refresh_faults()
        menus.break_on_failure.trigger()  # Debug > Break on Any Failure
        assert studio.window.graph_panel.breakpoints.is_on("failure")
        menus.tool_fault_actions["get_time"].trigger()
        assert studio.trigger("run") == "paused"
        ev = studio.ctl.debugger.current_event
        assert ev is not None and "Injected failure of get_time" in str(ev.__dict__), ev
        menus.break_on_failure.trigger()
        status = studio.trigger("run")
        assert status == "error", (status, studio.ctl.last_error)
        func = plain.module.get_time.coroutine
        calls = iter([True])

        async def failing(city: str) -> str:
            if next(calls, False):
                raise OSError("Injected failure of get_time (Stepwise debugger)")
            return await func(city)

        object.__setattr__(plain.module.get_time, "coroutine", failing)
        with pytest.raises(OSError):
            plain.call(plain.module.INPUT)
        assert studio_digest(studio) == _no_errors(plain.digest())
        # Continue after the failure: the pending tool call runs again, as plain does
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(None)
        assert studio_digest(studio) == _no_errors(plain.digest())
    finally:
        studio.close()
