"""Item 6 of the first-use report: selecting a checkpoint moves the whole window, and the live
view counts only the branch being run.

Seed 000 runs to the end; a click on the checkpoint after ``write_todos`` in the Timeline must
move the Graph (visits, last route), the Events log and the status bar to that moment; a fork
from there shows, live, the visits of the new branch only (not the sum of both branches), and
the Todos board shows the new branch's list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from engine.messages import AIMessage
from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until


def _runs(window: Any) -> int:
    return sum(1 for e in window.hub.events if e.kind == "run.finished" and not e.ns)


def _after_first_tools(window: Any) -> Any:
    return next(
        e
        for e in window.hub.events
        if e.kind == "checkpoint.saved" and list(e.writer_nodes) == ["tools"]
    )


def _click_checkpoint(qtbot: Any, window: Any, checkpoint_id: str) -> None:
    timeline = window.docks["timeline"].widget()
    window.docks["timeline"].raise_()
    node = timeline.timeline.get(checkpoint_id)
    index = timeline.item_model.index_of(node)
    timeline.view.scrollTo(index)
    rect = timeline.view.visualRect(index)
    qtbot.mouseClick(timeline.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.hub.selected_checkpoint == checkpoint_id)


def test_a_past_checkpoint_moves_graph_events_and_status_bar(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    script = [*app_agents.script(), AIMessage("Only login.tsx was needed.")]
    window = make_window(qtbot, tmp_path)
    window.resize(1400, 900)
    window.controller.load_factory(app_agents.factory(script_items=script), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    graph = window.graph_panel.state
    assert (graph.visits("model"), graph.visits("tools")) == (4, 3)

    moment = _after_first_tools(window)
    _click_checkpoint(qtbot, window, moment.checkpoint_id)
    assert (graph.visits("model"), graph.visits("tools")) == (1, 1)
    assert graph.last_route is not None and graph.last_route.from_node == "tools"
    log = window.docks["events"].widget()
    selected = log.selected_row()
    assert selected is not None and selected.event.checkpoint_id == moment.checkpoint_id
    assert selected.kind == "checkpoint.saved" and not log.follow
    status = window.status
    assert status.fields["step"].text() == f"Step {moment.step}"
    assert "Time travel" in status.message_label.full_text()

    # fork from there: live, the graph counts the new branch only
    timeline = window.docks["timeline"].widget()
    runs = _runs(window)
    click(qtbot, qloop, timeline.resume_button)
    run_until(
        qloop,
        lambda: (
            _runs(window) > runs
            and window.controller.status == "done"
            and not window.controller.busy
        ),
    )
    assert window.hub.selected_checkpoint is None
    assert (graph.visits("model"), graph.visits("tools")) == (2, 1)
    assert "Time travel" not in status.message_label.full_text()
    todos = window.docks["todos"].widget()
    run_until(qloop, lambda: todos.reader.task is None or todos.reader.task.done())
    assert [t["content"] for t in todos.state.todos or []] == [
        t["content"] for t in app_agents.TODOS
    ]
