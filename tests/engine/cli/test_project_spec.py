"""A LangGraph project opened by its ``langgraph.json`` (or its folder): the graph it names,
its package imports and its ``env``, as ``langgraph dev`` would serve it."""

from __future__ import annotations

import io
import json
import os
import textwrap
import uuid
from pathlib import Path

import pytest

from engine.cli import main
from engine.loader import AgentLoadError, load_target
from engine.project import read_env_file

NODES = """
def step(state):
    return {"n": state["n"] + 1}
"""

AGENT = """
import os
from typing import TypedDict
from engine import END, START, StateGraph
from {pkg}.utils.nodes import step

class S(TypedDict):
    n: int

KEY_SEEN = os.environ.get("{var}")

b = StateGraph(S)
b.add_node("step", step)
b.add_edge(START, "step")
b.add_edge("step", END)
graph = b.compile()
other = b.compile()
"""


def _project(tmp_path: Path, graphs: object, env: object = ".env") -> tuple[Path, str, str]:
    """The docs' layout: ``my_agent/`` package with ``utils/``, a ``.env``, a langgraph.json."""
    pkg = f"my_agent_{uuid.uuid4().hex[:8]}"
    var = f"STEPWISE_TEST_KEY_{uuid.uuid4().hex[:8].upper()}"
    (tmp_path / pkg / "utils").mkdir(parents=True)
    (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / pkg / "utils" / "__init__.py").write_text("")
    (tmp_path / pkg / "utils" / "nodes.py").write_text(textwrap.dedent(NODES))
    (tmp_path / pkg / "agent.py").write_text(textwrap.dedent(AGENT.format(pkg=pkg, var=var)))
    (tmp_path / ".env").write_text(f"# secrets\nexport {var}='from-dotenv'\n")
    config = {
        "dependencies": [f"./{pkg}"],
        "graphs": json.loads(json.dumps(graphs).replace("PKG", pkg)),
        "env": env,
    }
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    return tmp_path / "langgraph.json", pkg, var


def test_the_docs_layout_opens_by_its_config_its_folder_or_a_graph_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, pkg, var = _project(tmp_path, {"agent": "./PKG/agent.py:graph"})
    monkeypatch.delenv(var, raising=False)
    loaded = load_target(str(config))
    assert loaded.module.__name__ == f"{pkg}.agent"  # its package imports work
    assert loaded.module.KEY_SEEN == "from-dotenv"
    assert os.environ[var] == "from-dotenv"
    assert loaded.graph.invoke({"n": 1}) == {"n": 2}
    assert load_target(str(tmp_path)).name == "graph"
    assert load_target(f"{config}:agent").name == "graph"


def test_a_variable_already_set_wins_over_the_env_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, _pkg, var = _project(tmp_path, {"agent": "./PKG/agent.py:graph"})
    monkeypatch.setenv(var, "from-shell")
    assert load_target(str(config)).module.KEY_SEEN == "from-shell"


def test_module_references_and_path_entries(tmp_path: Path) -> None:
    config, pkg, _var = _project(
        tmp_path,
        {"a": "PKG.agent:graph", "b": {"path": "./PKG/agent.py:other", "description": "x"}},
        env={"PLAIN": "1"},
    )
    assert load_target(f"{config}:a").module.__name__ == f"{pkg}.agent"
    assert load_target(f"{config}:b").name == "other"


@pytest.mark.parametrize(
    ("body", "spec_tail", "message"),
    [
        (
            {"graphs": {"a": "./x.py:g", "b": "./y.py:g"}},
            "",
            "it names several graphs (a, b); pick one with {config}:ID",
        ),
        ({"graphs": {"a": "./x.py:g"}}, ":zzz", "no graph 'zzz' (graphs: a)"),
        ({"graphs": {}}, "", 'it names no graphs (expected "graphs": {{"id": "file.py:attr"}})'),
        (
            {"graphs": {"a": 3}},
            "",
            "graph 'a' is not a 'file.py:attr' or 'module:attr' reference",
        ),
        ({"graphs": {"a": "./x.py:g"}}, "", "{root}/x.py: file not found"),
    ],
)
def test_a_bad_config_is_one_line(
    tmp_path: Path, body: object, spec_tail: str, message: str
) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps(body))
    with pytest.raises(AgentLoadError) as err:
        load_target(f"{config}{spec_tail}")
    expected = message.format(config=config, root=tmp_path.resolve())
    assert str(err.value) in (f"{config}: {expected}", expected)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text('{\n  "graphs": {\n    "a": "./x.py:g",\n  }\n}\n')
    with pytest.raises(AgentLoadError) as err:
        load_target(str(config))
    assert str(err.value).startswith(f"{config}:4: not valid JSON: ")


def test_the_env_file_reader(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(
        "# comment\n\nA=1\nexport B = two \nC='quoted # not a comment'\n"
        'D="double"\nE=value # comment\nnot a line\n'
    )
    assert read_env_file(path) == {
        "A": "1",
        "B": "two",
        "C": "quoted # not a comment",
        "D": "double",
        "E": "value",
    }


def test_stepwise_run_on_a_project_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config, _pkg, var = _project(tmp_path / "app", {"agent": "./PKG/agent.py:graph"})
    monkeypatch.delenv(var, raising=False)
    out, err = io.StringIO(), io.StringIO()
    session = tmp_path / "s.stepwise"
    argv = ["run", str(tmp_path / "app"), "--input-json", '{"n": 4}', "--session", str(session)]
    code = main([*argv, "--headless"], stdin=io.StringIO(""), stdout=out, stderr=err)
    assert (code, err.getvalue()) == (0, "")
    assert "from-dotenv" not in out.getvalue()  # values are never printed


FACTORIES = """
import contextlib
from typing import TypedDict
from engine import END, START, StateGraph

class S(TypedDict):
    n: int

def builder():
    b = StateGraph(S)
    b.add_node("x", lambda s: {"n": s["n"] * 10})
    b.add_edge(START, "x")
    b.add_edge("x", END)
    return b

uncompiled = builder()

def plain():
    return builder().compile()

def with_config(config):
    assert "configurable" in config
    return builder()

async def make_async():
    return builder().compile()

def broken():
    raise RuntimeError("no model configured")

def wrong():
    return 42

async def with_runtime(runtime):  # unannotated: a server passes it the config
    assert "configurable" in runtime
    return builder().compile()

@contextlib.asynccontextmanager
async def managed():
    yield builder().compile()

@contextlib.contextmanager
def managed_sync(config):
    yield builder()

def too_many(config, runtime, extra):
    return builder()
"""


@pytest.mark.parametrize(
    "attr",
    ["uncompiled", "plain", "with_config", "make_async", "with_runtime", "managed", "managed_sync"],
)
def test_what_a_project_may_name_besides_a_compiled_graph(tmp_path: Path, attr: str) -> None:
    (tmp_path / f"{_unique_stem()}.py").write_text(textwrap.dedent(FACTORIES))
    (app,) = tmp_path.glob("*.py")
    (tmp_path / "langgraph.json").write_text(json.dumps({"graphs": {"g": f"./{app.name}:{attr}"}}))
    assert load_target(str(tmp_path)).graph.invoke({"n": 2}) == {"n": 20}


@pytest.mark.parametrize(
    ("attr", "message"),
    [
        ("broken", "the graph factory raised RuntimeError: no model configured"),
        ("wrong", "the graph factory returned an int, not a compiled graph"),
        ("too_many", "is a graph factory taking (config, runtime, extra); a factory takes"),
    ],
)
def test_a_factory_that_cannot_give_a_graph_says_why(
    tmp_path: Path, attr: str, message: str
) -> None:
    app = tmp_path / f"{_unique_stem()}.py"
    app.write_text(textwrap.dedent(FACTORIES))
    (tmp_path / "langgraph.json").write_text(json.dumps({"graphs": {"g": f"./{app.name}:{attr}"}}))
    with pytest.raises(AgentLoadError) as err:
        load_target(str(tmp_path))
    assert str(err.value).startswith(f"{app.resolve()}:{attr}: {message}")


def test_a_plain_file_spec_compiles_a_builder_but_never_calls_a_function(tmp_path: Path) -> None:
    app = tmp_path / f"{_unique_stem()}.py"
    app.write_text(textwrap.dedent(FACTORIES))
    assert load_target(f"{app}:uncompiled").graph.invoke({"n": 1}) == {"n": 10}
    with pytest.raises(AgentLoadError, match="is a function, not a compiled graph"):
        load_target(f"{app}:broken")  # a function of a file is not called unasked


def _unique_stem() -> str:
    return f"factories_{uuid.uuid4().hex[:8]}"


def test_a_module_reference_into_a_src_layout(tmp_path: Path) -> None:
    pkg = f"agent_{uuid.uuid4().hex[:8]}"
    (tmp_path / "src" / pkg).mkdir(parents=True)
    (tmp_path / "src" / pkg / "__init__.py").write_text("")
    (tmp_path / "src" / pkg / "graph.py").write_text(textwrap.dedent(FACTORIES))
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": {"agent": f"{pkg}.graph:plain"}})
    )
    loaded = load_target(str(tmp_path))
    assert loaded.module.__name__ == f"{pkg}.graph"
    assert loaded.graph.invoke({"n": 1}) == {"n": 10}
