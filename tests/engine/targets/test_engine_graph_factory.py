"""A ``langgraph.json`` graph factory that makes one of Stepwise's own graphs (an app ported
by its imports) is made again for every run, with that run's ``configurable`` keys and
context, as a LangGraph server does; the graph made at load serves reads."""

from __future__ import annotations

import asyncio
import json
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph_sdk.runtime")

from engine.checkpoint.memory import InMemorySaver
from engine.debug.debugger import Debugger
from engine.loader import load_target
from engine.targets import RunRequest, target_for

APP = """
import contextlib
from typing import TypedDict

from engine.graph import END, START, StateGraph
from langgraph_sdk.runtime import ServerRuntime

LOG = []


class S(TypedDict, total=False):
    topic: str
    line: str


@contextlib.contextmanager
def make_graph(config, runtime: ServerRuntime):
    tone = config["configurable"].get("tone", "plain")  # the graph is rebuilt for the run
    ert = runtime.execution_runtime
    user = ert.context["user"] if ert is not None else None
    LOG.append(("open", runtime.access_context, tone, user))

    def write(state: S) -> dict:
        return {"line": f"{tone} {state['topic']} for {user}"}

    b = StateGraph(S)
    b.add_node("write", write)
    b.add_edge(START, "write")
    b.add_edge("write", END)
    yield b.compile()
    LOG.append(("close", runtime.access_context))
"""


def _load(tmp_path: Path) -> Any:
    app = tmp_path / f"engine_factory_{uuid.uuid4().hex[:8]}.py"
    app.write_text(textwrap.dedent(APP))
    (tmp_path / "langgraph.json").write_text(
        json.dumps({"graphs": {"writer": f"./{app.name}:make_graph"}})
    )
    return load_target(str(tmp_path))


async def _run(target: Any, request: RunRequest) -> Any:
    run = target.run(request, Debugger())
    kinds = [ev.kind async for ev in run]
    return run.outcome, kinds


def test_each_run_makes_our_graph_again_with_its_config_and_context(tmp_path: Path) -> None:
    loaded = _load(tmp_path)
    log = loaded.module.LOG
    assert log == [("open", "assistants.read", "plain", None)]
    graph = loaded.graph
    graph.checkpointer = InMemorySaver()  # as the studio gives the graph its session's saver
    target = target_for(graph)
    seen: list[str] = []
    target.subscribe(lambda ev: seen.append(ev.kind))

    request = RunRequest(
        {"topic": "cats"}, "t1", context={"user": "ada"}, configurable={"tone": "bold"}
    )
    outcome, kinds = asyncio.run(_run(target, request))

    assert (outcome.status, outcome.error) == ("done", None)
    assert outcome.output == {"topic": "cats", "line": "bold cats for ada"}
    assert log[1:] == [
        ("open", "threads.create_run", "bold", "ada"),
        ("close", "threads.create_run"),
    ]
    assert "node.started" in kinds and "checkpoint.saved" in kinds
    assert "node.started" in seen  # the session's subscribers see the per-run graph's events
    snap = asyncio.run(target.state("t1"))  # saved in the session's saver, read by the held graph
    assert snap is not None and snap.values["line"] == "bold cats for ada"


def test_plain_invoke_of_the_loaded_graph_makes_it_again_too(tmp_path: Path) -> None:
    loaded = _load(tmp_path)
    out = loaded.graph.invoke(
        {"topic": "dogs"}, {"configurable": {"tone": "soft"}}, context={"user": "bo"}
    )
    assert out == {"topic": "dogs", "line": "soft dogs for bo"}
    assert loaded.module.LOG[-2:] == [
        ("open", "threads.create_run", "soft", "bo"),
        ("close", "threads.create_run"),
    ]
