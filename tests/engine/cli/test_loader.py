"""The agent loader: file and module specs, and one exact one-line message per failure."""

from __future__ import annotations

import textwrap

import pytest

from engine.loader import AgentLoadError, list_graphs, load_agent, load_target, parse_spec
from tests.engine.cli import agents

GRAPHS = """
from engine import END, START, StateGraph
from typing import TypedDict

class S(TypedDict):
    n: int

def make():
    b = StateGraph(S)
    b.add_node("x", lambda s: {"n": 1})
    b.add_edge(START, "x")
    b.add_edge("x", END)
    return b.compile()

{names}

def helper():
    return 1

count = 3
"""


def _write(tmp_path, name: str, body: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def _error(spec: str) -> str:
    with pytest.raises(AgentLoadError) as ei:
        load_agent(spec)
    msg = str(ei.value)
    assert "\n" not in msg and "Traceback" not in msg
    err = ei.value  # no chained traceback to dump
    assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__)
    return msg


def test_file_spec_with_and_without_attribute(tmp_path):
    path = _write(tmp_path, "two.py", GRAPHS.replace("{names}", "agent = make()\nother = make()"))
    assert load_agent(f"{path}:other").get_graph() is not None
    loaded = load_target(str(path))
    assert loaded.name == "agent" and loaded.module.count == 3
    assert load_agent(f"{path}:agent") is not loaded.graph  # each load runs the file afresh


def test_module_spec():
    assert load_agent("tests.engine.cli.agents:hitl") is agents.hitl
    assert load_agent("tests.engine.cli.agents") is agents.agent


def test_missing_file(tmp_path):
    path = tmp_path / "nope.py"
    assert _error(f"{path}:agent") == f"{path}: file not found"


def test_syntax_error_names_the_line(tmp_path):
    path = _write(tmp_path, "bad.py", "x = 1\ny = (\n")
    assert _error(f"{path}:agent") == f"{path}:2: syntax error: '(' was never closed"


def test_exception_while_importing_names_the_line(tmp_path):
    path = _write(tmp_path, "raises.py", "import os\n\nraise ValueError('bad config')\n")
    assert _error(str(path)) == f"{path}:3: importing the file raised ValueError: bad config"


def test_exception_in_a_function_called_at_import(tmp_path):
    body = "def setup():\n    raise KeyError('OPENAI_BASE_URL')\n\nagent = setup()\n"
    path = _write(tmp_path, "deep.py", body)
    assert _error(str(path)) == f"{path}:2: importing the file raised KeyError: 'OPENAI_BASE_URL'"


def test_sys_exit_while_importing(tmp_path):
    path = _write(tmp_path, "exits.py", "import sys\nsys.exit(4)\n")
    assert _error(str(path)) == f"{path}:2: importing the file raised SystemExit: 4"


def test_missing_attribute_lists_the_graphs(tmp_path):
    path = _write(tmp_path, "two.py", GRAPHS.replace("{names}", "agent = make()\nother = make()"))
    assert (
        _error(f"{path}:foo")
        == f"{path}: no attribute 'foo' (compiled graphs in the file: agent, other)"
    )


def test_missing_default_attribute(tmp_path):
    path = _write(tmp_path, "one.py", GRAPHS.replace("{names}", "graph = make()"))
    assert _error(str(path)) == (
        f"{path}: no attribute 'agent' (compiled graphs in the file: graph; pick one with {path}:NAME)"
    )
    empty = _write(tmp_path, "empty.py", "x = 1\n")
    assert _error(str(empty)) == f"{empty}: no attribute 'agent' (it defines no compiled graph)"


def test_not_a_graph(tmp_path):
    path = _write(tmp_path, "one.py", GRAPHS.replace("{names}", "agent = make()"))
    suffix = "not a compiled graph (it needs get_graph(), astream_events() and get_state())"
    assert _error(f"{path}:helper") == f"{path}:helper: is a function, {suffix}"
    assert _error(f"{path}:count") == f"{path}:count: is an int, {suffix}"
    assert _error(f"{path}:S") == f"{path}:S: is the class S, {suffix}"
    assert (
        _error("tests.engine.cli.agents:not_a_graph")
        == f"tests.engine.cli.agents:not_a_graph: is an int, {suffix}"
    )


def test_module_errors(tmp_path, monkeypatch):
    assert (
        _error("no_such_pkg_xyz.agents:agent")
        == "no_such_pkg_xyz.agents: no module named 'no_such_pkg_xyz'"
    )
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "deps.py").write_text("import nonexistent_dep_xyz\n")
    (pkg / "fails.py").write_text("A = 1\nraise RuntimeError('no API key configured')\n")
    (pkg / "syntax.py").write_text("def f(:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _error("mypkg.deps:agent") == (
        "mypkg.deps: importing the module raised ModuleNotFoundError: No module named 'nonexistent_dep_xyz'"
    )
    assert (
        _error("mypkg.fails")
        == f"{pkg / 'fails.py'}:2: importing the module raised RuntimeError: no API key configured"
    )
    assert _error("mypkg.syntax:agent") == f"{pkg / 'syntax.py'}:1: syntax error: invalid syntax"
    assert (
        _error("not a module!:x")
        == "not a module!: not a file or a module name (expected path/to/file.py or package.module)"
    )


def test_bad_specs():
    assert _error("") == "no agent given: expected path/to/file.py:attr or package.module:attr"
    assert (
        _error("tests.engine.cli.agents:9lives")
        == "tests.engine.cli.agents: '9lives' is not a valid attribute name"
    )
    assert parse_spec("a/b.py:agent") == ("a/b.py", "agent", True)
    assert parse_spec("pkg.mod") == ("pkg.mod", None, False)
    assert parse_spec(r"C:\work\a.py") == (r"C:\work\a.py", None, True)
    assert parse_spec(r"C:\work\a.py:agent") == (r"C:\work\a.py", "agent", True)


def test_list_graphs(tmp_path):
    path = _write(
        tmp_path,
        "two.py",
        GRAPHS.replace("{names}", "zeta = make()\nalpha = make()\n_hidden = make()"),
    )
    assert list_graphs(str(path)) == ["zeta", "alpha"]
    assert list_graphs("tests.engine.cli.agents") == [
        "agent",
        "counter",
        "hitl",
        "per_call",
        "asker",
        "broken",
        "slow",
    ]
    bad = _write(tmp_path, "bad.py", "raise OSError('disk on fire')\n")
    with pytest.raises(AgentLoadError, match="disk on fire"):
        list_graphs(str(bad))


def test_code_runs_only_when_loading_and_sibling_imports_work(tmp_path):
    marker = tmp_path / "ran.txt"
    (tmp_path / "sibling_helpers_xyz.py").write_text("VALUE = 7\n")
    body = GRAPHS.replace("{names}", "agent = make()") + (
        f"\nimport sibling_helpers_xyz\nwith open({str(marker)!r}, 'a') as fh:\n"
        "    fh.write(str(sibling_helpers_xyz.VALUE))\n"
    )
    path = _write(tmp_path, "side.py", body)
    parse_spec(f"{path}:agent")
    assert not marker.exists()
    load_agent(f"{path}:agent")
    load_agent(f"{path}:agent")
    assert marker.read_text() == "77"


@pytest.mark.parametrize(
    ("body", "raised"),
    [
        ("class Halt(BaseException):\n    pass\n\nraise Halt('stop here')\n", "Halt: stop here"),
        ("raise GeneratorExit('closing')\n", "GeneratorExit: closing"),
        ("import sys\nsys.exit(4)\n", "SystemExit: 4"),
    ],
)
def test_a_base_exception_at_import_is_one_line(tmp_path, body: str, raised: str) -> None:
    path = _write(tmp_path, "odd.py", body)
    line = body.count("\n")
    assert _error(f"{path}:agent") == f"{path}:{line}: importing the file raised {raised}"


def test_tools_and_models_beside_the_graph_are_no_graphs(tmp_path):
    """LangChain tools and chat models are runnables (``get_graph``, ``astream_events``):
    neither listed as the file's graphs nor loaded as one."""
    path = _write(
        tmp_path,
        "tools_beside.py",
        "from langchain_core.language_models.fake_chat_models import GenericFakeChatModel\n"
        "from langchain_core.tools import tool\n"
        "from engine import START, StateGraph\n"
        "from typing_extensions import TypedDict\n"
        "class S(TypedDict):\n    x: int\n"
        "@tool\ndef search(q: str) -> str:\n    'Search.'\n    return q\n"
        "model = GenericFakeChatModel(messages=iter([]))\n"
        "b = StateGraph(S)\nb.add_node('n', lambda s: s)\nb.add_edge(START, 'n')\n"
        "graph = b.compile()\n",
    )
    assert list_graphs(str(path)) == ["graph"]
    suffix = "not a compiled graph (it needs get_graph(), astream_events() and get_state())"
    assert _error(f"{path}:search") == f"{path}:search: is a StructuredTool, {suffix}"
    assert _error(f"{path}:model") == f"{path}:model: is a GenericFakeChatModel, {suffix}"
