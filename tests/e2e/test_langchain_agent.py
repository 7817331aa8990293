"""A user's agent file written with langchain_core (its fake chat model and ``@tool``s), run
headless by ``stepwise run`` and in the studio's window: same answer, full events."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from engine.cli import main

AGENT_FILE = '''
import json
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.tools import tool

from engine import create_agent


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        message = self._generate(messages).generations[0].message
        chunks = [
            {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
            for i, c in enumerate(message.tool_calls)
        ]
        yield ChatGenerationChunk(
            message=AIMessageChunk(content=message.content, tool_call_chunks=chunks)
        )


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def build():
    model = Model(messages=iter([
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}]),
        AIMessage("2 + 3 = 5"),
    ]))
    return create_agent(model, [add])


agent = build()
INPUT = {"messages": [HumanMessage("What is 2 + 3?")]}
'''


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "lc_agent.py"
    path.write_text(AGENT_FILE)
    return path


def test_headless_run_of_a_langchain_agent_file(agent_file: Path, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["run", f"{agent_file}:agent", "--session", str(tmp_path / "s.stepwise")],
        stdin=io.StringIO(""),
        stdout=out,
        stderr=err,
    )
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "tool add" in text and "2 + 3 = 5" in text


def test_the_studio_runs_a_langchain_agent_file(qtbot: Any, qloop: Any, agent_file: Path) -> None:
    from tests.studio.app_agents import make_window, run_until

    window = make_window(qtbot, agent_file.parent)
    assert window.load_spec(f"{agent_file}:agent")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    kinds = [e.kind for e in window.hub.events]
    assert "model.token" in kinds and kinds.count("model.response") == 2
    tools = [e for e in window.hub.events if e.kind == "tool.finished"]
    assert [(t.tool, t.status) for t in tools] == [("add", "success")]  # type: ignore[attr-defined]
    state = window.controller.graph.get_state(window.hub.config())
    assert state.values["messages"][-1].text == "2 + 3 = 5"
