"""The studio's RunController on a real LangGraph graph (attach mode): load, run, answer an
interrupt, and resume from a past checkpoint (a fork) on the graph's own checkpointer."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from engine.graph.types import Command
from studio.hub import Hub
from studio.session import RunController
from studio.timetravel import aresume_from
from tests.engine.attach.apps import REVIEW_APP

APP = REVIEW_APP + 'INPUT = {"n": 1}\n'


@pytest.fixture
def controller(tmp_path: Path) -> Any:
    ctl = RunController(Hub(), session_dir=tmp_path / "sessions")
    yield ctl
    ctl.close()


def test_the_studio_runs_forks_and_records_a_real_langgraph_graph(
    qloop: asyncio.AbstractEventLoop, controller: RunController, tmp_path: Path
) -> None:
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(APP))
    answers = iter(["ok", "again"])

    async def answer(_interrupts: Any) -> Any:
        return Command(resume=next(answers))

    controller.interrupt_handler = answer
    controller.load(f"{app}:graph")
    hub = controller.hub
    assert getattr(controller.graph, "runtime", None) == "langgraph"
    assert {"bump", "review"} <= set(hub.drawable.nodes)
    qloop.run_until_complete(controller.start())
    assert hub.status == "done"
    snap = hub.snapshot()
    assert snap is not None and snap.values == {"n": 2, "verdict": "ok"}
    kinds = [e.kind for e in hub.events]
    assert "interrupt.raised" in kinds and "interrupt.resumed" in kinds
    # fork: run again from the checkpoint before "review"
    graph, thread = controller.graph, hub.thread_id
    past = next(
        s for s in graph.get_state_history({"configurable": {"thread_id": thread}})
        if s.next == ("review",)
    )  # fmt: skip
    cid = past.config["configurable"]["checkpoint_id"]
    qloop.run_until_complete(aresume_from(graph, thread, cid))
    qloop.run_until_complete(aresume_from(graph, thread, None, input=Command(resume="again")))  # type: ignore[arg-type]
    assert graph.get_state({"configurable": {"thread_id": thread}}).values["verdict"] == "again"
    controller.recorder.flush()
    assert controller.session_path is not None and controller.session_path.exists()
