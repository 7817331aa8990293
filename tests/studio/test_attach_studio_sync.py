"""An attached app that runs on LangGraph's sync stream (its middleware is sync only) runs on a
worker thread: the studio's qasync loop keeps going meanwhile, showing the run's events as they
come, while a tool of the app still runs.  (An app that could go either way runs on ``astream``
in the studio: the studio reads a run through ``astream_events``, whose consumer pushes back,
so each event of a sync stream's thread would wait for the loop: ``AttachedRun._gated_now``.)"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from PySide6.QtCore import QTimer

from tests.engine.attach.streams import record_streams
from tests.studio.app_agents import make_window, run_until

APP = '''
import threading

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

MIDDLEWARE = []
GATE = threading.Event()
RELEASED = []


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


@tool
def slow(city: str) -> str:
    """Waits until the test lets it go."""
    RELEASED.append(GATE.wait(20))
    return f"sunny in {city}"


graph = create_agent(
    Scripted(messages=iter([
        AIMessage("", tool_calls=[{"name": "slow", "args": {"city": "Oslo"}, "id": "c1"}]),
        AIMessage("It is sunny in Oslo."),
    ])),
    tools=[slow],
    middleware=MIDDLEWARE,
)
INPUT = {"messages": [("user", "Weather in Oslo?")]}
'''


SYNC_ONLY = """
from langchain.agents.middleware import wrap_tool_call


@wrap_tool_call
def audit(request, handler):
    return handler(request)


MIDDLEWARE = [audit]
"""


@pytest.mark.parametrize(
    ("middleware", "expected"),
    # both on the sync stream: the studio's consumer keeps up, so no event waits for the loop
    [("", "stream"), (SYNC_ONLY, "stream")],
    ids=["plain", "sync-only"],
)
def test_the_studio_shows_a_runs_events_while_its_sync_tool_still_runs(
    qtbot: Any,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    middleware: str,
    expected: str,
) -> None:
    used = record_streams(monkeypatch)
    app = tmp_path / "slow_agent.py"
    app.write_text(
        textwrap.dedent(APP).replace(
            "graph = create_agent(", middleware + "\ngraph = create_agent("
        )
    )
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{app}:graph")
    assert window.controller.graph.sync  # nothing async only in either
    module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", "") == str(app))
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    window.actions_.run.trigger()
    # the tool waits for the test: the loop must deliver its start (and Qt's timers) meanwhile
    run_until(qloop, lambda: any(e.kind == "tool.started" for e in window.hub.events))
    before = len(ticks)
    run_until(qloop, lambda: len(ticks) > before + 2)
    assert not module.RELEASED  # still running
    module.GATE.set()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    timer.stop()
    assert module.RELEASED == [True]
    assert used == [expected]
    kinds = [e.kind for e in window.hub.events]
    assert kinds.count("tool.finished") == 1 and kinds[-1] == "run.finished"
