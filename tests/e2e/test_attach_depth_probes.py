"""Attach mode through the real window on app shapes the matrix does not cover
(``tests.fixtures.probe_apps``), each compared with the same steps on plain LangGraph: a user's
own middleware class with async tools (breakpoints and stepping through its layers), a tool
that calls ``interrupt()`` itself, a functional-API task that interrupts, ``Command`` from a
tool and ``Send`` to a subgraph, and a fault injected from the Faults menu on a PostgresSaver
app (the database must hold what a plain failed run holds, less the injected error).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from langgraph.types import Command as LGCommand

from tests.e2e.attach_window import Plain, Studio, studio_digest
from tests.fixtures.postgres import postgres_server, postgres_url
from tests.fixtures.probe_apps import (
    command_send_app,
    custom_middleware_app,
    functional_app,
    tool_interrupt_app,
)

__all__ = ["postgres_server", "postgres_url"]


def _answer(value: str) -> Any:
    def answer(dialog: Any) -> None:
        dialog.editor.setPlainText(f'"{value}"')
        dialog.resume_button.click()

    return answer


def test_a_users_middleware_class_is_stepped_through_its_layers(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = custom_middleware_app(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        bps = studio.window.graph_panel.breakpoints
        bp = bps.add("wrapper", "Audit", "wrap_model_call")
        assert studio.trigger("run") == "paused"
        kind, _ = studio.paused_at()
        ev = studio.ctl.debugger.current_event
        assert kind == "wrapper.started", ev
        assert ev.__dict__["middleware"] == "Audit"
        # step into: the model call inside the layer
        assert studio.trigger("step_into") == "paused"
        inner = studio.ctl.debugger.current_event
        assert inner.kind in ("model.request", "model.started"), inner
        # step out: to the end of the model call, then to the end of the wrapper's span
        assert studio.trigger("step_out") == "paused"
        assert studio.ctl.debugger.current_event.kind == "model.response"
        assert studio.trigger("step_out") == "paused"
        out = studio.ctl.debugger.current_event
        assert out.kind == "wrapper.finished" and out.__dict__["middleware"] == "Audit", out
        bps.remove(bp.id)
        # a breakpoint on the async tool wrapper
        bp = bps.add("wrapper", "Audit", "wrap_tool_call")
        assert studio.trigger("run") == "paused"
        ev = studio.ctl.debugger.current_event
        assert ev.kind == "wrapper.started" and ev.__dict__["wrapper"] == "wrap_tool_call", ev
        assert studio.trigger("step_into") == "paused"
        assert studio.ctl.debugger.current_event.kind == "tool.started"
        bps.remove(bp.id)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
        wrappers = {
            (e.__dict__["middleware"], e.__dict__["wrapper"])
            for e in studio.events("wrapper.started")
        }
        assert wrappers == {("Audit", "wrap_model_call"), ("Audit", "wrap_tool_call")}
        hooks = {(e.__dict__["middleware"], e.__dict__["hook"]) for e in studio.events("hook.started")}
        assert ("Audit", "before_model") in hooks

        # fork from the checkpoint after the first tool answered
        nodes = studio.checkpoints()
        fork = next(i for i, n in enumerate(nodes) if n.record.writers == ("tools",))
        studio.select(nodes[fork].checkpoint_id)
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        plain.call(None, checkpoint_index=fork)
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()


@pytest.mark.parametrize("saver", ["sqlite", "postgres"])
def test_a_tool_that_interrupts_itself_is_answered_in_the_dialog(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    saver: Any,
) -> None:
    pg = request.getfixturevalue("postgres_url") if saver == "postgres" else None
    app = tool_interrupt_app(tmp_path, saver, pg)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        studio.window.graph_panel.breakpoints.add("tool", "book_flight")
        studio.answers.append(_answer("yes"))
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("tool.started", "book_flight")
        studio.window.graph_panel.breakpoints.clear()
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert [type(d).__name__ for d in studio.dialogs] == ["ResumeValueDialog"]
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume="yes"))
        assert studio_digest(studio) == plain.digest()

        # fork from after the weather tool: the booking asks again, answered "no" this time
        nodes = studio.checkpoints()
        fork = next(i for i, n in enumerate(nodes) if n.record.writers == ("tools",))
        studio.answers.append(_answer("no"))
        studio.select(nodes[fork].checkpoint_id)
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 2
        plain.call(None, checkpoint_index=fork)
        plain.call(LGCommand(resume="no"))
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()
