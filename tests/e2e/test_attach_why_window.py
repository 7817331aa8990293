"""Why an agent stopped, through the real window on an app written as the docs write one (a
``create_agent`` with a sync ``@tool`` on its own ``SqliteSaver``): a call to a tool the agent
does not have, a call with arguments its schema refuses, and a reply cut off at the token limit
inside a tool call.  The Events tree says each; the app's database holds exactly what the run
without Stepwise leaves, read back through plain LangGraph."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")
pytest.importorskip("langgraph.checkpoint.sqlite")

from tests.e2e.attach_window import Plain, Studio, studio_digest
from tests.fixtures.docs_apps import _MODEL_IMPORTS, SCRIPTED_MODEL, AppFile

APP = '''
"""An agent whose model calls a tool it does not have, then one with wrong arguments, then is
cut off at its token limit inside a tool call."""
import sqlite3

from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
MODEL_IMPORTS

SCRIPTED_MODEL


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"It's always sunny in {city}!"


cut = {"name": "get_weather", "args": '{"city": "s', "id": "w3", "error": "bad json"}
graph = create_agent(
    ScriptedModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": "get_forecast", "args": {}, "id": "w1"}]),
                AIMessage("", tool_calls=[{"name": "get_weather", "args": {"town": "sf"}, "id": "w2"}]),
                AIMessage("", invalid_tool_calls=[cut], response_metadata={"finish_reason": "length"}),
            ]
        ),
        disable_streaming=True,
    ),
    tools=[get_weather],
    checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)),
)
INPUT = {"messages": [{"role": "user", "content": "Weather in sf?"}]}
'''


def test_why_the_agent_stopped_shows_and_the_apps_database_is_its_own(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    db = str(tmp_path / "app.sqlite")
    path = tmp_path / "app.py"
    source = APP.replace("MODEL_IMPORTS", _MODEL_IMPORTS).replace("SCRIPTED_MODEL", SCRIPTED_MODEL)
    path.write_text(source.lstrip().replace("DB,", f"{db!r},"))
    app = AppFile(path, db=db, saver="sqlite")
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    try:
        assert studio.trigger("run") == "done", studio.ctl.last_error
        tools = {e.tool_call_id: e for e in studio.events("tool.finished")}
        assert set(tools) == {"w1", "w2"} and all(t.status == "error" for t in tools.values())
        rows = [r.summary() for r in studio.window.docks["events"].widget().tree.rows]
        assert any(
            s.startswith("tool get_forecast(") and "is not a valid tool" in s for s in rows
        ), rows
        assert any("city: Field required" in s for s in rows), rows
        (last,) = [s for s in rows if "invalid call" in s]
        assert last.endswith(
            "→ get_weather ✗ invalid call: bad json ⚠ cut off at its token limit"
            " (finish_reason: length)"
        )
        plain.call(plain.module.INPUT)
        assert studio_digest(studio) == plain.digest()
    finally:
        studio.close()
