"""A ``langgraph.json`` that names a graph factory: called as a LangGraph server calls it.

The factory is a context manager taking a config and a ``ServerRuntime`` that opens the app's
own SQLite checkpointer for as long as it is open.  Loading opens it once for the session
(``assistants.read``); every run opens it again with the run's ``configurable`` keys and
context (``threads.create_run``) and closes it when the run ends; the saved thread reads back
with plain LangGraph."""

from __future__ import annotations

import asyncio
import json
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langgraph.checkpoint.sqlite")
pytest.importorskip("langgraph_sdk.runtime")

from langgraph.checkpoint.sqlite import SqliteSaver

from engine.debug.debugger import Debugger
from engine.errors import AgentLoadError
from engine.loader import load_target
from engine.targets import RunRequest, target_for
from tests.fixtures.postgres import postgres_server

__all__ = ["postgres_server"]  # the fixture, used below

APP = """
import contextlib
from typing import TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph_sdk.runtime import ServerRuntime

LOG = []
INPUT = {{"topic": "cats"}}


class S(TypedDict, total=False):
    topic: str
    line: str


def write(state: S, config, runtime: Runtime) -> dict:
    tone = config["configurable"].get("tone", "plain")
    return {{"line": f"{{tone}} {{state['topic']}} for {{runtime.context['user']}}"}}


def builder():
    b = StateGraph(S)
    b.add_node("write", write)
    b.add_edge(START, "write")
    b.add_edge("write", END)
    return b


@contextlib.asynccontextmanager
async def make_graph(config, runtime: ServerRuntime):
    ert = runtime.execution_runtime
    assert runtime.store is not None  # a server always offers one
    if ert is not None and ert.context.get("fail"):
        raise RuntimeError("no MCP server at mcp://nowhere")
    LOG.append(("open", runtime.access_context, config["configurable"].get("tone"),
                ert.context if ert else None))
    async with AsyncSqliteSaver.from_conn_string({db!r}) as saver:
        yield builder().compile(checkpointer=saver)
    LOG.append(("close", runtime.access_context))
"""


def _project(tmp_path: Path) -> tuple[str, Path]:
    db = tmp_path / "app.db"
    app = tmp_path / f"factory_app_{uuid.uuid4().hex[:8]}.py"
    app.write_text(textwrap.dedent(APP.format(db=str(db))))
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"writer": f"./{app.name}:make_graph"}})
    )
    return str(tmp_path), db


async def _run(target: Any, request: RunRequest) -> Any:
    run = target.run(request, Debugger())
    kinds = [ev.kind async for ev in run]
    return run.outcome, kinds


def test_each_run_opens_the_factory_with_its_config_and_context(tmp_path: Path) -> None:
    spec, db = _project(tmp_path)
    loaded = load_target(spec)
    log = loaded.module.LOG
    assert log == [("open", "assistants.read", None, None)]  # held open for the session
    target = target_for(loaded.graph)
    seen: list[str] = []
    target.subscribe(lambda ev: seen.append(ev.kind))

    request = RunRequest(
        {"topic": "cats"}, "t1", context={"user": "ada"}, configurable={"tone": "bold"}
    )
    outcome, kinds = asyncio.run(_run(target, request))

    assert (outcome.status, outcome.error) == ("done", None)
    assert outcome.output == {"topic": "cats", "line": "bold cats for ada"}
    assert log[1:] == [
        ("open", "threads.create_run", "bold", {"user": "ada"}),
        ("close", "threads.create_run"),
    ]
    assert "node.started" in kinds and "checkpoint.saved" in kinds
    assert "node.started" in seen  # the session's subscribers see the per-run graph's events
    snap = asyncio.run(target.state("t1"))  # through the graph held open since loading
    assert snap is not None and snap.values["line"] == "bold cats for ada"
    with SqliteSaver.from_conn_string(str(db)) as saver:  # plain LangGraph reads it back
        saved = saver.get_tuple({"configurable": {"thread_id": "t1"}})
    assert saved is not None
    assert saved.checkpoint["channel_values"]["line"] == "bold cats for ada"


def test_a_factory_failing_for_a_run_is_a_one_line_error_and_writes_nothing(
    tmp_path: Path,
) -> None:
    spec, db = _project(tmp_path)
    target = target_for(load_target(spec).graph)
    request = RunRequest({"topic": "cats"}, "t2", context={"user": "ada", "fail": True})
    outcome, _kinds = asyncio.run(_run(target, request))
    assert outcome.status == "error"
    assert outcome.error is not None and "\n" not in outcome.error
    assert "the graph factory raised RuntimeError: no MCP server at mcp://nowhere" in outcome.error
    with SqliteSaver.from_conn_string(str(db)) as saver:
        assert saver.get_tuple({"configurable": {"thread_id": "t2"}}) is None


def test_loading_again_closes_the_factory_held_before(tmp_path: Path) -> None:
    spec, _db = _project(tmp_path)
    first = load_target(spec).module.LOG
    load_target(spec)  # a reload: the module runs again, the first holding is closed
    assert first == [("open", "assistants.read", None, None), ("close", "assistants.read")]


def test_a_factory_taking_an_unknown_argument_is_refused_in_one_line(tmp_path: Path) -> None:
    app = tmp_path / f"factory_bad_{uuid.uuid4().hex[:8]}.py"
    app.write_text("def make_graph(config, runtime, extra):\n    raise AssertionError\n")
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"g": f"./{app.name}:make_graph"}})
    )
    with pytest.raises(AgentLoadError, match=r"taking \(config, runtime, extra\)"):
        load_target(str(tmp_path))


PG_APP = """
import contextlib
from typing import TypedDict

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import END, START, StateGraph


class S(TypedDict, total=False):
    n: int


def double(state: S) -> dict:
    return {{"n": state["n"] * 2}}


@contextlib.asynccontextmanager
async def make_graph():
    async with AsyncPostgresSaver.from_conn_string({url!r}) as saver:
        await saver.setup()
        b = StateGraph(S)
        b.add_node("double", double)
        b.add_edge(START, "double")
        b.add_edge("double", END)
        yield b.compile(checkpointer=saver)
"""


def test_a_factory_holding_an_async_postgres_saver_serves_runs_and_reads_on_other_loops(
    tmp_path: Path, postgres_server: Any
) -> None:
    """The docs' production shape: the factory opens ``AsyncPostgresSaver`` in ``async with``.
    The graph held since loading reads state from loops other than its own (the studio's)."""
    url = postgres_server.new_database()
    app = tmp_path / f"factory_pg_{uuid.uuid4().hex[:8]}.py"
    app.write_text(textwrap.dedent(PG_APP.format(url=url)))
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"g": f"./{app.name}:make_graph"}})
    )
    target = target_for(load_target(str(tmp_path)).graph)
    for thread, n in (("p1", 2), ("p2", 5)):  # each on a new loop, as runs come and go
        outcome, _kinds = asyncio.run(_run(target, RunRequest({"n": n}, thread)))
        assert (outcome.status, outcome.output) == ("done", {"n": 2 * n})
        snap = asyncio.run(target.state(thread))
        assert snap is not None and snap.values == {"n": 2 * n}
    history = asyncio.run(target.history("p2"))
    assert [s.values.get("n") for s in history][:2] == [10, 5]


def test_a_held_factory_failing_to_close_is_one_line_on_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = tmp_path / f"factory_close_{uuid.uuid4().hex[:8]}.py"
    app.write_text(
        textwrap.dedent(
            """
            import contextlib
            from typing import TypedDict
            from langgraph.graph import START, StateGraph

            class S(TypedDict):
                n: int

            @contextlib.contextmanager
            def make_graph():
                b = StateGraph(S)
                b.add_node("keep", lambda s: {"n": s["n"]})
                b.add_edge(START, "keep")
                yield b.compile()
                raise OSError("socket already closed\\nsecond line")
            """
        )
    )
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"g": f"./{app.name}:make_graph"}})
    )
    load_target(str(tmp_path))
    with caplog.at_level("WARNING", logger="stepwise.attach"):
        again = load_target(str(tmp_path))  # a reload closes the first holding, which raises
    assert "keep" in again.graph.get_graph().nodes  # the reload goes on with its new graph
    [record] = [r for r in caplog.records if "closing the graph factory" in r.getMessage()]
    message = record.getMessage()
    assert "OSError: socket already closed" in message and "\n" not in message
