"""The studio's RunController on a real LangGraph graph (attach mode): load, run, answer an
interrupt, and resume from a past checkpoint (a fork) on the graph's own checkpointer."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from engine.attach.options import AttachOptions
from engine.types import Command
from studio.history.timetravel import aresume_from
from studio.models.hub import Hub
from studio.run.controller import RunController
from tests.engine.attach.apps import REVIEW_APP
from tests.studio.app_agents import make_window, run_until

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


AGENT_APP = '''
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRetryMiddleware, wrap_tool_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


class Flaky(GenericFakeChatModel):
    fails: int = 1

    def bind_tools(self, tools, **kw):
        return self

    def _generate(self, *a, **k):
        if self.fails:
            self.fails -= 1
            raise TimeoutError("provider timed out")
        return super()._generate(*a, **k)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@wrap_tool_call
def audit(request, handler):
    return handler(request)


graph = create_agent(
    Flaky(messages=iter([
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}]),
        AIMessage("It is sunny in Oslo."),
    ])),
    tools=[weather],
    middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0), audit],
)
INPUT = {"messages": [("user", "Weather in Oslo?")]}
'''


def window_after_an_agent_run(qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path) -> Any:
    """A main window that loaded ``AGENT_APP`` (attached) and ran it to the end."""
    app = tmp_path / "agent.py"
    app.write_text(textwrap.dedent(AGENT_APP))
    window = make_window(qtbot, tmp_path)
    # the studio's default: models streamed (langchain_core's fake model is called unstreamed)
    assert window.load_spec(f"{app}:graph")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    return window


def test_the_events_dock_nests_an_attached_agents_calls_in_its_middleware(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from PySide6.QtCore import QModelIndex

    window = window_after_an_agent_run(qtbot, qloop, tmp_path)
    assert window.controller.graph.sync  # `audit` is sync only: LangGraph's sync stream
    drawn = window.hub.drawable.nodes
    assert drawn["model"].metadata["wrappers"] == ["ModelRetryMiddleware"]
    assert drawn["tools"].metadata["wrappers"] == ["audit"]
    view = window.docks["events"].widget().view
    model = view.model()

    def texts(parent: QModelIndex, depth: int = 0) -> list[tuple[int, str]]:
        if model.canFetchMore(parent):
            model.fetchMore(parent)
        out = []
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            out.append((depth, str(index.data())))
            out.extend(texts(index, depth + 1))
        return out

    rows = texts(QModelIndex())
    first = next(i for i, (_d, t) in enumerate(rows) if "wrap_model_call" in t)
    depth = rows[first][0]
    shown = [(d - depth, t) for d, t in rows[first : first + 5]]
    assert shown[0] == (0, "ModelRetryMiddleware.wrap_model_call ✓ (2 calls)")
    assert shown[1][0] == 1 and shown[1][1].startswith(
        "ModelRetryMiddleware attempt 1/3 ✗ TimeoutError"
    )
    assert shown[2][0] == 2 and shown[2][1].startswith("model Flaky ✗ TimeoutError")
    assert shown[3] == (1, "ModelRetryMiddleware attempt 2/3 ✓")
    assert shown[4][0] == 2 and "weather(Oslo)" in shown[4][1]
    tool_layer = next(i for i, (_d, t) in enumerate(rows) if t.startswith("audit.wrap_tool_call"))
    assert rows[tool_layer + 1][0] == rows[tool_layer][0] + 1
    assert rows[tool_layer + 1][1].startswith("tool weather(Oslo) ✓")


def test_a_recorded_attach_session_replays_with_its_checkpoints_and_states(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from tests.studio.tt_studio import state_dump

    live = window_after_an_agent_run(qtbot, qloop, tmp_path)
    live_timeline = live.docks["timeline"].widget().timeline
    # the Timeline draws the run's last checkpoints on its own tick, after the run's end
    run_until(qloop, lambda: len(live_timeline.ordered()) >= 5)
    live_ids = [n.checkpoint_id for n in live_timeline.ordered()]
    assert len(live_ids) == 5  # input, then before model, tools, model, end
    live.controller.recorder.flush()
    path = live.controller.session_path
    assert path is not None

    offline = make_window(qtbot, tmp_path)  # no app, no LangGraph saver: the file alone
    assert offline.open_session(str(path))
    timeline = offline.docks["timeline"].widget().timeline
    run_until(qloop, lambda: len(timeline.ordered()) == len(live_ids))
    assert [n.checkpoint_id for n in timeline.ordered()] == live_ids
    offline.hub.select_checkpoint(live_ids[-1])
    state = offline.docks["state"].widget()
    run_until(qloop, lambda: any("It is sunny in Oslo." in r for r in state_dump(state)))
    offline.hub.select_checkpoint(live_ids[2])  # after the first model turn: the tool call
    run_until(qloop, lambda: not any("It is sunny in Oslo." in r for r in state_dump(state)))
    assert any("weather" in r for r in state_dump(state))


def test_double_click_opens_a_real_compiled_subgraph_of_an_attached_app(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from PySide6.QtCore import Qt

    from tests.fixtures.docs_app_sources import STATEGRAPH_APP
    from tests.fixtures.docs_apps import write_app
    from tests.studio.test_graph_view import node_point

    app = write_app(tmp_path, STATEGRAPH_APP)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(app.spec)
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    panel = window.graph_panel
    assert panel.state.graph.nodes["review"].kind == "subgraph"
    qtbot.waitUntil(lambda: panel.view.layout_result is not None)
    panel.view.fit()
    point = node_point(panel.view, "review")
    qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert panel.path == ["review"] and panel.crumb_bar.isVisible()
    assert "critic" in panel.state.graph.nodes and "write" not in panel.state.graph.nodes
    assert panel.state.visits("critic") == 3  # the subgraph ran three times (write looped)
    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.path == [] and {"write", "review", "publish"} <= set(panel.state.graph.nodes)


def test_the_faults_menu_reaches_an_agent_invoked_inside_a_node(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from tests.engine.attach.test_attach_parity import INNER_AGENT_APP
    from tests.fixtures.docs_apps import write_app

    app = write_app(tmp_path, INNER_AGENT_APP)
    window = make_window(qtbot, tmp_path)
    window.controller.attach = AttachOptions(stream_tokens=False)
    menus = window.menus
    assert not menus.model_timeout.isEnabled()  # nothing loaded yet
    assert window.load_spec(app.spec)
    assert menus.model_timeout.isEnabled(), menus.model_timeout.toolTip()
    menus.model_timeout.trigger()
    window.input_bar.message_edit.setText("weather?")
    window.send_message()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    faults = [e for e in window.hub.events if e.__dict__.get("action") == "fault_injected"]
    assert [e.__dict__["detail"]["kind"] for e in faults] == ["model"]
    answers = [e for e in window.hub.events if e.kind == "model.response"]
    assert answers[0].__dict__["error"] is not None and answers[-1].__dict__["error"] is None
