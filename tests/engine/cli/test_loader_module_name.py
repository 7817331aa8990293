"""The name a loaded file's module gets: the one the app itself imports it under, so the types
it defines are stored by its checkpointer under names the app can read back, and relative
imports inside a package work; a private name when another module answers to it."""

from __future__ import annotations

import json
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from engine.loader import AgentLoadError, load_target

GRAPH = """
from engine import END, START, StateGraph
from typing import TypedDict

class S(TypedDict):
    n: int

b = StateGraph(S)
b.add_node("x", lambda s: {"n": 1})
b.add_edge(START, "x")
b.add_edge("x", END)
graph = b.compile()
"""


def _unique(stem: str) -> str:
    return f"{stem}_{uuid.uuid4().hex[:8]}"


def test_a_file_is_imported_under_its_own_name(tmp_path: Path) -> None:
    stem = _unique("orders")
    (tmp_path / f"{stem}.py").write_text(textwrap.dedent(GRAPH))
    loaded = load_target(f"{tmp_path / stem}.py:graph")
    assert loaded.module.__name__ == stem
    assert sys.modules[stem] is loaded.module
    # loading the edited file again runs it afresh, under the same name
    again = load_target(f"{tmp_path / stem}.py:graph")
    assert again.module is not loaded.module and sys.modules[stem] is again.module


def test_a_file_inside_a_package_is_its_submodule_and_imports_relatively(
    tmp_path: Path,
) -> None:
    pkg = _unique("shop")
    (tmp_path / pkg / "agents").mkdir(parents=True)
    (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / pkg / "agents" / "__init__.py").write_text("")
    (tmp_path / pkg / "agents" / "tools.py").write_text("LIMIT = 3\n")
    (tmp_path / pkg / "agents" / "support.py").write_text(
        "from .tools import LIMIT\n" + textwrap.dedent(GRAPH)
    )
    loaded = load_target(f"{tmp_path / pkg / 'agents' / 'support.py'}:graph")
    assert loaded.module.__name__ == f"{pkg}.agents.support"
    assert loaded.module.LIMIT == 3
    assert sys.modules[f"{pkg}.agents"].support is loaded.module


def test_a_file_named_like_another_module_gets_a_private_name(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text(textwrap.dedent(GRAPH))
    loaded = load_target(f"{tmp_path / 'json.py'}:graph")
    assert loaded.module.__name__ != "json"
    assert sys.modules["json"] is json  # the standard library's module is untouched
    assert loaded.module.graph.invoke({"n": 0}) == {"n": 1}


def test_a_file_whose_name_is_not_an_identifier_gets_a_private_name(tmp_path: Path) -> None:
    (tmp_path / "my-agent.py").write_text(textwrap.dedent(GRAPH))
    loaded = load_target(f"{tmp_path / 'my-agent.py'}:graph")
    assert loaded.module.__name__.startswith("_stepwise_agent_my_agent_")


def test_a_broken_edit_keeps_the_last_good_module(tmp_path: Path) -> None:
    stem = _unique("flaky")
    path = tmp_path / f"{stem}.py"
    path.write_text(textwrap.dedent(GRAPH))
    good = load_target(f"{path}:graph")
    path.write_text("raise RuntimeError('half-edited')\n")
    with pytest.raises(AgentLoadError, match="half-edited"):
        load_target(f"{path}:graph")
    assert sys.modules[stem] is good.module


def test_a_file_the_process_imported_itself_is_left_as_it_was(tmp_path: Path) -> None:
    import importlib

    stem = _unique("imported")
    (tmp_path / f"{stem}.py").write_text(textwrap.dedent(GRAPH))
    sys.path.insert(0, str(tmp_path))
    try:
        theirs = importlib.import_module(stem)
        loaded = load_target(f"{tmp_path / stem}.py:graph")
    finally:
        sys.path.remove(str(tmp_path))
    assert sys.modules[stem] is theirs
    assert loaded.module is not theirs and loaded.module.__name__ != stem


def test_a_script_that_parses_its_options_at_import_sees_only_its_own_argv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stem = _unique("script")
    path = tmp_path / f"{stem}.py"
    path.write_text(
        "import argparse, sys\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--verbose', action='store_true')\n"
        "ARGS = parser.parse_args()\n"
        "ARGV = list(sys.argv)\n" + textwrap.dedent(GRAPH)
    )
    monkeypatch.setattr(sys, "argv", ["stepwise", "run", f"{path}:graph", "--input", "hi"])
    loaded = load_target(f"{path}:graph")
    assert [str(path.resolve())] == loaded.module.ARGV  # as `python file.py` gives it
    assert loaded.module.ARGS.verbose is False
    assert sys.argv == ["stepwise", "run", f"{path}:graph", "--input", "hi"]  # ours again
