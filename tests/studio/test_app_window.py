"""The main window's dialogs and menus: scenario picker, graph picker, settings (test
connection), sessions (save as, open for replay), theme, breakpoints form, interrupts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from engine.recording import Session
from studio.app.scenarios import find_scenario
from tests.fixtures.openai_server import FakeOpenAIServer
from tests.studio.app_agents import factory, make_window, run_until


def test_scenario_picker_lists_descriptions_and_loads_the_pick(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    future = window.menus.pick_scenario()
    picker = window.menus.scenario_picker
    texts = picker.texts()
    assert texts[0].startswith("retry_todos\n") and all(
        "\n" in t and t.split("\n")[1] for t in texts
    )
    names = [t.split("\n")[0] for t in texts]
    picker.list_widget.setCurrentRow(names.index("plan_retry"))
    picker.ok_button.click()
    qloop.run_until_complete(future)
    assert window.hub.source_label == "plan_retry"
    assert "planner" in window.hub.drawable.nodes
    assert window.windowTitle() == "plan_retry - Stepwise"
    assert window.settings.recent[0].endswith("plan_retry.py:agent")
    assert [a.text() for a in window.menus.recent_menu.actions()] == window.settings.recent


def test_a_file_with_two_graphs_asks_which_one(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    seed = find_scenario("retry_todos")
    assert seed is not None
    two = tmp_path / "two_agents.py"
    two.write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('seed', {str(seed.path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "first = m.build_agent(initial_delay=0.0)\nsecond = m.build_agent(initial_delay=0.0)\n"
    )
    window = make_window(qtbot, tmp_path)
    result = window.open_agent_file(str(two))
    picker = window.graph_picker
    assert picker.texts() == ["first", "second"]
    picker.list_widget.setCurrentRow(1)
    picker.ok_button.click()
    assert qloop.run_until_complete(result) is True
    assert window.hub.source_label == "two_agents.py:second"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def test_settings_test_connection_and_theme(
    qtbot: Any, qloop: Any, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    window = make_window(qtbot, tmp_path)
    future = window.menus.open_settings()
    dialog = window.menus.settings_dialog
    assert not dialog.test_button.isEnabled()  # scripted: nothing to test
    dialog.provider_box.setCurrentIndex(dialog.provider_box.findData("openai"))
    dialog.base_url_edit.setText(server.base_url)
    dialog.model_edit.setText("test-model")
    server.reply_text("OK")
    dialog.test_button.click()
    qloop.run_until_complete(dialog.test_task)
    assert dialog.test_label.text() == "Connected: test-model replied 'OK'"
    server.reply_error(500, "broken")
    dialog.test_button.click()
    qloop.run_until_complete(dialog.test_task)
    assert dialog.test_label.text().startswith("Failed: ") and "500" in dialog.test_label.text()
    dialog.theme_box.setCurrentIndex(dialog.theme_box.findData("dark"))
    dialog.ok_button.click()
    qloop.run_until_complete(future)
    assert window.settings.provider == "openai" and window.settings.model == "test-model"
    assert window.hub.theme == "dark" and window.graph_panel.view.theme == "dark"
    assert "#1b1e23" in QApplication.instance().styleSheet()
    assert window.menus.theme_actions["dark"].isChecked()
    window.menus.set_theme("light")
    assert window.graph_panel.view.theme == "light"


def test_save_session_as_then_open_it_for_replay(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(factory(), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    live = [e.seq for e in window.hub.events]
    saved = tmp_path / "mine.stepwise"
    window.menus.save_session(str(saved))
    assert window.status.message_label.text() == f"Session saved to {saved}"
    with Session.open(saved) as session:
        assert session.count() == len(live)
    assert window.open_session(str(saved))
    if window.opened_session.task is not None:
        qloop.run_until_complete(window.opened_session.task)
    hub = window.hub
    assert hub.status == "replay" and [e.seq for e in hub.events] == live
    assert hub.drawable is not None and "tools" in hub.drawable.nodes
    assert window.graph_panel.state.visits("tools") == 3
    assert not window.actions_.run.isEnabled()


def test_opening_a_damaged_session_says_why(qtbot: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    bad = tmp_path / "bad.stepwise"
    bad.write_text("not a database")
    assert not window.open_session(str(bad))
    assert window.error_dialog is not None and str(bad) in window.error_dialog.message


def test_breakpoints_form_adds_and_the_graph_shows_the_dot(qtbot: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(factory(), "seed000")
    panel = window.breakpoints_panel
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("before_node"))
    panel.target_box.setCurrentText("tools")
    assert panel.add_from_form()
    assert "tools" in window.graph_panel.state.breakpoints
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("tool"))
    panel.target_box.setCurrentText("")
    assert not panel.add_from_form() and panel.error_label.text() == "Tool is missing"
    panel.tree.setCurrentItem(panel.tree.topLevelItem(0))
    panel.remove_button.click()
    assert window.graph_panel.state.breakpoints == frozenset()


def test_an_interrupt_opens_a_dialog_and_can_be_answered_later(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from studio.run.interrupts import dialog_opened

    opened: list[QDialog] = []
    disconnect = dialog_opened.connect(opened.append)
    try:
        window = make_window(qtbot, tmp_path)
        scenario = find_scenario("approval")
        assert scenario is not None and window.load_spec(scenario.spec, "approval")
        window.actions_.run.trigger()
        run_until(qloop, lambda: len(opened) == 1)
        assert window.hub.status == "interrupted" and window.actions_.stop.isEnabled()
        opened[0].reject()  # "Answer later"
        run_until(qloop, lambda: not window.controller.busy)
        assert window.hub.status == "interrupted" and window.actions_.run.text() == "Continue"
        window.actions_.run.trigger()  # F5 asks again
        run_until(qloop, lambda: len(opened) == 2)
        opened[1].reject()
        run_until(qloop, lambda: not window.controller.busy)
    finally:
        disconnect()


def test_rerun_from_a_checkpoint_with_replay_makes_a_branch(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    seed = find_scenario("retry_todos")
    assert seed is not None
    fast = tmp_path / "fast_seed.py"
    fast.write_text(
        '"""Seed 000 without retry delays."""\n'
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('seed', {str(seed.path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "INPUT = m.INPUT\n"
        "def build_agent(model=None):\n"
        "    return m.build_agent(initial_delay=0.0, model=model)\n"
        "agent = build_agent()\n"
    )
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{fast}:agent")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    timeline = window.docks["timeline"].widget().timeline
    after_todos = next(n for n in timeline.ordered() if n.step == 3)
    live_calls = sum(e.kind == "model.response" for e in window.hub.events)
    window.docks["timeline"].widget().rerunRequested.emit(after_todos.checkpoint_id)
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    replayed = [e for e in window.hub.events if e.kind == "model.response" and e.replayed]  # type: ignore[attr-defined]
    assert replayed and len(replayed) < live_calls
    assert len(timeline.tips()) == 2, "the re-run is a new branch; the old one stays"
    assert len(window.hub.snapshot().values["messages"]) == 8  # type: ignore[union-attr]


PLAN_AGENT = '''"""Seed 003 where data/sales.csv lands only after two failed reads."""
import importlib.util
import json

from engine.tools import tool

spec = importlib.util.spec_from_file_location("plan", {path!r})
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
INPUT = m.OBJECTIVE
tools, _disk = m.make_tools(0.0)
fails = {{"data/sales.csv": 2}}
inner = next(t for t in tools if t.name == "read_file")


@tool
async def read_file(path: str) -> str:
    """Read a text file.

    Args:
        path: the file's path
    """
    if fails.get(path):
        fails[path] -= 1
        raise FileNotFoundError(f"file not found: {{path}}")
    return m.SALES_CSV if path == "data/sales.csv" else await inner.ainvoke({{"path": path}})


tools = [read_file if t.name == "read_file" else t for t in tools]
plan = json.dumps(m.scripted_plan().model_dump(mode="json"))
model = m.ScriptedChatModel([plan, m.ANSWER, m.ANSWER], name="scripted-planner")
agent = m.create_plan_agent(model, tools, max_retry_rounds=1, name="plan_retry")
'''


def test_retry_failed_plan_steps_from_the_plan_dock(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    scenario = find_scenario("plan_retry")
    assert scenario is not None
    agent_file = tmp_path / "plan_twice.py"
    agent_file.write_text(PLAN_AGENT.format(path=str(scenario.path)))
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{agent_file}:agent"), (
        window.error_dialog and window.error_dialog.message
    )
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    steps = window.hub.snapshot().values["steps"]  # type: ignore[union-attr]
    assert [s["status"] for s in steps] == [
        "succeeded",
        "failed",
        "skipped",
        "skipped",
        "succeeded",
    ]
    plan = window.docks["plan"].widget()
    window.docks["plan"].raise_()  # its tab: a dock behind another reads the plan when shown
    run_until(qloop, lambda: plan.retry_button.isVisible() and plan.retry_button.isEnabled())
    runs = sum(e.kind == "run.finished" for e in window.hub.events)
    chain = plan.request_retry()  # "Retry failed steps with their dependency chain"
    assert chain == [1, 2, 3]
    run_until(
        qloop,
        lambda: (
            sum(e.kind == "run.finished" for e in window.hub.events) > runs
            and window.hub.status == "done"
            and window.actions_.run.isEnabled()
        ),
    )
    steps = window.hub.snapshot().values["steps"]  # type: ignore[union-attr]
    assert all(s["status"] == "succeeded" for s in steps), steps


def test_agents_run_on_the_model_chosen_in_settings(
    qtbot: Any, qloop: Any, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    from studio.app.settings_store import StudioSettings

    window = make_window(qtbot, tmp_path)
    window.settings = StudioSettings(
        provider="openai", base_url=server.base_url, model="served-model"
    )
    server.reply_text("Sunny in both cities.")
    scenario = find_scenario("parallel_tools")
    assert scenario is not None and window.load_spec(scenario.spec, "parallel_tools")
    window.actions_.run.trigger()
    run_until(
        qloop, lambda: window.hub.status in ("done", "error") and window.actions_.run.isEnabled()
    )
    assert window.hub.status == "done", window.controller.last_error
    assert server.requests and server.requests[0]["model"] == "served-model"
    assert window.hub.snapshot().values["messages"][-1].text == "Sunny in both cities."  # type: ignore[union-attr]


def test_the_dock_layout_is_saved_and_restored(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt

    window = make_window(qtbot, tmp_path)
    window.docks["breakpoints"].setFloating(True)
    window.removeDockWidget(window.docks["messages"])
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.docks["messages"])
    window.docks["messages"].show()
    saved = window.save_layout()
    other = make_window(qtbot, tmp_path / "other")
    assert other.restore_layout(saved)
    assert other.dockWidgetArea(other.docks["messages"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert other.docks["breakpoints"].isFloating()
    assert not other.restore_layout("") and not other.restore_layout("garbage")


def test_help_lists_the_debugger_keys(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = make_window(qtbot, tmp_path)
    future = window.menus.show_shortcuts()
    text = window.menus.shortcuts_dialog.table_label.text()
    for key in ("F5", "Shift+F5", "F10", "F11", "Shift+F11", "F9", "F6", "Ctrl+Shift+F5"):
        assert f"<b>{key}</b>" in text
    window.menus.shortcuts_dialog.close_button.click()
    assert qloop.run_until_complete(future) == 0


def test_opening_an_agent_file_runs_it_once(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    seed = find_scenario("retry_todos")
    assert seed is not None
    counter = tmp_path / "imports.txt"
    agent_file = tmp_path / "counted.py"
    agent_file.write_text(
        "import importlib.util, pathlib\n"
        f"p = pathlib.Path({str(counter)!r}); p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
        f"spec = importlib.util.spec_from_file_location('seed', {str(seed.path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "agent = m.build_agent(initial_delay=0.0)\n"
    )
    window = make_window(qtbot, tmp_path)
    assert qloop.run_until_complete(window.open_agent_file(str(agent_file))) is True
    assert window.hub.source_label == "counted.py:agent"
    assert counter.read_text() == "x", "listing the graphs and loading one import the file once"
    qloop.run_until_complete(window.controller.restart())
    assert counter.read_text() == "xx", "Restart imports afresh (scripted models start over)"


def test_a_narrow_dock_group_keeps_its_tab_titles_whole(qtbot: Any, tmp_path: Path) -> None:
    """The right-hand group (Messages, Request, Todos, Plan, Store, Breakpoints) is too narrow
    at 1366x768 for six whole titles: each stays whole and the tabs scroll, rather than being
    elided to "Pl..." / "St...".  So do the tabs of a group the user makes by regrouping."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTabBar

    window = make_window(qtbot, tmp_path)
    window.resize(1366, 768)
    # offscreen fonts are narrow: tab titles as wide as on a desktop (a style sheet, as the
    # application's own may set the tab bars' font)
    window.setStyleSheet(window.styleSheet() + " QTabBar { font-size: 22pt; }")

    def bar_with(*titles: str) -> QTabBar | None:
        for bar in window.findChildren(QTabBar):
            shown = [bar.tabText(i) for i in range(bar.count())]
            if bar.isVisible() and all(t in shown for t in titles):
                return bar
        return None

    def whole(bar: QTabBar) -> None:
        assert bar.elideMode() == Qt.TextElideMode.ElideNone and bar.usesScrollButtons()
        metrics = bar.fontMetrics()
        for i in range(bar.count()):
            text = bar.tabText(i)
            assert bar.tabRect(i).width() >= metrics.horizontalAdvance(text), text

    qtbot.waitUntil(lambda: bar_with("Messages", "Breakpoints") is not None)
    bar = bar_with("Messages", "Breakpoints")
    assert bar is not None
    titles = sum(bar.fontMetrics().horizontalAdvance(bar.tabText(i)) for i in range(bar.count()))
    assert bar.width() < titles + 12 * bar.count()  # too narrow for every tab at once
    whole(bar)
    window.tabifyDockWidget(window.docks["events"], window.docks["plan"])  # the user regroups
    qtbot.waitUntil(lambda: bar_with("Events", "Plan") is not None)
    regrouped = bar_with("Events", "Plan")
    assert regrouped is not None
    whole(regrouped)
