"""Item 8 of the first-use report: "Re-run with replay" with the agent's own model loaded.

The recorded replies are served until the run diverges (here: create_file fails twice, so the
next request carries an error); then the agent's own model answers instead of the run stopping
with "no fallback model".  The timeline marks the replayed checkpoints and the divergence, so a
replay does not look like a plain "Resume from here".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.studio import app_agents
from tests.studio.app_agents import click, make_window, run_until

AFTER_DIVERGENCE = "register.tsx could not be created: the disk is full."


def _finished_runs(window: Any) -> int:
    return sum(1 for e in window.hub.events if e.kind == "run.finished" and not e.ns)


def test_after_a_divergence_the_agents_own_model_answers_and_the_timeline_says_so(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    window.resize(1400, 900)
    script = [*app_agents.script(), AFTER_DIVERGENCE]
    window.controller.load_factory(app_agents.factory(script_items=script), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    assert window.controller.model_source is not None
    assert window.controller.model_source() is None  # no Settings model: the agent's own

    timeline = window.docks["timeline"].widget()
    after_todos = next(
        n for n in timeline.timeline.main.nodes if n.writers == ("tools",)
    ).checkpoint_id
    timeline.select(after_todos)
    window.controller.debugger.inject_tool_error("create_file", times=2)
    runs = _finished_runs(window)
    click(qtbot, qloop, timeline.rerun_button)
    run_until(
        qloop,
        lambda: _finished_runs(window) > runs and not window.controller.busy,
    )
    assert window.controller.status == "done", window.controller.last_error
    state = window.controller.graph.get_state(window.hub.config())
    assert state.values["messages"][-1].text == AFTER_DIVERGENCE

    branch = [n for n in timeline.timeline.by_id.values() if n.branch.id != 0]
    replayed = [n for n in branch if n.marker("replayed")]
    diverged = [n for n in branch if n.marker("divergence")]
    assert replayed and len(diverged) == 1
    assert not diverged[0].marker("replayed")  # from the divergence on, nothing is replayed
    assert all(n.record.step < diverged[0].record.step for n in replayed)


def test_the_checkpoint_a_run_ended_at_offers_no_resume_and_no_rerun(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    """Resume or Re-run from the last checkpoint of a finished run runs nothing and only writes
    an empty copy of it: both buttons are off there and say why; one step earlier they work."""
    window = make_window(qtbot, tmp_path)
    window.controller.load_factory(app_agents.factory(), "seed000")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.controller.status == "done" and not window.controller.busy)
    timeline = window.docks["timeline"].widget()
    nodes = timeline.timeline.main.nodes
    assert nodes[-1].next == ()
    timeline.select(nodes[-1].checkpoint_id)
    for button in (timeline.resume_button, timeline.rerun_button):
        assert not button.isEnabled()
        assert button.toolTip().startswith("Nothing runs after this checkpoint")
    timeline.select(nodes[-2].checkpoint_id)
    assert timeline.resume_button.isEnabled() and timeline.rerun_button.isEnabled()
