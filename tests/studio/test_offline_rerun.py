"""Re-running from a checkpoint of a session opened from its file, with no agent loaded: the
session names its agent file, the user agrees to load it, recorded responses are served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDialog

from engine.recording import Session
from studio.app.scenarios import find_scenario
from tests.studio.app_agents import make_window, run_until


def _fast_seed(tmp_path: Path) -> Path:
    seed = find_scenario("retry_todos")
    assert seed is not None
    fast = tmp_path / "fast_seed.py"
    fast.write_text(
        '"""Seed 000 without retry delays."""\n'
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('seed', {str(seed.path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "INPUT = m.INPUT\n"
        "agent = m.build_agent(initial_delay=0.0)\n"
    )
    return fast


def test_rerun_from_an_opened_session_loads_its_agent_after_asking(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    fast = _fast_seed(tmp_path)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{fast}:agent")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    saved = tmp_path / "recorded.stepwise"
    window.menus.save_session(str(saved))
    with Session.open(saved) as session:
        assert session.agent_spec() == f"{fast.resolve()}:agent"

    fresh = make_window(qtbot, tmp_path)
    assert fresh.open_session(str(saved))
    if fresh.opened_session.task is not None:
        qloop.run_until_complete(fresh.opened_session.task)
    timeline = fresh.docks["timeline"].widget().timeline
    run_until(qloop, lambda: any(n.step == 3 for n in timeline.ordered()))
    after_todos = next(n for n in timeline.ordered() if n.step == 3)
    tips_before = len(timeline.tips())
    fresh.docks["timeline"].widget().rerunRequested.emit(after_todos.checkpoint_id)
    dialog = fresh.confirm_dialog
    assert dialog.isVisible() and str(fast.resolve()) in dialog.message_label.text()
    dialog.accept_button.click()
    run_until(qloop, lambda: "replayed" in fresh.status.message_label.text())
    assert "no divergence" in fresh.status.message_label.text()
    replayed = [e for e in fresh.hub.events if e.kind == "model.response" and e.replayed]  # type: ignore[attr-defined]
    assert replayed, "the recorded responses were served"
    run_until(
        qloop, lambda: len(fresh.docks["timeline"].widget().timeline.tips()) == tips_before + 1
    )


def test_declining_leaves_the_session_untouched(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    fast = _fast_seed(tmp_path)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{fast}:agent")
    window.actions_.run.trigger()
    run_until(qloop, lambda: window.hub.status == "done" and window.actions_.run.isEnabled())
    saved = tmp_path / "recorded.stepwise"
    window.menus.save_session(str(saved))
    count = Session.open(saved).count()

    fresh = make_window(qtbot, tmp_path)
    assert fresh.open_session(str(saved))
    if fresh.opened_session.task is not None:
        qloop.run_until_complete(fresh.opened_session.task)
    timeline = fresh.docks["timeline"].widget().timeline
    run_until(qloop, lambda: any(n.step == 3 for n in timeline.ordered()))
    cid = next(n for n in timeline.ordered() if n.step == 3).checkpoint_id
    fresh.docks["timeline"].widget().rerunRequested.emit(cid)
    fresh.confirm_dialog.cancel_button.click()
    run_until(qloop, lambda: not fresh.confirm_dialog.isVisible())
    assert fresh.confirm_dialog.result() == QDialog.DialogCode.Rejected
    with Session.open(saved) as session:
        assert session.count() == count  # nothing ran
