"""Item 7 of the first-use report: "Retry failed steps" acts on the checkpoint the Plan dock
shows.  With a past checkpoint selected, the retry forks from it (the later branch stays); the
button says where it will start from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.studio.app_agents import click, make_window, run_until


def _settle(qloop: Any, dock: Any) -> None:
    run_until(qloop, lambda: dock.reader.task is None or dock.reader.task.done())


def test_retry_from_a_selected_past_checkpoint_forks_there(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    assert window.load_scenario("plan_retry")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    plan = window.docks["plan"].widget()
    window.docks["plan"].raise_()
    graph = window.controller.graph
    config = window.hub.config()
    tip = graph.get_state(config).config["configurable"]["checkpoint_id"]
    _settle(qloop, plan)
    assert not plan.retry_button.isEnabled()  # at the end every step succeeded

    saved = [e.checkpoint_id for e in window.hub.events if e.kind == "checkpoint.saved"]
    timeline = window.docks["timeline"].widget()
    failed_at = None
    for cid in saved:  # the first moment with a failed step to retry
        timeline.select(cid)
        _settle(qloop, plan)
        if plan.retry_button.isEnabled():
            failed_at = cid
            break
    assert failed_at is not None
    assert "from this checkpoint" in plan.retry_button.toolTip()

    runs = sum(1 for e in window.hub.events if e.kind == "run.finished")
    click(qtbot, qloop, plan.retry_button)
    run_until(
        qloop,
        lambda: (
            sum(1 for e in window.hub.events if e.kind == "run.finished") > runs
            and not window.controller.busy
        ),
    )
    history = list(graph.get_state_history(config))
    forks = [s for s in history if s.metadata.get("source") == "update"]
    assert forks and forks[-1].parent_config["configurable"]["checkpoint_id"] == failed_at
    assert any(s.config["configurable"]["checkpoint_id"] == tip for s in history)  # kept
    assert window.hub.selected_checkpoint is None  # the retry is followed live
