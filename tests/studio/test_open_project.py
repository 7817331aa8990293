"""A LangGraph project opened in the window by its ``langgraph.json`` (File > Open) or its
folder (``stepwise open .``): the graph ids it names, its package imports, its ``.env``."""

from __future__ import annotations

import json
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.studio.app_agents import make_window, run_until

AGENT = """
import os
from typing import TypedDict
from engine import END, START, StateGraph
from {pkg}.nodes import greet

class S(TypedDict, total=False):
    name: str
    greeting: str

def build():
    b = StateGraph(S)
    b.add_node("greet", greet)
    b.add_edge(START, "greet")
    b.add_edge("greet", END)
    return b.compile()

graph = build()
shouty = build()
INPUT = {{"name": "Ada"}}
"""

NODES = """
import os

def greet(state):
    return {{"greeting": os.environ["{var}"] + ", " + state["name"]}}
"""


def _project(root: Path, graphs: dict[str, str]) -> tuple[Path, str]:
    pkg = f"greeter_{uuid.uuid4().hex[:8]}"
    var = f"STEPWISE_GREETING_{uuid.uuid4().hex[:8].upper()}"
    (root / "src" / pkg).mkdir(parents=True)
    (root / "src" / pkg / "__init__.py").write_text("")
    (root / "src" / pkg / "nodes.py").write_text(textwrap.dedent(NODES.format(var=var)))
    (root / "src" / pkg / "graph.py").write_text(textwrap.dedent(AGENT.format(pkg=pkg)))
    (root / ".env").write_text(f"{var}=Hello\n")
    entries = {k: v.replace("PKG", pkg) for k, v in graphs.items()}
    (root / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": entries, "env": ".env"})
    )
    return root / "langgraph.json", var


def _run(window: Any, qloop: Any) -> dict[str, Any]:
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    state = qloop.run_until_complete(window.controller.graph.aget_state(window.hub.config()))
    return dict(state.values)


def test_file_open_on_a_project_asks_which_graph_id(
    qtbot: Any, qloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, var = _project(
        tmp_path / "app",
        {"greeter": "./src/PKG/graph.py:graph", "loud": "./src/PKG/graph.py:shouty"},
    )
    monkeypatch.delenv(var, raising=False)
    window = make_window(qtbot, tmp_path)
    window.menus.choose_agent_file()
    dialog = window.menus.file_dialog
    assert "langgraph.json" in dialog.nameFilters()[0]
    dialog.fileSelected.emit(str(config))  # what picking the file in the dialog does
    picker = window.graph_picker
    assert picker is not None and picker.texts() == ["greeter", "loud"]
    picker.list_widget.setCurrentRow(1)
    picker.ok_button.click()
    run_until(qloop, lambda: window.controller.graph is not None)
    assert window.hub.source_label == "app/langgraph.json:loud"
    assert _run(window, qloop) == {"name": "Ada", "greeting": "Hello, Ada"}


def test_a_project_folder_with_one_graph_opens_at_once(
    qtbot: Any, qloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, var = _project(tmp_path / "app", {"greeter": "./src/PKG/graph.py:graph"})
    monkeypatch.delenv(var, raising=False)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(str(config.parent))
    assert _run(window, qloop) == {"name": "Ada", "greeting": "Hello, Ada"}


def test_a_broken_project_says_why_in_one_line(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text('{"graphs": {"a": "./missing.py:graph"}}')
    window = make_window(qtbot, tmp_path)
    result = window.open_agent_file(str(config))
    assert qloop.run_until_complete(result) is False
    assert window.error_dialog is not None
    assert (
        f"{tmp_path.resolve()}/missing.py: file not found"
        in window.error_dialog.message_label.text()
    )
